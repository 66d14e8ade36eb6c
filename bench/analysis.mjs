// What a game's analysis costs (docs/computer.md, "Analysis in the server"): for each seed, a Kalah
// 6x4 game played through the server by the engine at level 4 on both sides (`mancala hint`, with
// a random legal move now and then, as people play), then GET /api/games/ID/analysis polled from
// the first request (202) to the stored answer (200). Prints each game's plies, the time, the marks
// and the accuracies, and the load average. A program that prints figures, not a test.
//
//   node bench/analysis.mjs [--server BIN] [--cli MANCALA] [--seeds 1,2,3,4] [--ms 150]
//                           [--search-queue redis://HOST:PORT]
//
// --search-queue: the server sends its analyses to the mancala-worker processes of that Redis
// (started apart; the server waits until it sees one serving the analysis stream).
// BIN and MANCALA default to build-release/bin/ (cmake -B build-release -DCMAKE_BUILD_TYPE=Release).
// Uses the test harness of tests/integration (npm ci in tests/).
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The servers a benchmark starts build no endgame tables (issue 24: a fresh install builds them
// in the background, minutes of one core and ~80 MB): figures are of the server's steady state.
process.env.MANCALA_EGTB_BUILD ??= 'off';

const here = path.dirname(fileURLToPath(import.meta.url));
const arg = (name, def) => {
  const i = process.argv.indexOf('--' + name);
  return i > 0 ? process.argv[i + 1] : def;
};
process.env.MANCALA_SERVER = path.resolve(arg('server', path.join(here, '../build-release/bin/mancala-server')));
const CLI = path.resolve(arg('cli', path.join(here, '../build-release/bin/mancala')));
const seeds = arg('seeds', '1,2,3,4').split(',').map(Number);
const ms = arg('ms', '150');
const { Client, pair, sleep, startServer } = await import('../tests/integration/harness.mjs');

console.log(`load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}, ${os.cpus().length} CPUs, ${ms} ms a ply`);
const queue = arg('search-queue', null);
const server = await startServer(['--analysis-ms', ms, '--analyses-per-hour', '1000',
  ...(queue ? ['--search-queue', queue] : [])]);
while (queue && !/search workers: \d+ fast, \d+ deep, [1-9]\d* analysis alive/.test(server.log)) await sleep(100);
for (const seed of seeds) {
  const a = await Client.connect(server, { name: 'Ana' });
  const b = await Client.connect(server, { name: 'Bo' });
  const { room, state } = await pair(a, b);
  let st = state;
  const moves = [];
  while (st.status === 'playing') {
    const out = execFileSync(CLI, ['hint', 'kalah', '--level', '4', '--ms', '50', moves.join(' ')],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    let house = Number(out.match(/^move (\d+)/m)[1]);
    if ((moves.length * 7 + seed) % 5 === 0) house = st.legal[(seed + moves.length) % st.legal.length];
    const reply = await (st.turn === 'south' ? a : b).request({ type: 'move', room, house, ply: st.ply });
    if (reply.type !== 'state') throw new Error(JSON.stringify(reply));
    st = reply;
    moves.push(house);
  }
  const t0 = Date.now();
  let res;
  for (;;) {
    res = await fetch(`${server.http}/api/games/${st.game_id}/analysis`);
    if (res.status !== 202) break;
    await sleep(100);
  }
  const body = await res.json();
  const marks = {};
  for (const p of body.plies) marks[p.mark] = (marks[p.mark] || 0) + 1;
  console.log(`seed ${seed}: ${moves.length} plies, score ${st.result.score.join('-')}: ${res.status} after ` +
    `${Date.now() - t0} ms; proven ${body.plies.filter((p) => p.exact).length}; marks ${JSON.stringify(marks)}; ` +
    `accuracy ${JSON.stringify(body.accuracy)}`);
  await a.close();
  await b.close();
}
await server.stop();
console.log(`load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
