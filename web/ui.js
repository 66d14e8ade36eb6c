// Small DOM helpers shared by every view. No framework: elements are built with h().
import { t } from './i18n.js';

// h('button', {class: 'btn', onclick: fn, i18n: 'key'}, 'child', otherNode)
export function h(tag, attrs, ...children) {
  const svg = tag.startsWith('svg:');
  const el = svg ? document.createElementNS('http://www.w3.org/2000/svg', tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.setAttribute('class', v);
    else if (k === 'text') el.textContent = v;
    else if (k === 'i18n') { el.dataset.i18n = v; el.textContent = t(v); }
    else if (k === 'i18nAttr') { for (const [a, key] of Object.entries(v)) { el.dataset['i18n' + a[0].toUpperCase() + a.slice(1)] = key; el.setAttribute(a, t(key)); } }
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'style') for (const [p, val] of Object.entries(v)) el.style.setProperty(p, val);
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export function clear(el) { while (el.firstChild) el.firstChild.remove(); return el; }

// A short message at the bottom of the screen.
export function toast(text, kind = 'info', ms = 3500) {
  const box = document.getElementById('toasts');
  if (!box) return;
  const el = h('div', { class: 'toast ' + kind, role: kind === 'error' ? 'alert' : 'status' }, text);
  box.append(el);
  setTimeout(() => { el.classList.add('out'); setTimeout(() => el.remove(), 300); }, ms);
}

// A modal question; resolves true when confirmed.
export function confirmDialog(title, body, okKey = 'common.confirm', danger = false) {
  return new Promise((resolve) => {
    const dlg = document.getElementById('dialog');
    clear(dlg);
    dlg.removeAttribute('aria-labelledby');
    const done = (v) => { dlg.close(); resolve(v); };
    const ok = h('button', { class: 'btn ' + (danger ? 'danger' : 'primary'), onclick: () => done(true) }, t(okKey));
    append(dlg, [
      h('h2', { class: 'dlg-title' }, title),
      body ? h('p', {}, body) : null,
      h('div', { class: 'dlg-actions' }, h('button', { class: 'btn ghost', onclick: () => done(false) }, t('common.cancel')), ok),
    ]);
    dlg.onclose = () => resolve(false);
    dlg.showModal();
    ok.focus();
  });
}

// A modal question with one text field (a name): resolves with the trimmed text, or null when
// cancelled. The field is required and holds at most maxlength characters.
export function promptDialog({ title, body, label, value = '', okKey = 'common.confirm', cancelKey = 'common.cancel', maxlength = 24 }) {
  return new Promise((resolve) => {
    const dlg = document.getElementById('dialog');
    clear(dlg);
    let settled = false;
    const done = (v) => { if (settled) return; settled = true; if (dlg.open) dlg.close(); resolve(v); };
    const input = h('input', { class: 'input', id: 'dlg-field', maxlength: String(maxlength), required: true, autocomplete: 'nickname', value });
    const form = h('form', { class: 'dlg-form', onsubmit: (e) => {
      e.preventDefault();
      const v = input.value.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim().replace(/\s+/g, ' ');
      if (!v) { input.setAttribute('aria-invalid', 'true'); input.focus(); return; }
      done(v);
    } },
    h('h2', { class: 'dlg-title', id: 'dlg-title' }, title),
    body ? h('p', {}, body) : null,
    h('label', { class: 'field', for: 'dlg-field' }, h('span', {}, label)),
    input,
    h('div', { class: 'dlg-actions' },
      h('button', { class: 'btn ghost', type: 'button', onclick: () => done(null) }, t(cancelKey)),
      h('button', { class: 'btn primary', type: 'submit' }, t(okKey))));
    dlg.append(form);
    dlg.setAttribute('aria-labelledby', 'dlg-title');
    dlg.onclose = () => done(null);
    dlg.showModal();
    input.focus();
    input.select();
  });
}

export function storage(key, fallback) {
  try { const v = localStorage.getItem(key); return v === null ? fallback : JSON.parse(v); } catch { return fallback; }
}
export function store(key, value) { try { localStorage.setItem(key, JSON.stringify(value)); } catch { /* private mode */ } }

export function fmtClock(ms) {
  ms = Math.max(0, ms);
  if (ms < 10000) return (Math.floor(ms / 100) / 10).toFixed(1);
  const s = Math.ceil(ms / 1000), m = Math.floor(s / 60), r = s % 60;
  if (m >= 60) return Math.floor(m / 60) + ':' + String(m % 60).padStart(2, '0') + ':' + String(r).padStart(2, '0');
  return m + ':' + String(r).padStart(2, '0');
}

export function clockLabel(clock) {
  if (!clock) return t('clock.none');
  const min = clock.initial_ms / 60000, inc = (clock.increment_ms || 0) / 1000;
  return (Number.isInteger(min) ? min : min.toFixed(1)) + ' + ' + inc;
}

export const GAMES = ['kalah', 'oware', 'congkak'];
export const DEFAULTS = { kalah: { houses: 6, seeds: 4 }, oware: { houses: 6, seeds: 4 }, congkak: { houses: 7, seeds: 7 } };

// Small line icons drawn with SVG paths (no icon font, no emoji: the machine may lack both).
const ICONS = {
  eye: 'M2 12s3.6-7 10-7 10 7 10 7-3.6 7-10 7S2 12 2 12z M12 9a3 3 0 1 0 0 6 3 3 0 0 0 0-6z',
  trophy: 'M7 4h10v5a5 5 0 0 1-10 0V4z M7 6H4v2a3 3 0 0 0 3 3 M17 6h3v2a3 3 0 0 1-3 3 M12 14v4 M8 21h8 M9 18h6',
  scale: 'M12 4v16 M5 20h14 M4 8h16 M6 8l-3 6a3 3 0 0 0 6 0L6 8 M18 8l-3 6a3 3 0 0 0 6 0l-3-6',
  seed: 'M12 21c-4-2-7-6-7-11 4 0 7 3 7 7 0-6 3-11 7-12 0 7-3 13-7 16z',
  scroll: 'M6 3h11a2 2 0 0 1 2 2v13a3 3 0 0 1-3 3H7a3 3 0 0 1-3-3V6 M9 8h7 M9 12h7 M9 16h4',
  first: 'M6 5v14 M18 5l-9 7 9 7z',
  back: 'M16 5l-9 7 9 7z',
  fwd: 'M8 5l9 7-9 7z',
  last: 'M18 5v14 M6 5l9 7-9 7z',
  play: 'M7 4l13 8-13 8z',
  pause: 'M7 5v14 M17 5v14',
  flip: 'M7 4v16 M4 7l3-3 3 3 M17 20V4 M14 17l3 3 3-3',
  link: 'M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1 M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1',
  sound: 'M4 9h4l5-4v14l-5-4H4z M16 9a4 4 0 0 1 0 6 M18.5 6.5a8 8 0 0 1 0 11',
  mute: 'M4 9h4l5-4v14l-5-4H4z M16 9l5 6 M21 9l-5 6',
  bell: 'M6 16V11a6 6 0 0 1 12 0v5l2 2H4z M10 20a2 2 0 0 0 4 0',
  'bell-off': 'M6 16V11a6 6 0 0 1 12 0v5l2 2H4z M10 20a2 2 0 0 0 4 0 M3 3l18 18',
  pencil: 'M4 20l4-1 11-11-3-3L5 16z M14 6l3 3',
  download: 'M12 4v11 M7 10l5 5 5-5 M5 20h14',
  user: 'M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8z M4 21c0-4 3.6-7 8-7s8 3 8 7',
  sliders: 'M4 6h9 M17 6h3 M4 12h3 M11 12h9 M4 18h11 M19 18h1 M15 4v4 M9 10v4 M17 16v4',
  shield: 'M12 3l7 3v5c0 4.6-3 8.3-7 10-4-1.7-7-5.4-7-10V6z M9 12l2 2 4-4',
};
export function icon(name) {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('class', 'icon icon-' + name);
  svg.setAttribute('aria-hidden', 'true');
  const p = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  p.setAttribute('d', ICONS[name] || '');
  p.setAttribute('fill', 'none');
  p.setAttribute('stroke', 'currentColor');
  p.setAttribute('stroke-width', '2');
  p.setAttribute('stroke-linecap', 'round');
  p.setAttribute('stroke-linejoin', 'round');
  svg.append(p);
  return svg;
}
