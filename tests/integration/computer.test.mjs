// Games against the computer through the protocol: whole games at every level for each game, the
// computer's seat as the state shows it, its answers to a draw offer and a rematch, a resignation
// while it thinks, the cap on games and the shares of a person and an address, the option that
// turns it off, and a restart in the middle of a game (the computer moves again in the resumed
// game).
//
// The person plays a legal house drawn from a fixed sequence (not always the first, so that
// games differ); every state's ply goes up by one, each move by the seat the state said was to
// move, and the game ends with a result whose score adds up to every seed of the board.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Client, sleep, startServer } from './harness.mjs';

// Short thinking: the searches are tested in the engine; here the seat and its moves are.
const FAST = ['--computer-ms', '60', '--computer-threads', '2'];
const WAIT = 120000; // A reply of the computer on a loaded machine under the sanitizers.

const total = (st) => st.houses * st.seeds * 2;

// Plays a whole game as `me` in room from state st; returns the final state, the plies the
// person played and the game's moves (from a resync at the end). The client reads promptly, so it
// gets a state for every ply: its own move's, then each of the computer's (two in a row after an
// extra turn), never one two plies further.
async function playAgainst(c, room, st, me, pick) {
  let mine = 0;
  while (st.status === 'playing') {
    if (st.turn === me) {
      const house = st.legal[pick() % st.legal.length];
      const reply = await c.request({ type: 'move', room, house, ply: st.ply }, WAIT);
      assert.equal(reply.type, 'state', JSON.stringify(reply));
      assert.equal(reply.ply, st.ply + 1);
      assert.deepEqual({ seat: reply.last.seat, house: reply.last.house }, { seat: me, house });
      mine++;
      st = reply;
    } else {
      const next = await c.state(room, () => true, WAIT);
      assert.ok(next.ply === st.ply || next.ply === st.ply + 1, `a state for every ply: ${st.ply}, then ${next.ply}`);
      if (next.ply > st.ply) {
        assert.equal(next.last.seat, st.turn, 'the computer moved for its own seat');
        assert.ok(st.legal.includes(next.last.house), `the computer's house ${next.last.house} is legal`);
      }
      st = next;
    }
  }
  const full = await c.request({ type: 'resync', room }, WAIT);
  assert.equal(full.moves.length, st.ply);
  assert.equal(full.moves.filter((m) => m.seat === me).length, mine);
  return { st, mine, moves: full.moves };
}

function lcg(seed) {
  let x = seed >>> 0;
  return () => { x = (Math.imul(x, 1664525) + 1013904223) >>> 0; return x >>> 8; };
}

async function newGame(c, fields) {
  const joined = await c.request({ type: 'create', opponent: 'computer', ...fields }, WAIT);
  assert.equal(joined.type, 'joined', JSON.stringify(joined));
  const st = await c.state(joined.room, () => true, WAIT);
  return { room: joined.room, st, me: joined.seat };
}

test('welcome says the computer is there; its seat shows as the computer at its level', async () => {
  const server = await startServer(FAST);
  try {
    const c = await Client.connect(server, { name: 'Ana' });
    assert.equal(c.me.features.computer, true);
    const { st, me } = await newGame(c, { game: 'kalah', seat: 'north', level: 4 });
    assert.equal(me, 'north');
    assert.equal(st.status, 'playing');
    assert.equal(st.players.south.name, 'Computer (level 4)');
    assert.equal(st.players.south.connected, true);
    assert.equal(st.players.south.computer, true);
    assert.equal(st.players.north.computer, false);
    assert.equal(st.players.north.name, 'Ana');
    // South moves first: the computer does, without being asked. Its move may already be in the
    // first state (a full state shows every ply up to when it is made: with a store whose commit
    // completes later, PostgreSQL, the computer's answer can come before that).
    const after = st.ply >= 1 ? st : await c.state(st.room, (s) => s.ply >= 1, WAIT);
    assert.equal(after.last.seat, 'south');
    // Not in the lobby: nobody can join a game against the computer.
    const lobby = await c.request({ type: 'lobby' });
    assert.ok(!lobby.rooms.some((r) => r.code === st.room));
    const d = await Client.connect(server, { name: 'Bo' });
    const j = await d.request({ type: 'join', room: st.room, role: 'player' });
    assert.equal(j.type, 'error');
    assert.equal(j.code, 'room_full');
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

for (const game of [
  { game: 'kalah' },
  { game: 'oware' },
  { game: 'congkak', houses: 5, seeds: 5 },
  { game: 'congkak', houses: 4, seeds: 4, options: { rounds: 'match' } },
]) {
  const name = game.game + (game.options ? ' match' : '');
  test(`${name}: whole games against every level`, async () => {
    const server = await startServer(FAST);
    try {
      const c = await Client.connect(server, { name: 'Ana' });
      for (let level = 1; level <= 6; level++) {
        const seat = level % 2 ? 'south' : 'north';
        const { room, st, me } = await newGame(c, { ...game, level, seat });
        assert.equal(me, seat);
        const other = seat === 'south' ? 'north' : 'south';
        assert.equal(st.players[other].name, `Computer (level ${level})`);
        const { st: end, mine, moves } = await playAgainst(c, room, st, me, lcg(level * 7919 + name.length));
        assert.equal(end.status, 'finished');
        assert.ok(moves.length > mine, 'the computer moved');
        assert.ok(['south', 'north', 'draw'].includes(end.result.winner));
        // Kalah sweeps every seed into the stores at the end; Oware may end with seeds on the
        // board (a majority), Congkak with a match's burnt houses.
        if (game.game === 'kalah') assert.equal(end.result.score[0] + end.result.score[1], total(end));
        else assert.ok(end.result.score[0] + end.result.score[1] <= total(end));
        await c.request({ type: 'leave', room });
      }
    } finally {
      assert.deepEqual(await server.stop(), { code: 0, signal: null });
    }
  });
}

test('the computer takes a rematch at once and plays the other side; resigning while it thinks ends the game', async () => {
  // A long think (level 6, 5 s) that the resignation must cut short.
  const server = await startServer(['--computer-ms', '5000']);
  try {
    const c = await Client.connect(server, { name: 'Ana' });
    const { room, st } = await newGame(c, { game: 'kalah', level: 6, seat: 'south' });
    // South house 1 holds 4 seeds: they end in North's first house, no extra turn; the computer
    // is to move and thinks for 5 s.
    const cur = await c.request({ type: 'move', room, house: 1, ply: 0 }, WAIT);
    assert.equal(cur.type, 'state');
    assert.equal(cur.turn, 'north');
    const r = await c.request({ type: 'resign', room }, WAIT);
    assert.equal(r.type, 'state');
    assert.equal(r.status, 'finished');
    assert.equal(r.result.reason, 'resignation');
    assert.equal(r.result.winner, 'north');
    await sleep(300);
    // Its search was cancelled: no move arrives after the end.
    const again = await c.request({ type: 'resync', room }, WAIT);
    assert.equal(again.ply, 1);
    assert.equal(again.status, 'finished');
    // Rematch: one request is enough, the seats swap, the computer (South now) opens.
    const r2 = await c.request({ type: 'rematch', room }, WAIT);
    assert.equal(r2.type, 'state');
    assert.equal(r2.status, 'playing');
    assert.equal(r2.ply, 0);
    assert.equal(r2.players.south.computer, true);
    assert.equal(r2.you, 'north');
    const first = await c.state(room, (s) => s.ply >= 1, WAIT);
    assert.equal(first.last.seat, 'south');
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test('a draw offer: declined when the computer is ahead, accepted when it is not', async () => {
  const server = await startServer(FAST);
  try {
    const c = await Client.connect(server, { name: 'Ana' });
    // Play Kalah as South, always the first legal house, until the evaluation (the store
    // difference dominates it) clearly favours one side; offer a draw at that point.
    let accepted = 0, declined = 0;
    for (let g = 0; g < 6 && (accepted === 0 || declined === 0); g++) {
      const { room, st } = await newGame(c, { game: 'kalah', level: g % 2 ? 1 : 5, seat: 'south' });
      let cur = st;
      while (cur.status === 'playing') {
        if (cur.turn !== 'south') {
          cur = await c.state(room, (s) => s.ply > cur.ply || s.status !== 'playing', WAIT);
          continue;
        }
        const [south, north] = [cur.pits[cur.houses], cur.pits[2 * cur.houses + 1]];
        const lead = south - north; // The person's lead in the stores.
        if (Math.abs(lead) >= 6) {
          const r = await c.request({ type: 'draw', room, action: 'offer' }, WAIT);
          assert.equal(r.type, 'state');
          if (lead >= 6) {
            // The computer is behind by six seeds: it takes the draw.
            assert.equal(r.status, 'finished');
            assert.equal(r.result.reason, 'agreement');
            accepted++;
          } else {
            // The computer is ahead: it declines, and no offer stands; the offerer sees it declined.
            assert.equal(r.status, 'playing');
            assert.equal(r.draw_offer, null);
            assert.equal(r.draw_declined, 'south');
            const again = await c.request({ type: 'draw', room, action: 'accept' }, WAIT);
            assert.equal(again.type, 'error');
            assert.equal(again.code, 'no_draw_offer');
            declined++;
            await c.request({ type: 'resign', room }, WAIT);
          }
          break;
        }
        cur = await c.request({ type: 'move', room, house: cur.legal[cur.legal.length - 1], ply: cur.ply }, WAIT);
      }
      await c.request({ type: 'leave', room });
    }
    assert.ok(accepted + declined > 0, 'some game reached a lead of six seeds');
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test('a takeback against the computer is granted at once: the last move and the reply go', async () => {
  const server = await startServer(FAST);
  try {
    const c = await Client.connect(server, { name: 'Ana' });
    const { room, st } = await newGame(c, { game: 'kalah', level: 1, seat: 'south' });
    assert.equal(st.ply, 0);
    const start = st.pits;
    // Kalah 6x4, South's house 1: its 4 seeds go to houses 2-5, no extra turn; the computer moves.
    const mine = await c.request({ type: 'move', room, house: 1, ply: 0 }, WAIT);
    assert.equal(mine.ply, 1);
    assert.deepEqual(mine.pits.slice(0, 7), [0, 5, 5, 5, 5, 4, 0]);
    const back = await c.state(room, (s) => s.turn === 'south' && s.ply >= 2, WAIT);
    assert.equal(back.last.seat, 'north');
    const r = await c.request({ type: 'takeback', room, action: 'offer' }, WAIT);
    assert.equal(r.type, 'state', JSON.stringify(r));
    assert.equal(r.ply, 0);
    assert.equal(r.turn, 'south');
    assert.deepEqual(r.pits, start);
    // Nothing to answer: accept finds no request.
    const again = await c.request({ type: 'takeback', room, action: 'accept' }, WAIT);
    assert.equal(again.code, 'no_takeback_offer');
    // The game goes on from the start: another first move, and the computer answers it.
    const two = await c.request({ type: 'move', room, house: 2, ply: 0 }, WAIT);
    assert.equal(two.ply, 1);
    const reply = await c.state(room, (s) => s.ply >= 2, WAIT);
    assert.equal(reply.last.seat, 'north');
    const full = await c.request({ type: 'resync', room }, WAIT);
    assert.deepEqual(full.moves[0].house, 2);
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test('--computer-max-games caps the games; 0 turns the computer off', async () => {
  let server = await startServer([...FAST, '--computer-max-games', '1']);
  try {
    const c = await Client.connect(server, { name: 'Ana' });
    const { room } = await newGame(c, { game: 'kalah', level: 1 });
    const second = await c.request({ type: 'create', game: 'kalah', opponent: 'computer', level: 1 });
    assert.equal(second.type, 'error');
    assert.equal(second.code, 'server_full');
    // A finished game no longer counts.
    await c.request({ type: 'resign', room }, WAIT);
    const third = await c.request({ type: 'create', game: 'kalah', opponent: 'computer', level: 1 }, WAIT);
    assert.equal(third.type, 'joined');
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
  server = await startServer(['--computer-max-games', '0']);
  try {
    const c = await Client.connect(server, { name: 'Ana' });
    assert.equal(c.me.features.computer, false);
    const r = await c.request({ type: 'create', game: 'kalah', opponent: 'computer', level: 3 });
    assert.equal(r.type, 'error');
    assert.equal(r.code, 'unsupported');
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test('a person and an address each have a share of the computer: too_many_computer_games', async () => {
  const server = await startServer([...FAST, '--computer-games-per-player', '1', '--computer-games-per-ip', '2']);
  try {
    const a = await Client.connect(server, { name: 'Ana' });
    const { room } = await newGame(a, { game: 'kalah', level: 1 });
    const refused = await a.request({ type: 'quick', game: 'oware', opponent: 'computer', level: 1 });
    assert.equal(refused.type, 'error');
    assert.equal(refused.code, 'too_many_computer_games');
    assert.match(refused.message, /computer/);
    // Another person of the same address (every test client is 127.0.0.1): one more, then none.
    const b = await Client.connect(server, { name: 'Bo' });
    await newGame(b, { game: 'kalah', level: 2 });
    const c = await Client.connect(server, { name: 'Cy' });
    assert.equal((await c.request({ type: 'create', game: 'kalah', opponent: 'computer' })).code, 'too_many_computer_games');
    // A game between people is not concerned; a resigned game gives its place back.
    assert.equal((await c.request({ type: 'create', game: 'kalah' })).type, 'joined');
    await a.request({ type: 'resign', room }, WAIT);
    assert.equal((await a.request({ type: 'create', game: 'kalah', opponent: 'computer', level: 1 }, WAIT)).type, 'joined');
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test('a restart resumes a game against the computer, and the computer moves again', async () => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-computer-'));
  try {
    let server = await startServer(FAST, { data });
    let c = await Client.connect(server, { name: 'Ana' });
    const { room, st } = await newGame(c, { game: 'oware', level: 3, seat: 'south' });
    let cur = st;
    // Two moves of the person, each answered.
    for (let i = 0; i < 2; i++) {
      cur = await c.request({ type: 'move', room, house: cur.legal[0], ply: cur.ply }, WAIT);
      assert.equal(cur.type, 'state');
      if (cur.status !== 'playing') break;
      cur = await c.state(room, (s) => s.turn === 'south' || s.status !== 'playing', WAIT);
    }
    assert.equal(cur.status, 'playing');
    const token = c.me.token;
    assert.deepEqual(await server.stop(), { code: 0, signal: null });

    server = await startServer(FAST, { data });
    try {
      c = await Client.connect(server, { name: 'Ana', token });
      assert.equal(c.me.resumed, true);
      const back = await c.state(room, () => true, WAIT);
      assert.equal(back.ply, cur.ply);
      assert.equal(back.players.north.computer, true);
      assert.equal(back.players.north.name, 'Computer (level 3)');
      // The person moves; the restored computer answers.
      const mine = await c.request({ type: 'move', room, house: back.legal[0], ply: back.ply }, WAIT);
      assert.equal(mine.type, 'state');
      if (mine.status === 'playing' && mine.turn === 'north') {
        const answer = await c.state(room, (s) => s.ply > mine.ply, WAIT);
        assert.equal(answer.last.seat, 'north');
      }
    } finally {
      assert.deepEqual(await server.stop(), { code: 0, signal: null });
    }
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
});

test('a restart while the computer is to move: it moves once the server is back', async () => {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-computer-'));
  try {
    // A 20 s think: the server stops before the computer has moved.
    let server = await startServer(['--computer-ms', '20000'], { data });
    let c = await Client.connect(server, { name: 'Ana' });
    const { room, st } = await newGame(c, { game: 'kalah', level: 6, seat: 'north' });
    assert.equal(st.turn, 'south');
    assert.equal(st.ply, 0);
    const token = c.me.token;
    assert.deepEqual(await server.stop(), { code: 0, signal: null });

    server = await startServer(FAST, { data });
    try {
      c = await Client.connect(server, { name: 'Ana', token });
      const moved = await c.state(room, (s) => s.ply >= 1, WAIT);
      assert.equal(moved.last.seat, 'south');
    } finally {
      assert.deepEqual(await server.stop(), { code: 0, signal: null });
    }
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
});
