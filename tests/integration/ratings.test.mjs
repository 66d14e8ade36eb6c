// Ratings through the protocol: a rated game changes both players' Glicko-2 ratings however it
// ends (on the board, by resignation, on time, by abandonment, by agreement) once both sides have
// moved, in the batch of its result; the state shows the change, the profile and the leaderboard
// show the ratings, and a restart keeps them. Quick play in a rated pool needs accounts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Client, playOut, sleep, startServer } from './harness.mjs';

const PW = 'correct horse battery';
const CLOCK = { initial_ms: 600000, increment_ms: 0 };

async function signUp(server, name) {
  const c = await Client.connect(server, {});
  const r = await c.request({ type: 'register', name, password: PW });
  assert.equal(r.type, 'account', JSON.stringify(r));
  return c;
}

async function profile(server, name) {
  const res = await fetch(server.http + '/api/players/' + encodeURIComponent(name));
  assert.equal(res.status, 200);
  return res.json();
}

// A rated game of game between south and north (clients), started; resolves with the room and
// the first playing state.
async function ratedPair(south, north, game = 'kalah', clock = CLOCK) {
  const j = await south.request({ type: 'create', game, seat: 'south', rated: true, clock });
  assert.equal(j.type, 'joined', JSON.stringify(j));
  const jn = await north.request({ type: 'join', room: j.room });
  assert.equal(jn.type, 'joined', JSON.stringify(jn));
  const st = await north.state(j.room, (s) => s.status === 'playing');
  assert.equal(st.rated, true);
  return { room: j.room, state: st };
}

// Plays the first legal house for whoever is to move until both sides have moved and, when until
// (a seat) is given, until it is that seat's move; resolves with the last state (still playing).
async function bothMove(room, seats, first, until = null) {
  let st = first;
  const moved = { south: false, north: false };
  while (st.status === 'playing' && (!moved.south || !moved.north || (until && st.turn !== until))) {
    const seat = st.turn;
    const r = await seats[seat].request({ type: 'move', room, house: st.legal[0], ply: st.ply });
    assert.equal(r.type, 'state', JSON.stringify(r));
    moved[seat] = true;
    st = r;
  }
  assert.equal(st.status, 'playing');
  return st;
}

// Checks a finished state's rating change against the rating arithmetic's direction: the winner
// goes up, the loser down, a draw between equals changes nothing; returns it.
function checkChange(st, winner) {
  const c = st.rating_change;
  assert.ok(c, 'a rated end has a rating change');
  if (winner === 'draw') {
    assert.equal(c.south.after - c.south.before, -(c.north.after - c.north.before));
  } else {
    const loser = winner === 'south' ? 'north' : 'south';
    assert.ok(c[winner].after > c[winner].before, JSON.stringify(c));
    assert.ok(c[loser].after < c[loser].before, JSON.stringify(c));
  }
  assert.equal(st.players.south.rating, c.south.after);
  assert.equal(st.players.north.rating, c.north.after);
  return c;
}

test('every kind of ending changes the ratings; profile, leaderboard and a restart agree', async () => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-rat-'));
  try {
    let server = await startServer(['--abandon-ms', '400'], { data });
    const ana = await signUp(server, 'Ana');
    const bob = await signUp(server, 'Bob');
    const seen = { Ana: 0, Bob: 0 };

    // 1. On the board: Kalah played out. Two new players: the winner goes to 1662, the loser to
    // 1338 (test_rating.c works the numbers out).
    let { room, state } = await ratedPair(ana, bob);
    const out = await playOut(room, { south: ana, north: bob }, state);
    assert.equal(out.state.status, 'finished');
    const w1 = out.state.result.winner;
    const c1 = checkChange(out.state, w1);
    if (w1 !== 'draw') {
      assert.equal(c1[w1].after, 1662);
      assert.equal(c1[w1 === 'south' ? 'north' : 'south'].after, 1338);
    }
    seen.Ana++; seen.Bob++;

    // 2. Resignation (Bob, North, resigns: Ana wins), once both sides have moved.
    ({ room, state } = await ratedPair(ana, bob, 'oware'));
    await bothMove(room, { south: ana, north: bob }, state);
    let st = await bob.request({ type: 'resign', room });
    assert.equal(st.result.reason, 'resignation');
    const c2 = checkChange(st, 'south');
    assert.equal(c2.south.before, 1500); // Oware has its own rating.
    seen.Ana++; seen.Bob++;

    // 3. On time: the shortest rated clock (15 s + 1 s), both sides move, then South (Ana) never
    // moves again. From the pair's third game on, a game counts half: the directions stay.
    ({ room, state } = await ratedPair(ana, bob, 'congkak', { initial_ms: 15000, increment_ms: 1000 }));
    await bothMove(room, { south: ana, north: bob }, state, 'south');
    st = await bob.state(room, (s) => s.status === 'finished', 30000);
    assert.equal(st.result.reason, 'timeout');
    assert.equal(st.result.winner, 'north');
    checkChange(st, 'north');
    seen.Ana++; seen.Bob++;

    // 4. Abandonment: both move, then Ana (South, to move) leaves; after --abandon-ms Bob wins.
    ({ room, state } = await ratedPair(ana, bob, 'congkak'));
    await bothMove(room, { south: ana, north: bob }, state, 'south');
    await ana.request({ type: 'leave', room });
    st = await bob.state(room, (s) => s.status === 'finished', 10000);
    assert.equal(st.result.reason, 'abandoned');
    const c4 = checkChange(st, 'north');
    assert.ok(c4.north.before > 1500); // Bob had won the Congkak game on time.
    seen.Ana++; seen.Bob++;

    // 5. An agreed draw, once both moved.
    ({ room, state } = await ratedPair(bob, ana, 'oware'));
    await bothMove(room, { south: bob, north: ana }, state);
    await bob.request({ type: 'draw', room, action: 'offer' });
    st = await ana.request({ type: 'draw', room, action: 'accept' });
    assert.equal(st.result.reason, 'agreement');
    checkChange(st, 'draw');
    seen.Ana++; seen.Bob++;

    // An unrated game between the same accounts changes nothing.
    const casual = await ana.request({ type: 'create', game: 'kalah', seat: 'south' });
    await bob.request({ type: 'join', room: casual.room });
    st = await bob.request({ type: 'resign', room: casual.room });
    assert.equal(st.rated, false);
    assert.equal(st.rating_change, null);

    // The profile: ratings per game, a history point per rated game, the games with their change.
    const pa = await profile(server, 'ana');
    assert.equal(pa.ratings.kalah.games + pa.ratings.oware.games + pa.ratings.congkak.games, seen.Ana);
    assert.equal(pa.history.oware.length, 2);
    assert.equal(pa.history.congkak.length, 2);
    assert.equal(Math.round(pa.history.congkak[1].rating), Math.round(pa.ratings.congkak.rating));
    assert.equal(pa.games.length, 6);
    assert.equal(pa.games.filter((g) => g.rated).length, 5);
    for (const g of pa.games.filter((x) => x.rated)) assert.equal(typeof g.rating.diff, 'number');
    assert.equal(pa.games.find((g) => !g.rated).rating, undefined);
    // Every game id is the public one (16 hex digits), the same in the history and the games.
    const hex = /^[0-9a-f]{16}$/;
    const rated = pa.games.filter((g) => g.rated).map((g) => g.id).sort();
    const points = ['kalah', 'oware', 'congkak'].flatMap((k) => pa.history[k].map((pt) => pt.game));
    assert.ok(points.every((id) => hex.test(id)), JSON.stringify(points));
    assert.deepEqual(points.slice().sort(), rated);
    // Paging: next_before is a public id too, and the next page starts after it.
    const p1 = await (await fetch(server.http + '/api/players/ana?limit=2')).json();
    assert.match(p1.next_before, hex);
    const p2 = await (await fetch(server.http + '/api/players/ana?limit=2&before=' + p1.next_before)).json();
    assert.deepEqual(p2.games.map((g) => g.id), pa.games.slice(2, 4).map((g) => g.id));
    assert.equal((await fetch(server.http + '/api/players/ana?before=12')).status, 400);
    // The leaderboard of Congkak: Bob first (two wins), Ana second.
    const lb = await (await fetch(server.http + '/api/leaderboard/congkak')).json();
    assert.equal(lb.total, 2);
    assert.deepEqual(lb.players.map((p) => [p.rank, p.name]), [[1, 'Bob'], [2, 'Ana']]);
    assert.equal(lb.players[0].wins, 2);
    const page2 = await (await fetch(server.http + '/api/leaderboard/congkak?page=2&limit=1')).json();
    assert.deepEqual(page2.players.map((p) => [p.rank, p.name]), [[2, 'Ana']]);
    assert.equal(page2.pages, 2);
    assert.equal((await fetch(server.http + '/api/leaderboard/congkak?limit=1000')).status, 400);

    const before = await profile(server, 'Bob');
    for (const c of [ana, bob]) await c.close();
    assert.deepEqual(await server.stop(), { code: 0, signal: null });

    // A restart keeps every rating, history point and game.
    server = await startServer([], { data });
    const after = await profile(server, 'Bob');
    assert.deepEqual(after.ratings, before.ratings);
    assert.deepEqual(after.history, before.history);
    assert.deepEqual(after.games.map((g) => g.id), before.games.map((g) => g.id));
    const back = await Client.connect(server, { token: bob.me.token });
    assert.equal(back.me.account.ratings.congkak.rating, Math.round(before.ratings.congkak.rating));
    assert.equal(back.me.account.ratings.congkak.games, 2);
    await back.close();
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
});

test('rated quick play: accounts only, its own pool, paired by rating when there is a choice', async () => {
  const server = await startServer();
  const guest = await Client.connect(server, {});
  const quick = { type: 'quick', game: 'kalah', rated: true, clock: { initial_ms: 180000, increment_ms: 2000 } };
  assert.equal((await guest.request(quick)).code, 'account_required');
  const untimed = await guest.request({ type: 'quick', game: 'kalah', rated: true });
  assert.equal(untimed.code, 'bad_request');
  assert.equal(untimed.field, 'rated');
  const ana = await signUp(server, 'Ana');
  const bob = await signUp(server, 'Bob');
  const j = await ana.request(quick);
  assert.equal(j.type, 'joined');
  // A casual quick play of the same table waits apart from it.
  const c = await guest.request({ ...quick, rated: false });
  assert.notEqual(c.room, j.room);
  const k = await bob.request(quick);
  assert.equal(k.room, j.room);
  const st = await bob.state(j.room, (s) => s.status === 'playing');
  assert.equal(st.rated, true);
  assert.equal(st.players.south.rating, 1500);
  // The lobby shows it as rated.
  const lobby = await guest.request({ type: 'lobby' });
  const entry = lobby.rooms.find((r) => r.code === j.room);
  assert.equal(entry.rated, true);
  assert.deepEqual(entry.ratings, { south: 1500, north: 1500 });
  for (const x of [guest, ana, bob]) await x.close();
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
});
