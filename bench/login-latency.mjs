// What password hashing costs the event loop: the round trip of a cheap request (lobby) from one
// connection, first with nothing else going on, then while W connections log in back to back
// (each login is one Argon2id check on libuv's thread pool, srv_account.h). Prints logins/s and
// the probe's p50, p99 and max in both phases. Password hashing alone: build/bin/pwhash-bench.
//
//   node bench/login-latency.mjs [--server BIN] [--workers W] [--seconds S] [--sync full|normal]
//
// BIN defaults to build-rel/bin/mancala-server (cmake -B build-rel -DCMAKE_BUILD_TYPE=Release).
// The server runs on a free port of 127.0.0.1 with its login limits raised.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The servers a benchmark starts build no endgame tables (issue 24: a fresh install builds them
// in the background, minutes of one core and ~80 MB): figures are of the server's steady state.
process.env.MANCALA_EGTB_BUILD ??= 'off';

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const opt = (name, def) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : def; };
process.env.MANCALA_SERVER = path.resolve(opt('--server', path.join(here, '../build-rel/bin/mancala-server')));
const WORKERS = Number(opt('--workers', '4'));
const SECONDS = Number(opt('--seconds', '5'));
const SYNC = opt('--sync', 'full'); // a login stores its session: one commit per loop turn
const { Client, startServer } = await import('../tests/integration/harness.mjs');

const PW = 'correct horse battery';
const server = await startServer(['--login-attempts', '1000000', '--login-attempts-ip', '1000000', '--login-window-s', '1', '--sync', SYNC]);

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

// Probes the loop for ms: lobby requests one after another, 5 ms apart. Returns the round trips.
async function probe(c, ms) {
  const rtts = [];
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const t = process.hrtime.bigint();
    const r = await c.request({ type: 'lobby' });
    if (r.type !== 'lobby') throw new Error('probe: ' + JSON.stringify(r));
    rtts.push(Number(process.hrtime.bigint() - t) / 1e6);
    await new Promise((res) => setTimeout(res, 5));
  }
  return rtts;
}

const line = (name, r) => `| ${name} | ${r.length} | ${pct(r, 50).toFixed(2)} | ${pct(r, 99).toFixed(2)} | ${Math.max(...r).toFixed(2)} |`;

try {
  const owner = await Client.connect(server, {});
  const reg = await owner.request({ type: 'register', name: 'Bench', password: PW });
  if (reg.type !== 'account') throw new Error('register: ' + JSON.stringify(reg));
  const p = await Client.connect(server, {});
  const idle = await probe(p, SECONDS * 1000);

  const workers = await Promise.all(Array.from({ length: WORKERS }, () => Client.connect(server, {})));
  let logins = 0, stop = false;
  const loops = workers.map(async (w) => {
    while (!stop) {
      const r = await w.request({ type: 'login', name: 'Bench', password: PW }, 60000);
      if (r.type !== 'welcome') throw new Error('login: ' + JSON.stringify(r));
      w.drain();
      logins++;
    }
  });
  await new Promise((res) => setTimeout(res, 500)); // the pool is busy
  const t0 = Date.now(), n0 = logins;
  const busy = await probe(p, SECONDS * 1000);
  const rate = ((logins - n0) * 1000) / (Date.now() - t0);
  stop = true;
  await Promise.all(loops);

  console.log(`Event loop round trip of a lobby request (ms), ${WORKERS} connections logging in back to back, --sync ${SYNC}: ${rate.toFixed(1)} logins/s\n`);
  console.log('| phase | probes | p50 | p99 | max |\n| --- | --- | --- | --- | --- |');
  console.log(line('idle', idle));
  console.log(line('during logins', busy));
  for (const c of [owner, p, ...workers]) await c.close();
} finally {
  await server.stop();
}
