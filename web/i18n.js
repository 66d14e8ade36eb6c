// Translations: five languages, picked from the browser, switchable, remembered in localStorage.
import en from './lang-en.js';
import fr from './lang-fr.js';
import pt from './lang-pt.js';
import ru from './lang-ru.js';
import pl from './lang-pl.js';

export const LANGS = { en, fr, pt, ru, pl };
export const LANG_NAMES = { en: 'English', fr: 'Français', pt: 'Português', ru: 'Русский', pl: 'Polski' };
const KEY = 'mc.lang';
let current = pick();
const listeners = new Set();

function pick() {
  try {
    const saved = localStorage.getItem(KEY);
    if (saved && LANGS[saved]) return saved;
  } catch { /* storage blocked */ }
  for (const l of navigator.languages || [navigator.language || 'en']) {
    const base = String(l).toLowerCase().split('-')[0];
    if (LANGS[base]) return base;
  }
  return 'en';
}

export function lang() { return current; }

export function setLang(code) {
  if (!LANGS[code] || code === current) return;
  current = code;
  try { localStorage.setItem(KEY, code); } catch { /* storage blocked */ }
  document.documentElement.lang = code;
  applyI18n(document);
  for (const f of listeners) f(code);
}

export function onLang(f) { listeners.add(f); return () => listeners.delete(f); }

export function has(key) { return key in LANGS[current] || key in en; }

// t('key', {n: 3, name: 'Ana'}): {name} placeholders; a value that is an object holds plural forms.
export function t(key, vars) {
  let s = LANGS[current][key];
  if (s === undefined) s = en[key];
  if (s === undefined) return key;
  if (typeof s === 'object') {
    const n = vars && typeof vars.n === 'number' ? vars.n : 0;
    // An explicit "zero" form wins for 0 (Portuguese says "0 sementes" where CLDR gives "one").
    const form = n === 0 && s.zero ? 'zero' : new Intl.PluralRules(current).select(n);
    s = s[form] ?? s.other;
  }
  if (vars) s = s.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
  return s;
}

// Refreshes every element built with data-i18n (text) or data-i18n-<attr> (attributes).
export function applyI18n(root) {
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll('*')) {
    for (const [k, v] of Object.entries(el.dataset)) {
      if (k.startsWith('i18n') && k.length > 4) {
        const attr = k[4].toLowerCase() + k.slice(5);
        el.setAttribute(attr, t(v));
      }
    }
  }
}

document.documentElement.lang = current;
