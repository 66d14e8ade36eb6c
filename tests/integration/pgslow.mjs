// PostgreSQL seen from a test: psql's answer read directly (not through the server), a proxy
// that holds back the answers to the connection that sends COMMIT, and one that cuts the server's
// connections without PostgreSQL's side knowing. Used by postgres.test.mjs and cluster.test.mjs.
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

// A proxy on loopback in front of PostgreSQL's port whose cut() closes every connection on the
// server's side only: the server sees its connections end, while PostgreSQL's backends see
// nothing and stay (as after a connection cut somewhere between two machines, which PostgreSQL
// notices only when its keepalive gives up, hours later by default). Connections made after a cut
// go through as before. Resolves with the proxy's port, cut() and a close() that ends everything.
export function cuttable(port) {
  const clients = new Set(), ups = new Set();
  const proxy = net.createServer((client) => {
    const up = net.connect(port, '127.0.0.1');
    clients.add(client);
    ups.add(up);
    client.on('data', (d) => up.write(d));
    up.on('data', (d) => { if (!client.destroyed) client.write(d); });
    client.on('error', () => {});
    up.on('error', () => client.destroy());
    up.on('close', () => client.destroy());
    // The server's side ending (its close or our cut) does not reach PostgreSQL.
    client.on('close', () => clients.delete(client));
  });
  return new Promise((resolve) => proxy.listen(0, '127.0.0.1', () => resolve({
    port: proxy.address().port,
    cut: () => { for (const c of clients) c.destroy(); },
    close: () => { for (const x of [...clients, ...ups]) x.destroy(); proxy.close(); },
  })));
}
