// Instructions per move (prints figures; not a test). Runs the server twice under
// valgrind --tool=callgrind with the same fixed load, G local games (one connection holds both
// seats) playing the first legal house one request at a time (a rematch when a game ends), K1 and
// then K2 moves each; the difference of the two instruction counts over the difference of the
// moves is the cost of one move, start-up and connections excluded. Storage on, --sync normal.
//
//   cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=Release -DMANCALA_TESTS=OFF && cmake --build build-rel
//   (cd tests && npm ci)    # the ws package
//   node bench/moves-callgrind.mjs build-rel/bin/mancala-server [game] [G] [K1] [K2]
//
// Defaults: kalah, 10 games, 5 and 205 moves. Keeps the callgrind files (OUT.K1, OUT.K2, OUT given
// by MANCALA_CALLGRIND_OUT, default /tmp/mancala-moves.cg) for callgrind_annotate.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from '../tests/node_modules/ws/wrapper.mjs';

const bin = path.resolve(process.argv[2] || 'build-rel/bin/mancala-server');
const game = process.argv[3] || 'kalah';
const G = Number(process.argv[4] || 10);
const K1 = Number(process.argv[5] || 5);
const K2 = Number(process.argv[6] || 205);
const out = process.env.MANCALA_CALLGRIND_OUT || path.join(os.tmpdir(), 'mancala-moves.cg');

async function run(K, file) {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-cg-'));
  const child = spawn('valgrind', ['--tool=callgrind', `--callgrind-out-file=${file}`, bin, '--port', '0',
    '--bind', '127.0.0.1', '--data', data, '--sync', 'normal', '--rate', '1000000', '--burst', '1000000',
    '--max-per-ip', '100000', '--rooms-per-player', '1000'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  const port = await new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      log += d;
      const m = log.match(/listening on http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (c) => reject(new Error(`server exited ${c}\n${log}`)));
  });
  let moves = 0, bytes = 0;
  const player = () => new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, 'mancala.v1');
    const pending = new Map();
    let id = 0;
    const request = (o) => new Promise((r) => { pending.set(++id, r); ws.send(JSON.stringify({ ...o, id })); });
    ws.on('message', (d) => {
      bytes += d.length;
      const m = JSON.parse(d);
      if (m.id !== undefined && pending.has(m.id)) { pending.get(m.id)(m); pending.delete(m.id); }
    });
    ws.once('error', reject);
    ws.once('open', async () => {
      await request({ type: 'hello', name: 'Bench' });
      const { room } = await request({ type: 'create', game, opponent: 'local' });
      let ply = 0, house = 1; // The first legal house of every start position is 1.
      for (let i = 0; i < K; i++) {
        const s = await request({ type: 'move', room, house, ply });
        if (s.type !== 'state') return reject(new Error(JSON.stringify(s)));
        moves++;
        const next = s.status === 'finished' ? await request({ type: 'rematch', room }) : s;
        ply = next.ply;
        house = next.legal[0];
      }
      ws.close();
      resolve();
    });
  });
  await Promise.all(Array.from({ length: G }, player));
  await new Promise((r) => setTimeout(r, 500));
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  fs.rmSync(data, { recursive: true, force: true });
  const text = fs.readFileSync(file, 'utf8');
  const ir = Number((text.match(/^summary: (\d+)/m) || text.match(/^totals: (\d+)/m))[1]);
  return { moves, bytes, ir };
}

const a = await run(K1, `${out}.${K1}`);
const b = await run(K2, `${out}.${K2}`);
console.log(`mancala-server: ${bin}`);
console.log(`${G} local ${game} games, ${K1} then ${K2} moves each, under callgrind:`);
console.log(`  ${a.ir} and ${b.ir} instructions; ${a.moves} and ${b.moves} moves`);
console.log(`  ${Math.round((b.ir - a.ir) / (b.moves - a.moves))} instructions per move; ` +
  `${Math.round(b.bytes / b.moves)} bytes received per move`);
console.log(`  profiles: ${out}.${K1}, ${out}.${K2} (callgrind_annotate)`);
