// Pieces several views share: error texts, game names, option summaries, recent games, navigation.
import { t, has } from './i18n.js';
import { storage, store } from './ui.js';

let router = null;
export function setRouter(f) { router = f; }
export function navigate(path) { if (router) router(path, true); else location.assign(path); }

// A server error shown by its code in the user's language.
export function errorText(e) {
  const code = e && (e.code || e.error);
  if (code && has('err.' + code)) return t('err.' + code);
  return t('err.unknown', { code: code || '?' });
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
    result: s.result ? (s.result.winner === 'draw' ? 'draw' : s.you === 'both' ? s.result.winner : s.result.winner === seat ? 'win' : 'loss') : null,
    score: s.result && s.result.score, id: s.game_id ?? null, at: Date.now(),
  });
  store('mc.recent', list.slice(0, 12));
}
