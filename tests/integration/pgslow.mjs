// PostgreSQL seen from a test: psql's answer read directly (not through the server), and a proxy
// that holds back the answers to the connection that sends COMMIT. Used by postgres.test.mjs and
// cluster.test.mjs.
import { execFileSync } from 'node:child_process';
import net from 'node:net';

// One value read by psql from the database of url, as the postgres user.
export function psql(url, sql) {
  const u = new URL(url);
  const args = ['-h', '127.0.0.1', '-p', u.port, '-U', 'postgres', '-d', u.pathname.slice(1), '-At', '-c', sql];
  const bin = '/usr/lib/postgresql/15/bin/psql';
  // As tests/pg.sh: as root, as the user PostgreSQL runs as.
  return (process.getuid() === 0 ? execFileSync('runuser', ['-u', 'postgres', '--', bin, ...args], { encoding: 'utf8' })
    : execFileSync(bin, args, { encoding: 'utf8' })).trim();
}

// A proxy on loopback in front of PostgreSQL's port that holds the answers to the server's write
// connection (the one that sends COMMIT) for delayMs, in order: each batch's result comes late,
// so that later loop turns run while it is in flight. The reads' connection is not slowed.
// Resolves with the proxy's port and a close().
export function slowCommits(port, delayMs) {
  const socks = new Set();
  const proxy = net.createServer((client) => {
    const up = net.connect(port, '127.0.0.1');
    socks.add(client).add(up);
    let writer = false;
    const end = () => { client.destroy(); up.destroy(); };
    client.on('data', (d) => {
      if (!writer && d.includes('COMMIT')) writer = true;
      up.write(d);
    });
    up.on('data', (d) => {
      if (!writer) client.write(d);
      else setTimeout(() => { if (!client.destroyed) client.write(d); }, delayMs);
    });
    client.on('error', end).on('close', end);
    up.on('error', end).on('close', () => setTimeout(end, delayMs + 10));
  });
  return new Promise((resolve) => proxy.listen(0, '127.0.0.1', () => resolve({
    port: proxy.address().port,
    close: () => { for (const x of socks) x.destroy(); proxy.close(); },
  })));
}
