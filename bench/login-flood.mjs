// Issue 25, item 3, as a figure: 32 connections flood the password checks with wrong logins,
// cycling through 68 IPv6 /64s (a fresh name each time, so that no name's limit stops them),
// while 31 real logins arrive from other addresses, one every 250 ms. Prints how the real logins
// were answered (busy is the failure the issue measured: 21 of 31 before the fair queue), how the
// flood was answered, and the round trip of a lobby request from a bystander meanwhile.
//
//   node bench/login-flood.mjs [--server BIN] [--limits default|raised] [--sites one|many]
//                              [--seconds-before S]
//
// --sites one: the 68 /64s are one /48 (one subscriber's site); many: each /64 is a /48 of its own
// (68 subscribers: the worst case for the queue). --limits raised lifts the login limits so that
// the queue alone stands between the flood and the real logins. BIN defaults to
// build-rel/bin/mancala-server. Clients name their address in X-Forwarded-For (--trust-proxy
// 127.0.0.1).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The servers a benchmark starts build no endgame tables (issue 24: a fresh install builds them
// in the background, minutes of one core and ~80 MB): figures are of the server's steady state.
process.env.MANCALA_EGTB_BUILD ??= 'off';

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const opt = (name, def) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : def; };
process.env.MANCALA_SERVER = path.resolve(opt('--server', path.join(here, '../build-rel/bin/mancala-server')));
const LIMITS = opt('--limits', 'default');
const SITES = opt('--sites', 'one');
const BEFORE = Number(opt('--seconds-before', '2'));
const { Client, startServer, sleep } = await import('../tests/integration/harness.mjs');

const PW = 'correct horse battery';
const args = ['--trust-proxy', '127.0.0.1'];
if (LIMITS === 'raised') args.push('--login-attempts', '1000000', '--login-attempts-ip', '1000000');
const server = await startServer(args);
const from = (ip) => Client.connect(server, { headers: { 'X-Forwarded-For': ip } });
const site = (i) => (SITES === 'one' ? `2001:db8:77:${i.toString(16)}::1` : `2001:db8:${(i + 1).toString(16)}:1::1`);

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
}

try {
  const owner = await from('203.0.113.1');
  const reg = await owner.request({ type: 'register', name: 'Bench', password: PW });
  if (reg.type !== 'account') throw new Error('register: ' + JSON.stringify(reg));
  await owner.close();

  let stop = false, next = 0, names = 0;
  const flood = {};
  const count = (t, r) => { const k = r.type === 'welcome' ? 'welcome' : r.code; t[k] = (t[k] || 0) + 1; };
  // 32 connections, each 5 logins from one /64, then the next /64 of the 68.
  const workers = Array.from({ length: 32 }, async () => {
    while (!stop) {
      const c = await from(site(next++ % 68));
      for (let k = 0; k < 5 && !stop; k++)
        count(flood, await c.request({ type: 'login', name: `nobody${names++}`, password: 'wrong horse' }, 120000));
      await c.close();
    }
  });
  const bystander = await from('203.0.113.200');
  const rtts = [];
  const probe = (async () => {
    while (!stop) {
      const t = process.hrtime.bigint();
      await bystander.request({ type: 'lobby' });
      rtts.push(Number(process.hrtime.bigint() - t) / 1e6);
      await sleep(20);
    }
  })();
  await sleep(BEFORE * 1000);
  // 31 real logins, each from an address of its own, one every 250 ms (not waiting for each other).
  const real = {};
  const waits = [];
  await Promise.all(Array.from({ length: 31 }, async (_, i) => {
    await sleep(i * 250);
    const c = await from(`192.0.2.${i + 1}`);
    const t = Date.now();
    const r = await c.request({ type: 'login', name: 'Bench', password: PW }, 120000);
    waits.push(Date.now() - t);
    count(real, r);
    await c.close();
  }));
  stop = true;
  await Promise.all([...workers, probe]);
  await bystander.close();
  const real_busy = real.busy || 0;
  console.log(`login flood: limits ${LIMITS}, 68 /64s in ${SITES === 'one' ? 'one /48' : '68 /48s'}, server ${process.env.MANCALA_SERVER}`);
  console.log(`real logins (31): ${JSON.stringify(real)}; busy ${real_busy} of 31; answer p50 ${pct(waits, 50)} ms, max ${Math.max(...waits)} ms`);
  console.log(`flood answers: ${JSON.stringify(flood)}`);
  console.log(`bystander lobby round trip: ${rtts.length} probes, p50 ${pct(rtts, 50).toFixed(2)} ms, p99 ${pct(rtts, 99).toFixed(2)} ms`);
} finally {
  const r = await server.stop();
  if (r.code !== 0) console.log('server exit: ' + JSON.stringify(r));
}
