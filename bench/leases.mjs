// What a cluster node's lease renewals cost Redis (issue 21): one command,
//
//   node bench/leases.mjs [--server BIN] [--rooms 1000] [--lease-ms 3000] [--seconds 12]
//
// starts a throwaway PostgreSQL and Redis (tests/pg.sh, tests/redis.sh, loopback ports, a
// temporary directory) and one node of BIN (default build-bench/bin/mancala-server, a Release
// build) with --cluster-lease-ms LEASE (renewed every third of it), opens ROOMS private waiting
// rooms on it (one player, one connection), waits two renewals, then counts over SECONDS what
// Redis ran: the node's round trips to Redis (its /metrics), the EVAL and EVALSHA calls and
// Redis's own time in them (INFO commandstats). Nothing else happens meanwhile (the rooms wait), so the scripts are the renewals. It prints
// one Markdown table row: round trips and Redis's time per renewal tick and per lease renewed.
//
// Before/after: run it against a build of the commit before the batching and against this one.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The servers a benchmark starts build no endgame tables (issue 24: a fresh install builds them
// in the background, minutes of one core and ~80 MB): figures are of the server's steady state.
process.env.MANCALA_EGTB_BUILD ??= 'off';

const here = path.dirname(fileURLToPath(import.meta.url));
const top = path.resolve(here, '..');
const argv = process.argv.slice(2);
const opt = (name, def) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : def; };
process.env.MANCALA_SERVER = path.resolve(opt('--server', path.join(top, 'build-bench', 'bin', 'mancala-server')));
const ROOMS = Number(opt('--rooms', '1000'));
const LEASE = Number(opt('--lease-ms', '3000'));
const SECONDS = Number(opt('--seconds', '12'));
const { Client, sleep, startServer } = await import('../tests/integration/harness.mjs');

const sh = (script, ...args) => execFileSync('sh', [path.join(top, 'tests', script), ...args], { encoding: 'utf8' }).trim();

function redisStats(url) {
  const text = execFileSync('redis-cli', ['-u', url, 'INFO', 'all'], { encoding: 'utf8' });
  const by = {};
  for (const m of text.matchAll(/^cmdstat_(\w+):calls=(\d+),usec=(\d+)/gm)) by[m[1]] = { calls: Number(m[2]), usec: Number(m[3]) };
  return { by };
}

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'mancala-leases-'));
fs.chmodSync(base, 0o755); // PostgreSQL runs as its own user.
let server = null;
try {
  const pg = sh('pg.sh', 'start', path.join(base, 'pg'), 'auto');
  const redis = sh('redis.sh', 'start', path.join(base, 'redis'), 'auto');
  server = await startServer(['--store', pg, '--cluster', redis, '--cluster-lease-ms', String(LEASE),
    '--rooms-per-player', '10000', '--rooms-per-ip', '10000000', '--rate', '1000000', '--burst', '1000000']);
  const c = await Client.connect(server, { name: 'Ana' });
  for (let i = 0; i < ROOMS; i++) {
    const r = await c.request({ type: 'create', game: 'kalah', seat: 'south', visibility: 'private' }, 20000);
    if (r.type !== 'joined') throw new Error(JSON.stringify(r));
  }
  await sleep((2 * LEASE) / 3 + 500);
  const sent = async () => Number((await (await fetch(`${server.http}/metrics`)).text())
    .match(/^mancala_cluster_redis_commands_total (\d+)$/m)[1]);
  const s0 = redisStats(redis);
  const r0 = await sent();
  await sleep(SECONDS * 1000);
  const s1 = redisStats(redis);
  const trips = (await sent()) - r0;
  const d = (k) => ((s1.by[k] || { calls: 0 }).calls - (s0.by[k] || { calls: 0 }).calls);
  const du = (k) => ((s1.by[k] || { usec: 0 }).usec - (s0.by[k] || { usec: 0 }).usec);
  const ticks = (SECONDS * 1000) / (LEASE / 3);
  const scripts = d('eval') + d('evalsha');
  const usec = du('eval') + du('evalsha');
  console.log('| rooms | renewal ticks | node\'s round trips to Redis | of which EVAL | EVALSHA | scripts per tick | Redis µs per tick (scripts, INFO) | µs per lease renewed |');
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  console.log(`| ${ROOMS} | ${ticks.toFixed(0)} | ${trips} | ${d('eval')} | ${d('evalsha')} | ${(scripts / ticks).toFixed(1)} | ` +
    `${(usec / ticks).toFixed(0)} | ${(usec / ticks / ROOMS).toFixed(2)} |`);
  await c.close();
} finally {
  if (server) await server.stop();
  try { sh('pg.sh', 'stop', path.join(base, 'pg')); } catch { /* not started */ }
  try { sh('redis.sh', 'stop', path.join(base, 'redis')); } catch { /* not started */ }
  fs.rmSync(base, { recursive: true, force: true });
}
