// The rules of one game as it is played: the rule book (shared/rules.md) in the player's language,
// worded for the board and the options of a room (state: game, houses, seeds, options). The room's
// "rules of this game" panel and the "How to play" page both come from here, and a test
// (tests/web/rules.test.mjs) checks every number and option these texts state against the room
// they were made for. Text only: the server alone applies the rules. No DOM: it also runs in node.
import { tIn, lang } from './i18n.js';

// The options of each game, as the protocol names them (create and state `options`).
export const GAME_OPTIONS = {
  kalah: ['empty_capture'],
  oware: ['grand_slam'],
  congkak: ['lap_capture', 'rounds'],
};
export const GRAND_SLAM_MODES = ['no_capture', 'forbidden', 'capture'];

// The figures a rule states, from the board: m houses a side, n seeds a house.
function figures(game, m, n) {
  return {
    m, n,
    total: 2 * m * n, // every seed in play
    half: m * n, // each player's share in a draw
    more: m * n + 1, // the least that wins
    lap: game === 'oware' ? 2 * m : 2 * m + 1, // pits sown in a full lap (Oware skips the stores)
    fill: m * n, // seeds that fill every house of one side
  };
}

// The rule items of a game with these options, in the rule book's order: [id], each a key under
// rules. in the language files.
export function ruleIds(game, o = {}) {
  switch (game) {
    case 'kalah':
      return ['kalah.sow', 'kalah.lap', 'kalah.extra', o.empty_capture ? 'kalah.capture_empty' : 'kalah.capture',
        'kalah.end', 'kalah.win'];
    case 'oware':
      return ['oware.sow', 'oware.lap', 'oware.capture',
        'oware.grand_slam.' + (GRAND_SLAM_MODES.includes(o.grand_slam) ? o.grand_slam : 'no_capture'),
        'oware.feed', 'oware.win', 'oware.repetition'];
    case 'congkak': {
      const ids = ['congkak.sow', 'congkak.relay', 'congkak.extra', o.lap_capture ? 'congkak.capture_lap' : 'congkak.capture',
        'congkak.opponent'];
      if (o.rounds !== 'match') return [...ids, 'congkak.end', 'congkak.repetition'];
      return [...ids, 'congkak.round_end', 'congkak.match.refill',
        o.burn === 'match' ? 'congkak.match.burn_kept' : 'congkak.match.burn',
        'congkak.match.first', 'congkak.match.end', 'congkak.repetition'];
    }
    default:
      return [];
  }
}

// The options of a room as rows { id, name, value }: every option of its game, with its value.
// options.burn "match" (a game stored under the old burn rule, docs/protocol.md) adds a row.
export function optionRows(game, o = {}, code = lang()) {
  const T = (key) => tIn(code, key);
  const yes = (v) => T(v ? 'opt.yes' : 'opt.no');
  const rows = [];
  for (const id of GAME_OPTIONS[game] || []) {
    if (id === 'empty_capture') rows.push({ id, name: T('opt.empty_capture'), value: yes(o.empty_capture) });
    else if (id === 'grand_slam') rows.push({ id, name: T('opt.grand_slam'), value: T('gs.' + (GRAND_SLAM_MODES.includes(o.grand_slam) ? o.grand_slam : 'no_capture')) });
    else if (id === 'lap_capture') rows.push({ id, name: T('opt.lap_capture'), value: yes(o.lap_capture) });
    else if (id === 'rounds') rows.push({ id, name: T('opt.rounds'), value: T(o.rounds === 'match' ? 'rounds.match' : 'rounds.single') });
  }
  if (game === 'congkak' && o.rounds === 'match' && o.burn === 'match') rows.push({ id: 'burn', name: T('opt.burn'), value: T('burn.match') });
  // The pie rule belongs to every game; shown when a room has it (off is the default).
  if (o.pie) rows.push({ id: 'pie', name: T('opt.pie'), value: yes(true) });
  return rows;
}

// Everything a room's rules panel shows: { board, options, items: [{ id, text }] }.
export function roomRules(room, code = lang()) {
  const game = room.game, o = room.options || {};
  const v = figures(game, room.houses, room.seeds);
  return {
    board: tIn(code, 'rules.board', v),
    options: optionRows(game, o, code),
    items: [...ruleIds(game, o), ...(o.pie ? ['pie'] : [])].map((id) => ({ id, text: tIn(code, 'rules.' + id, v) })),
  };
}

// What each option changes, for the "How to play" page: [{ id, name, items: [{ id, text }] }] on a
// board of m x n. Oware's grand slam has one entry per mode; the match lists the rules it adds.
export function optionHelp(game, m, n, code = lang()) {
  const v = figures(game, m, n);
  const T = (key) => tIn(code, key);
  const items = (ids) => ids.map((id) => ({ id, text: tIn(code, 'rules.' + id, v) }));
  // The pie rule belongs to every game: last, after the game's own options.
  const pie = { id: 'pie', name: T('opt.pie'), items: items(['pie']) };
  switch (game) {
    case 'kalah':
      return [{ id: 'empty_capture', name: T('opt.empty_capture'), items: items(['kalah.capture_empty']) }, pie];
    case 'oware':
      return [...GRAND_SLAM_MODES.map((mode) => ({
        id: 'grand_slam.' + mode, name: T('opt.grand_slam') + ': ' + T('gs.' + mode), default: mode === 'no_capture',
        items: items(['oware.grand_slam.' + mode]),
      })), pie];
    case 'congkak':
      return [
        { id: 'lap_capture', name: T('opt.lap_capture'), items: items(['congkak.capture_lap']) },
        { id: 'rounds', name: T('opt.match'), items: items(ruleIds('congkak', { rounds: 'match' }).filter((id) => id.startsWith('congkak.match.') || id === 'congkak.round_end')) },
        pie,
      ];
    default:
      return [];
  }
}
