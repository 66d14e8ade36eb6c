// Random and mutated frames: the server answers each with an error or a reply, never crashes, and
// exits cleanly (under the sanitizers, any memory error fails the exit status).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, pair, startServer } from './harness.mjs';

// A small deterministic generator, so that a failure can be replayed.
let seed = Number(process.env.MANCALA_SEED || 12345);
const rnd = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
const pick = (a) => a[Math.floor(rnd() * a.length)];

const TYPES = ['hello', 'create', 'join', 'quick', 'leave', 'lobby', 'move', 'resign', 'draw', 'rematch', 'chat', 'nope', ''];
const KEYS = ['type', 'id', 'name', 'token', 'game', 'houses', 'seeds', 'options', 'visibility', 'seat', 'clock',
  'opponent', 'level', 'room', 'role', 'house', 'ply', 'action', 'text', 'watch', 'empty_capture', 'grand_slam',
  'lap_capture', 'rounds', 'initial_ms', 'increment_ms'];

function value(depth, room) {
  switch (Math.floor(rnd() * 12)) {
    case 0: return null;
    case 1: return rnd() < 0.5;
    case 2: return Math.floor(rnd() * 20) - 5;
    case 3: return rnd() * 1e12 - 5e11;
    case 4: return pick(['kalah', 'oware', 'congkak', 'south', 'north', 'random', 'both', 'local', 'human', 'computer',
      'public', 'private', 'offer', 'accept', 'decline', 'player', 'spectator', 'match', 'single', 'capture', 'forbidden']);
    case 5: return room;
    case 6: return 'x'.repeat(Math.floor(rnd() * 400));
    case 7: return '\u0000\u0007é🙂\n';
    case 8: return depth > 2 ? {} : object(depth + 1, room);
    case 9: return depth > 2 ? [] : [value(depth + 1, room), value(depth + 1, room)];
    case 10: return 2 ** 53 + Math.floor(rnd() * 10);
    default: return pick(TYPES);
  }
}

function object(depth, room) {
  const o = {};
  const n = Math.floor(rnd() * 6);
  for (let i = 0; i < n; i++) o[pick(KEYS)] = value(depth, room);
  return o;
}

test('a few thousand random frames change nothing they should not and crash nothing', async () => {
  const server = await startServer(['--max-per-ip', '1000']);
  try {
    const a = await Client.connect(server, { name: 'Ana' });
    const b = await Client.connect(server, { name: 'Bob' });
    const { room } = await pair(a, b);
    const clients = [a, b, await Client.connect(server, { hello: false })];
    let answers = 0;
    for (let i = 0; i < 3000; i++) {
      const c = pick(clients);
      let frame;
      const r = rnd();
      if (r < 0.6) frame = JSON.stringify({ type: pick(TYPES), ...object(0, room) });
      else if (r < 0.8) frame = JSON.stringify(value(0, room));
      else {
        // A valid-looking frame with a few bytes flipped or cut.
        const s = JSON.stringify({ type: pick(TYPES), room, house: 1 + Math.floor(rnd() * 9), ply: 0, id: i });
        const k = Math.floor(rnd() * s.length);
        frame = rnd() < 0.5 ? s.slice(0, k) : s.slice(0, k) + String.fromCharCode(Math.floor(rnd() * 128)) + s.slice(k + 1);
      }
      c.send(frame);
      if (i % 200 === 199) for (const x of clients) { await x.request({ type: "lobby", watch: false }); answers += x.inbox.length; x.drain(); }
    }
    assert.ok(answers > 2000, `${answers} answers`);
    // The server still serves a fresh client.
    const fresh = await Client.connect(server, { name: 'Fresh' });
    assert.equal((await fresh.request({ type: 'create', game: 'kalah' })).type, 'joined');
    for (const x of [...clients, fresh]) await x.close();
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});
