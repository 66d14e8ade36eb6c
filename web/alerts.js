// Your-turn alerts while the tab is hidden: the tab title ("(•) Your move - Mancala Online"), and
// an optional browser notification the player turns on (mc.notify in localStorage; the browser's
// permission is asked for only when they press the switch). The title goes back to the page's own
// when the tab is shown again.
import { storage, store } from './ui.js';

const KEY = 'mc.notify';
let base = typeof document !== 'undefined' ? document.title : '';
let flagged = null;
let shown = null;

function hidden() { return typeof document !== 'undefined' && document.visibilityState === 'hidden'; }

// The page's own title; kept aside while an alert holds the tab title.
export function setTitle(text) {
  base = text;
  if (!flagged) document.title = text;
}

// Clears an alert: the page's title comes back and a notification still shown is closed.
export function clearAlert() {
  if (flagged) { flagged = null; document.title = base; }
  if (shown) { try { shown.close(); } catch { /* already gone */ } shown = null; }
}

if (typeof document !== 'undefined') {
  document.addEventListener('visibilitychange', () => { if (!hidden()) clearAlert(); });
}

export function notifySupported() { return typeof window !== 'undefined' && 'Notification' in window; }
export function notifyOn() { return notifySupported() && storage(KEY, false) === true && Notification.permission === 'granted'; }

// Turns notifications on (asking the browser's permission, from a click) or off; resolves with
// the new setting and, when refused, 'denied'.
export async function toggleNotify() {
  if (!notifySupported()) return { on: false, denied: true };
  if (notifyOn()) { store(KEY, false); return { on: false }; }
  let perm = Notification.permission;
  if (perm === 'default') { try { perm = await Notification.requestPermission(); } catch { perm = 'denied'; } }
  store(KEY, perm === 'granted');
  return { on: perm === 'granted', denied: perm !== 'granted' };
}

// Raises an alert when the tab is hidden: the tab title, and a notification when they are on.
// Returns false (and does nothing) when the tab is visible.
export function alertHidden(title, note) {
  if (!hidden()) return false;
  flagged = title;
  document.title = title;
  if (note && notifyOn()) {
    try {
      if (shown) shown.close();
      shown = new Notification(note.title, { body: note.body, tag: note.tag, icon: '/favicon.svg' });
      shown.onclick = () => { window.focus(); if (shown) shown.close(); };
    } catch { shown = null; }
  }
  return true;
}
