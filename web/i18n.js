// Translations: five languages, picked from the browser, switchable, remembered in localStorage.
// Only the active language is loaded, with a dynamic import() before the page is drawn (initLang),
// another one when the user switches to it. English is the fallback for a key a language lacks:
// such a key loads English (once) and the page is drawn again with it (tests/web/rules.test.mjs
// checks that every language has every key, so this is a safety net).

// The languages loaded so far, by code.
export const LANGS = {};
export const LANG_NAMES = { en: 'English', fr: 'Français', pt: 'Português (Brasil)', ru: 'Русский', pl: 'Polski' };
// The locale of each language, for plural rules and the page's lang attribute.
export const LOCALES = { en: 'en', fr: 'fr', pt: 'pt-BR', ru: 'ru', pl: 'pl' };
const LOADERS = {
  en: () => import('./lang-en.js'),
  fr: () => import('./lang-fr.js'),
  pt: () => import('./lang-pt.js'),
  ru: () => import('./lang-ru.js'),
  pl: () => import('./lang-pl.js'),
};
const KEY = 'mc.lang';
let current = 'en';
let fallback = null; // English being loaded for a missing key
const listeners = new Set();

function pick() {
  try {
    const saved = localStorage.getItem(KEY);
    if (saved && LANG_NAMES[saved]) return saved;
  } catch { /* storage blocked, or no browser (tests in node) */ }
  const nav = typeof navigator === 'undefined' ? null : navigator;
  for (const l of (nav && (nav.languages || [nav.language])) || ['en']) {
    const base = String(l).toLowerCase().split('-')[0];
    if (LANG_NAMES[base]) return base;
  }
  return 'en';
}

// Loads language code (once); resolves with its messages. Rejects when the file cannot be loaded.
export async function loadLang(code) {
  if (!LANGS[code]) {
    if (!LOADERS[code]) throw new Error('no language ' + code);
    LANGS[code] = (await LOADERS[code]()).default;
  }
  return LANGS[code];
}

// Picks the language (saved, else the browser's, else English) and loads it; English when the
// file cannot be loaded.
export async function initLang() {
  const want = pick();
  try { await loadLang(want); current = want; } catch { current = 'en'; await loadLang('en').catch(() => {}); }
  if (typeof document !== 'undefined') document.documentElement.lang = LOCALES[current];
  return current;
}

export function lang() { return current; }

// Switches to language code, loading it first; resolves false when it cannot be loaded.
export async function setLang(code) {
  if (!LANG_NAMES[code]) return false;
  if (code === current) return true;
  try { await loadLang(code); } catch { return false; }
  current = code;
  try { localStorage.setItem(KEY, code); } catch { /* storage blocked */ }
  if (typeof document !== 'undefined') {
    document.documentElement.lang = LOCALES[code];
    applyI18n(document);
  }
  for (const f of listeners) f(code);
  return true;
}

export function onLang(f) { listeners.add(f); return () => listeners.delete(f); }

export function has(key) { return key in (LANGS[current] || {}) || key in (LANGS.en || {}); }

// A key the language lacks and English is not loaded: load it, then draw the page again.
function needEnglish() {
  if (LANGS.en || fallback) return;
  fallback = loadLang('en').then(() => {
    if (typeof document !== 'undefined') applyI18n(document);
    for (const f of listeners) f(current);
  }, () => {});
}

// Plural forms. plural(n, forms, code) picks forms['=' + n] when there is one (an exact count, as
// in ICU: Brazilian Portuguese says "0 sementes" where CLDR gives "one"), else the form of n's
// CLDR category in that language (Intl.PluralRules: one, few, many, other...), else forms.other.
const rules = new Map();
export function plural(n, forms, code = current) {
  if (forms['=' + n] !== undefined) return forms['=' + n];
  if (n === 0 && forms.zero !== undefined) return forms.zero;
  let r = rules.get(code);
  if (!r) rules.set(code, (r = new Intl.PluralRules(LOCALES[code] || code)));
  return forms[r.select(n)] ?? forms.other;
}

// Expands the plural parts of a message: {var, plural, one {# seed} other {# seeds}} (the ICU
// MessageFormat form; "#" is the number, selectors are CLDR categories or =N). Other {name}
// placeholders, inside the forms too, are left for t().
function plurals(s, vars, code) {
  let out = '';
  let i = 0;
  for (;;) {
    const m = /\{(\w+), *plural, */g;
    m.lastIndex = i;
    const hit = m.exec(s);
    if (!hit) return out + s.slice(i);
    out += s.slice(i, hit.index);
    let j = m.lastIndex;
    const forms = {};
    while (j < s.length && s[j] !== '}') {
      const sel = /^\s*(=?\w+)\s*\{/.exec(s.slice(j));
      if (!sel) throw new Error('bad plural in message: ' + s);
      let depth = 1;
      let k = j + sel[0].length;
      const start = k;
      for (; k < s.length && depth; k++) depth += s[k] === '{' ? 1 : s[k] === '}' ? -1 : 0;
      forms[sel[1]] = s.slice(start, k - 1);
      j = k;
      while (s[j] === ' ') j++;
    }
    const n = Number(vars && vars[hit[1]]);
    out += plural(n, forms, code).replace(/#/g, String(n));
    i = j + 1;
  }
}

// tIn('ru', 'key', {n: 3, name: 'Ana'}): the message in a given (loaded) language, English when it
// has no such key, the key itself when nobody has it (or until English is loaded). {name}
// placeholders; plural parts as in plurals(); a message that is an object holds the plural forms
// of vars.n.
export function tIn(code, key, vars) {
  let s = LANGS[code] ? LANGS[code][key] : undefined;
  if (s === undefined && LANGS.en) s = LANGS.en[key];
  // Before the language's own file is in (a welcome can come first: the connection opens while it
  // loads), the key stands in: applyI18n() draws the page again once it is. Only a key the loaded
  // language lacks brings English.
  if (s === undefined) { if (LANGS[code]) needEnglish(); return key; }
  if (typeof s === 'object') s = plural(vars && typeof vars.n === 'number' ? vars.n : 0, s, code);
  if (s.includes(', plural,')) s = plurals(s, vars, code);
  if (vars) s = s.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
  return s;
}

// t('key', vars): tIn() in the current language.
export function t(key, vars) { return tIn(current, key, vars); }

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

