// Out of file descriptors (hardening issue, item 13): with the open-file limit at 2,048 and 3,000
// connections arriving, lws retried accept() at once forever ("accept: errno 24"), the loop burned
// most of a core and /healthz took 2 s. Now the connection limit is what the open-file limit
// allows (a reserve kept for the database, logs and files), and an accept that fails for want of
// descriptors pauses accepting (100 ms, doubling up to 1 s) instead of spinning. Here with 256
// descriptors (prlimit): functional checks with generous margins, not a benchmark (the machine is
// shared, the server built with the sanitizers).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import { test } from 'node:test';
import WebSocket from 'ws';
import { sleep, startServer } from './harness.mjs';

const TICKS = 100; // USER_HZ: /proc/PID/stat counts CPU time in 1/100 s on Linux.

// The CPU time (user + system) the process has used, in seconds.
function cpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS; // utime and stime: fields 14 and 15.
}

// GET /healthz; resolves with its status, body and how long it took (ms).
async function timedHealth(server) {
  const start = performance.now();
  const res = await fetch(`${server.http}/healthz`, { signal: AbortSignal.timeout(20000) });
  const body = await res.json();
  return { status: res.status, body, ms: performance.now() - start };
}

// Opens a WebSocket that never says hello; resolves once it is open (or failed to open). c.refused
// becomes true when the server answers too_many_connections and closes (1013).
function wsConnect(server) {
  return new Promise((resolve) => {
    const c = { ws: new WebSocket(server.url, 'mancala.v1'), opened: false, refused: false };
    c.ws.on('message', (d) => { if (JSON.parse(d.toString()).code === 'too_many_connections') c.refused = true; });
    c.ws.on('close', (code) => { if (code === 1013) c.refused = true; resolve(c); });
    c.ws.on('error', () => {});
    c.ws.on('open', () => { c.opened = true; resolve(c); });
  });
}

test('with 256 descriptors: the connection limit fits, and running out pauses accepting', async (t) => {
  const server = await startServer(['--hello-s', '60', '--max-per-ip', '100000'], { wrap: ['prlimit', '--nofile=256:256', '--'] });
  const idle = [];
  let sockets = [];
  try {
    // The effective limit is logged at start: 256 descriptors less a quarter kept back.
    assert.match(server.log, /WARN  net: connections: at most 192, not --max-connections 10000: the open-file limit 256 keeps 64 descriptors/);

    // 1. More WebSocket connections than that: the ones past 192 are refused, and /healthz, which
    // needs a descriptor of its own, is answered at once.
    const clients = await Promise.all(Array.from({ length: 260 }, () => wsConnect(server)));
    sockets = clients.map((c) => c.ws);
    assert.equal(clients.filter((c) => c.opened).length, 260, 'every connection opens (some to be refused)');
    const refused = () => clients.filter((c) => c.refused).length;
    for (let i = 0; i < 200 && refused() < 68; i++) await sleep(50);
    assert.equal(refused(), 68);
    const h1 = await timedHealth(server);
    assert.equal(h1.status, 200);
    assert.equal(h1.body.connections, 192);
    t.diagnostic(`/healthz with 192 connections open and 68 refused: ${h1.ms.toFixed(1)} ms`);
    assert.ok(h1.ms < 1000, `/healthz took ${h1.ms} ms`);

    // 2. Raw connections that never send a request, more than there are descriptors left: accept()
    // fails with EMFILE. The server pauses accepting instead of retrying at once.
    const mark = server.log.length;
    const since = () => server.log.slice(mark);
    for (let i = 0; i < 200; i++) {
      const s = net.connect(server.port, '127.0.0.1');
      s.on('error', () => {});
      idle.push(s);
    }
    for (let i = 0; i < 200 && !/accept: Too many open files/.test(since()); i++) await sleep(50);
    assert.match(since(), /WARN  net: accept: Too many open files \(open-file limit 256, 192 WebSocket connections\): not accepting for \d+ ms/);
    const before = cpuSeconds(server.child.pid);
    await sleep(3000);
    const cpu = cpuSeconds(server.child.pid) - before;
    t.diagnostic(`CPU time over 3 s while out of descriptors: ${cpu.toFixed(2)} s`);
    assert.ok(cpu < 1.0, `the server used ${cpu} s of CPU in 3 s: it spins`);
    assert.doesNotMatch(server.log, /accept: errno/, 'lws does not accept any more');

    // 3. The idle connections gone, accepting resumes within a pause: /healthz is answered.
    for (const s of idle) s.destroy();
    const h2 = await timedHealth(server);
    assert.equal(h2.status, 200);
    t.diagnostic(`/healthz right after the idle connections closed: ${h2.ms.toFixed(1)} ms`);
    assert.ok(h2.ms < 3000, `/healthz took ${h2.ms} ms`);
  } finally {
    for (const s of idle) s.destroy();
    for (const ws of sockets) ws.terminate();
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});
