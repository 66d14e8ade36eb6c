// Pieces several views share: error texts, game names, option summaries, recent games, navigation,
// the names of a game at one screen and the lines of a move list.
import { t, has } from './i18n.js';
import { h, storage, store } from './ui.js';
import { moveEvents } from './moves.js';

let router = null;
export function setRouter(f) { router = f; }
export function navigate(path) { if (router) router(path, true); else location.assign(path); }

// A server error shown by its code in the user's language.
export function errorText(e) {
  const code = e && (e.code || e.error);
  if (code && has('err.' + code)) return t('err.' + code);
  return t('err.unknown', { code: code || '?' });
}

// A player's name as shown: the names the server makes ("Computer (level 2)", "Guest 1930") are
// worded in the reader's language, from the seat's `level` (docs/protocol.md) or from the name's
// own form (the names in lists and the archive); nobody else can take such a name (names.c).
// p: a player object ({name, computer, level}) or a name.
export function playerName(p) {
  if (!p) return '';
  const name = typeof p === 'string' ? p : String(p.name || '');
  const level = typeof p === 'object' && p.computer ? (Number(p.level) || Number(/^Computer \(level ([1-6])\)$/.exec(name)?.[1]) || 0) : 0;
  if (level) return t('name.computer', { n: level });
  let m = /^Computer \(level ([1-6])\)$/.exec(name);
  if (m) return t('name.computer', { n: Number(m[1]) });
  m = /^Guest (\d{1,4})$/.exec(name);
  if (m && !(typeof p === 'object' && typeof p.rating === 'number')) return t('name.guest', { n: m[1] });
  return name;
}

// A finished game's score in a list of one player's games: that player's own first ("12 : 36" is
// 12 for them), as the result beside it (Won, Lost) is theirs.
export function scoreText(g) {
  if (!Array.isArray(g.score)) return null;
  return (g.seat === 'north' ? [g.score[1], g.score[0]] : g.score).join(' : ');
}

export function gameTitle(game) { return has('game.' + game) ? t('game.' + game) : String(game); }

export function optionsText(game, o) {
  o = o || {};
  const out = [];
  if (o.empty_capture) out.push(t('opt.empty_capture'));
  if (o.grand_slam && o.grand_slam !== 'no_capture') out.push(t('opt.grand_slam') + ': ' + t('gs.' + o.grand_slam));
  if (o.lap_capture) out.push(t('opt.lap_capture'));
  if (o.rounds === 'match') out.push(t('opt.match'));
  if (o.rounds === 'match' && o.burn === 'match') out.push(t('opt.burn_kept'));
  if (o.pie) out.push(t('opt.pie'));
  return out.join(' · ');
}

// My recent games, kept in this browser.
export function recentGames() { return storage('mc.recent', []); }

export function rememberGame(s) {
  const list = recentGames().filter((g) => g.room !== s.room);
  const seat = s.you === 'both' ? 'south' : s.you;
  const other = s.you === 'both' ? null : (seat === 'south' ? 'north' : 'south');
  const opp = other && s.players && s.players[other];
  list.unshift({
    room: s.room, game: s.game, houses: s.houses, seeds: s.seeds, local: s.you === 'both',
    opponent: opp ? opp.name : null, computer: !!(opp && opp.computer), status: s.status,
    result: s.result ? (s.result.reason === 'aborted' ? 'aborted' : s.result.winner === 'draw' ? 'draw' : s.you === 'both' ? s.result.winner : s.result.winner === seat ? 'win' : 'loss') : null,
    score: s.result && s.result.score, id: s.game_id ?? null, at: Date.now(),
  });
  store('mc.recent', list.slice(0, 12));
}

// Names of the two players of a game at one screen, typed in the room and kept in this browser
// (mc.local); "Player 1" (South, who moves first) and "Player 2" until then.
const LOCAL = 'mc.local';
export function localName(seat) {
  const v = storage(LOCAL, {})[seat];
  return typeof v === 'string' && v.trim() ? v : t(seat === 'south' ? 'local.player1' : 'local.player2');
}
export function setLocalName(seat, name) {
  const all = storage(LOCAL, {});
  const v = String(name || '').replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim().replace(/\s+/g, ' ');
  all[seat] = Array.from(v).slice(0, 24).join('');
  store(LOCAL, all);
}

// What a move did, in words: "2 relays, captured 5 seeds, extra turn" ('' when nothing special).
export function movesEventsText(ev) {
  const out = [];
  if (ev.relays) out.push(t('moves.relays', { n: ev.relays }));
  if (ev.captures) out.push(t('moves.captured', { n: ev.captured }));
  if (ev.extra) out.push(t('moves.extra'));
  if (ev.roundEnd) out.push(t('moves.round_end', { n: ev.roundEnd }));
  return out.join(', ');
}

// One line of a move list (the room's and the replay's): ply, who, house, and what the move did
// when its trace is known (relays, captures, extra turn, end of a round), as tags.
// The seat whose player (as seated now) played move i of list: after the pie rule's swap the
// players hold the other sides, so the swap and the moves before it were played from the other
// seat than the one their players hold now.
export function playerSeat(list, i) {
  const mv = list[i];
  const swap = list.findIndex((m) => m && m.swap);
  if (!mv || !mv.seat || swap < 0 || i > swap) return mv && mv.seat;
  return mv.seat === 'south' ? 'north' : 'south';
}

export function moveItem(mv, ply, name, attrs = {}) {
  const ev = moveEvents(mv.trace);
  const tags = [];
  if (ev.relays) tags.push(h('span', { class: 'mtag relay' }, t('moves.relays', { n: ev.relays })));
  if (ev.captures) tags.push(h('span', { class: 'mtag capture' }, t('moves.captured', { n: ev.captured })));
  if (ev.extra) tags.push(h('span', { class: 'mtag extra' }, t('moves.extra')));
  if (ev.roundEnd) tags.push(h('span', { class: 'mtag round' }, t('moves.round_end', { n: ev.roundEnd })));
  const data = { ply: String(ply) };
  if (Array.isArray(mv.trace)) Object.assign(data, { relays: String(ev.relays), captured: String(ev.captured), extra: ev.extra ? '1' : '0' });
  if (mv.swap) data.swap = '1';
  return h('li', { class: 'mv ' + (mv.seat || '') + (mv.swap ? ' swap' : ''), dataset: data, ...attrs },
    h('span', { class: 'ply' }, String(ply)),
    h('span', { class: 'mdot ' + (mv.seat || ''), 'aria-hidden': 'true' }),
    h('span', { class: 'who' }, name),
    h('b', {}, mv.swap ? t('moves.swap') : t('room.house_n', { n: mv.house ?? mv })),
    tags.length ? h('span', { class: 'mtags' }, tags) : null);
}

// Quick play's seeks of this tab: the room a pool put the player in, while nobody has joined,
// shows a seek card (the pool, how many wait in it, Cancel) rather than an invite.
export function rememberSeek(code, msg) {
  try { sessionStorage.setItem('mc.seek.' + code, JSON.stringify({ game: msg.game, clock: msg.clock || null, rated: !!msg.rated })); } catch { /* private mode */ }
}
export function seekOf(code) {
  try { return JSON.parse(sessionStorage.getItem('mc.seek.' + code) || 'null'); } catch { return null; }
}
export function forgetSeek(code) {
  try { sessionStorage.removeItem('mc.seek.' + code); } catch { /* private mode */ }
}
