// The rules texts of the web client against the rooms they describe (issue 9): for every language
// and many rooms (boards from 1x1 to 9x12, every option of every game), the "rules of this game"
// (web/rules.js) must state exactly the figures of that room, describe the rules its options select,
// and name its options with their values; counts must take the plural form their language asks
// for. The expected figures are computed here from the room and the rule book (shared/rules.md),
// not taken from web/rules.js. Runs in node, without a browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LANGS, LOCALES, tIn, loadLang } from '../../web/i18n.js';
import { roomRules, optionHelp } from '../../web/rules.js';

const CODES = ['en', 'fr', 'pt', 'ru', 'pl'];
// The client loads one language at a time (dynamic import); these tests read them all.
await Promise.all(CODES.map((code) => loadLang(code)));
const BOARDS = [[1, 1], [2, 3], [3, 12], [4, 5], [5, 3], [6, 4], [7, 7], [7, 3], [8, 11], [9, 12], [9, 1]];

// Every option combination of each game, as a room's `options` (protocol names).
const OPTIONS = {
  kalah: [{ empty_capture: false }, { empty_capture: true }],
  oware: ['no_capture', 'forbidden', 'capture'].map((grand_slam) => ({ grand_slam })),
  congkak: [
    { lap_capture: false, rounds: 'single' }, { lap_capture: true, rounds: 'single' },
    { lap_capture: false, rounds: 'match' }, { lap_capture: true, rounds: 'match' },
    // A match stored under the old burn rule and recovered (docs/protocol.md, options.burn).
    { lap_capture: false, rounds: 'match', burn: 'match' },
  ],
};

function rooms() {
  const out = [];
  for (const game of Object.keys(OPTIONS)) {
    for (const [houses, seeds] of BOARDS) for (const options of OPTIONS[game]) out.push({ game, houses, seeds, options });
  }
  return out;
}

// The rules a room's options select (rule book: Kalah 1-5, Oware 1-6, Congkak 1-8).
function expectedIds({ game, options: o }) {
  if (game === 'kalah') return ['kalah.sow', 'kalah.lap', 'kalah.extra', o.empty_capture ? 'kalah.capture_empty' : 'kalah.capture', 'kalah.end', 'kalah.win'];
  if (game === 'oware') return ['oware.sow', 'oware.lap', 'oware.capture', 'oware.grand_slam.' + o.grand_slam, 'oware.feed', 'oware.win', 'oware.repetition'];
  const ids = ['congkak.sow', 'congkak.relay', 'congkak.extra', o.lap_capture ? 'congkak.capture_lap' : 'congkak.capture', 'congkak.opponent'];
  if (o.rounds !== 'match') return [...ids, 'congkak.end', 'congkak.repetition'];
  return [...ids, 'congkak.round_end', 'congkak.match.refill', o.burn === 'match' ? 'congkak.match.burn_kept' : 'congkak.match.burn',
    'congkak.match.first', 'congkak.match.end', 'congkak.repetition'];
}

// The numbers each text may and must state, from the room: m houses a side, n seeds a house.
//   board: m, n and the 2mn seeds in play;
//   a lap: Kalah sows 2m+1 pits (its own store, not the opponent's); Oware 2m houses (no store);
//   the winner: more than half of 2mn, that is mn + 1 or more; mn each is a draw;
//   Oware captures houses of exactly 2 or 3;
//   a Congkak match refills n seeds a house (mn for a whole side) and ends after round 9 or when a
//   store holds fewer than n seeds.
function expectedNumbers(id, { houses: m, seeds: n }) {
  switch (id) {
    case 'board': return [m, n, 2 * m * n];
    case 'kalah.lap': return [2 * m + 1];
    case 'oware.lap': return [2 * m];
    case 'kalah.win': case 'oware.win': return [m * n + 1, 2 * m * n, m * n];
    case 'oware.capture': return [2, 3];
    case 'congkak.match.refill': return [n, m * n];
    case 'congkak.match.end': return [n, 9];
    default: return [];
  }
}

const numbersIn = (text) => new Set((text.match(/\d+/g) || []).map(Number));
const sameSet = (a, b) => a.size === b.size && [...a].every((x) => b.has(x));

// The options of a room as [name key, value key], in the order of the game's options.
function expectedOptionRows({ game, options: o }) {
  const yes = (v) => (v ? 'opt.yes' : 'opt.no');
  if (game === 'kalah') return [['opt.empty_capture', yes(o.empty_capture)]];
  if (game === 'oware') return [['opt.grand_slam', 'gs.' + o.grand_slam]];
  const rows = [['opt.lap_capture', yes(o.lap_capture)], ['opt.rounds', o.rounds === 'match' ? 'rounds.match' : 'rounds.single']];
  if (o.rounds === 'match' && o.burn === 'match') rows.push(['opt.burn', 'burn.match']);
  return rows;
}

// The forms of the nouns that follow a count, per CLDR plural category, as each language's texts
// use them after a number (nominative or accusative). A number followed by one of these words must
// be followed by the form of its own category.
const NOUNS = {
  en: [{ one: ['seed'], other: ['seeds'] }, { one: ['house'], other: ['houses'] }, { one: ['pit'], other: ['pits'] },
    { one: ['spectator'], other: ['spectators'] }, { one: ['relay'], other: ['relays'] }, { one: ['move'], other: ['moves'] }],
  fr: [{ one: ['graine'], other: ['graines'] }, { one: ['maison'], other: ['maisons'] }, { one: ['trou'], other: ['trous'] },
    { one: ['spectateur'], other: ['spectateurs'] }, { one: ['relais'], other: ['relais'] }, { one: ['coup'], other: ['coups'] }],
  pt: [{ one: ['semente'], other: ['sementes'] }, { one: ['casa'], other: ['casas'] }, { one: ['cavidade'], other: ['cavidades'] },
    { one: ['espectador'], other: ['espectadores'] }, { one: ['revezamento'], other: ['revezamentos'] }, { one: ['jogada'], other: ['jogadas'] }],
  ru: [{ one: ['семя'], few: ['семени'], many: ['семян'] }, { one: ['лунка', 'лунку'], few: ['лунки'], many: ['лунок'] },
    { one: ['ячейка'], few: ['ячейки'], many: ['ячеек'] }, { one: ['зритель'], few: ['зрителя'], many: ['зрителей'] },
    { one: ['эстафета'], few: ['эстафеты'], many: ['эстафет'] }, { one: ['ход'], few: ['хода'], many: ['ходов'] }],
  pl: [{ one: ['nasiono'], few: ['nasiona'], many: ['nasion'] }, { one: ['dom'], few: ['domy'], many: ['domów'] },
    { one: ['dołek'], few: ['dołki'], many: ['dołków'] }, { one: ['widz'], few: ['widzów'], many: ['widzów'] },
    { one: ['sztafeta'], few: ['sztafety'], many: ['sztafet'] }, { one: ['ruch'], few: ['ruchy'], many: ['ruchów'] }],
};

// The category of n in a language; Brazilian Portuguese says "0 sementes" (plural) for zero.
function category(code, n) {
  if (code === 'pt' && n === 0) return 'other';
  return new Intl.PluralRules(LOCALES[code]).select(n);
}

// Returns the count-noun pairs of text whose noun is in the wrong form.
function pluralErrors(code, text) {
  const bad = [];
  for (const [, num, word] of text.matchAll(/(\d+) (\p{L}+)/gu)) {
    const w = word.toLowerCase();
    for (const noun of NOUNS[code]) {
      const all = Object.values(noun).flat();
      if (!all.includes(w)) continue;
      const cat = category(code, Number(num));
      const want = noun[cat] || noun.other || noun.many;
      if (!want.includes(w)) bad.push(`"${num} ${word}" (${cat}: ${want.join('/')})`);
    }
  }
  return bad;
}

function checkText(failures, where, text) {
  if (/[{}#]/.test(text)) failures.push(`${where}: a placeholder is left: ${text}`);
}

test('every language has every key of English, and nothing else', () => {
  const en = Object.keys(LANGS.en).sort();
  for (const code of CODES) assert.deepEqual(Object.keys(LANGS[code]).sort(), en, code);
});

test('a key a language lacks is read in English, loaded for it when the page had only that language', async () => {
  // A fresh copy of i18n.js (its own LANGS), as in a browser whose page loaded French alone.
  const i18n = await import('../../web/i18n.js?fallback');
  await i18n.loadLang('fr');
  assert.equal(i18n.LANGS.en, undefined);
  const fr = i18n.LANGS.fr;
  const saved = fr['room.moves'];
  delete fr['room.moves'];
  try {
    const redrawn = new Promise((resolve) => i18n.onLang(resolve));
    assert.equal(i18n.tIn('fr', 'room.moves'), 'room.moves', 'the key until English is there');
    await redrawn;
    assert.equal(i18n.tIn('fr', 'room.moves'), 'Moves');
    assert.equal(i18n.tIn('fr', 'room.chat'), 'Discussion', 'the other keys stay French');
  } finally {
    fr['room.moves'] = saved;
  }
});

test('the rules of a room state its own board, options and figures, in every language', () => {
  const failures = [];
  let texts = 0;
  for (const code of CODES) {
    for (const room of rooms()) {
      const where = `${code} ${room.game} ${room.houses}x${room.seeds} ${JSON.stringify(room.options)}`;
      const r = roomRules(room, code);
      // The rules its options select, in the rule book's order.
      const ids = r.items.map((x) => x.id);
      const want = expectedIds(room);
      if (JSON.stringify(ids) !== JSON.stringify(want)) failures.push(`${where}: rules ${ids.join(',')}, expected ${want.join(',')}`);
      // Every figure stated is the room's, and every figure the rule needs is stated.
      for (const { id, text } of [{ id: 'board', text: r.board }, ...r.items]) {
        texts++;
        checkText(failures, `${where} ${id}`, text);
        const got = numbersIn(text), exp = new Set(expectedNumbers(id, room));
        if (!sameSet(got, exp)) failures.push(`${where} ${id}: states ${[...got].join(',') || 'no number'}, expected ${[...exp].join(',') || 'none'}: ${text}`);
        for (const e of pluralErrors(code, text)) failures.push(`${where} ${id}: plural ${e}: ${text}`);
      }
      // Its options, each named with its value; no other game's options.
      const rows = r.options.map((o) => [o.name, o.value]);
      const wantRows = expectedOptionRows(room).map(([k, v]) => [LANGS[code][k], LANGS[code][v]]);
      if (JSON.stringify(rows) !== JSON.stringify(wantRows)) failures.push(`${where}: options ${JSON.stringify(rows)}, expected ${JSON.stringify(wantRows)}`);
    }
  }
  assert.ok(texts > 1500, `only ${texts} texts checked`);
  assert.deepEqual(failures.slice(0, 15), [], `${failures.length} failures:\n${failures.slice(0, 15).join('\n')}`);
});

test('the Congkak match rules say burning is decided every round, and a house burnt before is played again', () => {
  // The rule book (Congkak 7): refilled from the store side, n seeds a house, burnt for that round.
  const text = roomRules({ game: 'congkak', houses: 7, seeds: 7, options: { rounds: 'match' } }, 'en').items.map((x) => x.text).join(' ');
  assert.match(text, /burnt for that round/);
  assert.match(text, /afresh every round/);
  assert.doesNotMatch(text, /rest of the match/);
  assert.match(text, /7 seeds a house/);
  assert.match(text, /next to their store/);
  assert.match(text, /after round 9/);
  assert.match(text, /cannot fill a single house/);
  assert.match(text, /loser of a round moves first/);
  // A game stored under the old rule says so.
  const old = roomRules({ game: 'congkak', houses: 7, seeds: 7, options: { rounds: 'match', burn: 'match' } }, 'en').items.map((x) => x.text).join(' ');
  assert.match(old, /rest of the match/);
});

test('How to play describes each game on its default board and every option', () => {
  const defaults = { kalah: [6, 4], oware: [6, 4], congkak: [7, 7] };
  const failures = [];
  for (const code of CODES) {
    for (const [game, [m, n]] of Object.entries(defaults)) {
      const help = optionHelp(game, m, n, code);
      const names = help.map((o) => o.name);
      const want = [...(game === 'kalah' ? [LANGS[code]['opt.empty_capture']]
        : game === 'oware' ? ['no_capture', 'forbidden', 'capture'].map((x) => LANGS[code]['opt.grand_slam'] + ': ' + LANGS[code]['gs.' + x])
          : [LANGS[code]['opt.lap_capture'], LANGS[code]['opt.match']]), LANGS[code]['opt.pie']];
      if (JSON.stringify(names) !== JSON.stringify(want)) failures.push(`${code} ${game}: options ${names.join(' | ')}`);
      const described = help.flatMap((o) => o.items.map((x) => x.id));
      const needed = [...(game === 'kalah' ? ['kalah.capture_empty']
        : game === 'oware' ? ['oware.grand_slam.no_capture', 'oware.grand_slam.forbidden', 'oware.grand_slam.capture']
          : ['congkak.capture_lap', 'congkak.round_end', 'congkak.match.refill', 'congkak.match.burn', 'congkak.match.first', 'congkak.match.end']), 'pie'];
      if (JSON.stringify(described) !== JSON.stringify(needed)) failures.push(`${code} ${game}: describes ${described.join(',')}`);
      for (const o of help) {
        for (const { id, text } of o.items) {
          checkText(failures, `${code} ${game} ${id}`, text);
          const got = numbersIn(text), exp = new Set(expectedNumbers(id, { houses: m, seeds: n }));
          if (!sameSet(got, exp)) failures.push(`${code} ${game} ${id}: states ${[...got].join(',')}, expected ${[...exp].join(',')}`);
        }
      }
    }
  }
  assert.deepEqual(failures, []);
});

test('every count shown or read aloud takes its plural form', () => {
  const keys = ['room.spectators', 'room.store_count', 'board.house_label', 'board.store_you', 'board.store_of', 'anim.relay', 'anim.capture',
    'moves.relays', 'moves.captured', 'moves.missing'];
  const counts = [...Array(31).keys(), 91, 101, 102, 105, 111, 112, 121, 122, 125, 212, 216];
  const failures = [];
  let pairs = 0;
  for (const code of CODES) {
    for (const key of keys) {
      for (const n of counts) {
        const text = tIn(code, key, { n, house: 3, who: 'X', name: 'X' });
        checkText(failures, `${code} ${key} ${n}`, text);
        if (!new RegExp(`(^|\\D)${n}(\\D|$)`).test(text)) failures.push(`${code} ${key}: ${n} is not shown: ${text}`);
        const found = [...text.matchAll(/(\d+) (\p{L}+)/gu)].filter(([, , w]) => NOUNS[code].some((x) => Object.values(x).flat().includes(w.toLowerCase())));
        pairs += found.length;
        if (found.length !== 1) failures.push(`${code} ${key} ${n}: no counted noun in "${text}"`);
        for (const e of pluralErrors(code, text)) failures.push(`${code} ${key}: ${e}`);
      }
    }
  }
  assert.ok(pairs > 1000);
  assert.deepEqual(failures.slice(0, 15), [], `${failures.length} failures:\n${failures.slice(0, 15).join('\n')}`);
});

test('the words of the original app', () => {
  // Its store listings (shared/seeds/): French maisons and magasin, Brazilian casas, armazém and
  // sentido anti-horário, Russian хранилище and Чонгкак, Polish domy, sklep and nasiona.
  const all = (code) => Object.values(LANGS[code]).map((v) => (typeof v === 'string' ? v : Object.values(v).join(' '))).join('\n');
  const want = { fr: ['maisons', 'magasin'], pt: ['casas', 'armazém', 'sentido anti-horário'], ru: ['хранилище', 'Чонгкак'], pl: ['domy', 'sklep', 'nasiona'] };
  const gone = { fr: [/grenier/i, /\bcases?\b/i], pt: [/ponteiros/, /\becrã\b/, /\bronda\b/i], ru: [/амбар/i, /Конгкак/], pl: [/magazyn/i, /ziar/i] };
  for (const [code, words] of Object.entries(want)) for (const w of words) assert.ok(all(code).includes(w), `${code}: ${w}`);
  // The old words are gone.
  for (const [code, res] of Object.entries(gone)) {
    for (const re of res) {
      const hits = Object.entries(LANGS[code]).filter(([, v]) => re.test(typeof v === 'string' ? v : JSON.stringify(v)));
      assert.deepEqual(hits.map(([k]) => k), [], `${code}: ${re}`);
    }
  }
  // A house is a house everywhere: what the board reads aloud, the move list, the create form.
  const house = { en: /house/i, fr: /maison/i, pt: /casa/i, ru: /лун/i, pl: /\bdom/i };
  for (const [code, re] of Object.entries(house)) {
    for (const key of ['board.house_label', 'room.house_n', 'create.houses', 'how.your_houses']) assert.match(LANGS[code][key], re, `${code} ${key}`);
  }
  assert.equal(tIn('ru', 'game.congkak'), 'Чонгкак');
});
