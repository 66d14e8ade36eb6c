// The shipped nginx configuration (deploy/nginx/mancala.conf) in front of the real server: the
// configuration passes `nginx -t`, plain HTTP redirects to HTTPS, the page and /healthz come
// through TLS, and a whole game is played over wss:// through the proxy.
//
// The configuration is changed only where a test must: the upstream address, the listening ports
// (127.0.0.1 only) and the paths of a throwaway self-signed certificate.
//
// Environment: MANCALA_SERVER (path of mancala-server), MANCALA_CONF (path of mancala.conf).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import net from 'node:net';
import https from 'node:https';
import http from 'node:http';
import WebSocket from 'ws';

const SERVER = process.env.MANCALA_SERVER;
const CONF = process.env.MANCALA_CONF;
const NGINX = '/usr/sbin/nginx';

let dir, server, nginx, httpPort, httpsPort, cert;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function startServer() {
  return new Promise((resolve, reject) => {
    // The nginx in front is on this machine: named as the trusted proxy, as the shipped
    // configuration's comment says (the server trusts none unless told).
    const args = ['--port', '0', '--bind', '127.0.0.1', '--data', join(dir, 'data'), '--trust-proxy', '127.0.0.1'];
    const child = spawn(SERVER, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${log}`)), 10000);
    child.stderr.on('data', (chunk) => {
      log += chunk;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]) });
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${log}`)));
  });
}

// The shipped server blocks with only the test's substitutions.
function testConfig(upstreamPort) {
  let conf = readFileSync(CONF, 'utf8');
  const swap = (from, to) => {
    assert.ok(conf.includes(from), `mancala.conf no longer contains "${from}"`);
    conf = conf.split(from).join(to);
  };
  swap('server mancala:8080;', `server 127.0.0.1:${upstreamPort};`);
  swap('listen [::]:80;', '');
  swap('listen [::]:443 ssl http2;', '');
  swap('listen 80;', `listen 127.0.0.1:${httpPort};`);
  swap('listen 443 ssl http2;', `listen 127.0.0.1:${httpsPort} ssl http2;`);
  swap('/etc/nginx/certs/fullchain.pem', join(dir, 'cert.pem'));
  swap('/etc/nginx/certs/privkey.pem', join(dir, 'key.pem'));
  writeFileSync(join(dir, 'mancala.conf'), conf);
  writeFileSync(
    join(dir, 'nginx.conf'),
    `daemon off;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  include ${join(dir, 'mancala.conf')};
}
`,
  );
}

function get(url, options = {}) {
  const mod = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.get(url, { ...options, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
    });
    req.on('error', reject);
  });
}

async function waitFor(fn, what) {
  const end = Date.now() + 10000;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > end) throw new Error(`${what}: ${err.message}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

before(async () => {
  assert.ok(SERVER && CONF, 'MANCALA_SERVER and MANCALA_CONF must be set');
  dir = mkdtempSync(join(tmpdir(), 'mancala-nginx-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ], { stdio: 'ignore' });
  cert = readFileSync(join(dir, 'cert.pem'));
  httpPort = await freePort();
  httpsPort = await freePort();
  server = await startServer();
  testConfig(server.port);
});

after(() => {
  if (nginx && nginx.exitCode === null) nginx.kill('SIGQUIT');
  if (server && server.child.exitCode === null) server.child.kill('SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the shipped configuration passes nginx -t', () => {
  const out = execFileSync(NGINX, ['-t', '-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  assert.equal(typeof out, 'string');
});

test('through nginx: redirect, TLS page, health, and a whole game over wss', async () => {
  nginx = spawn(NGINX, ['-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf')], { stdio: 'ignore' });

  const redirect = await waitFor(() => get(`http://127.0.0.1:${httpPort}/r/ABCDEF`), 'nginx on HTTP');
  assert.equal(redirect.status, 301);
  assert.match(redirect.headers.location, /^https:\/\/127\.0\.0\.1(:\d+)?\/r\/ABCDEF$/);

  const tls = { ca: cert, servername: 'localhost' };
  const page = await waitFor(() => get(`https://127.0.0.1:${httpsPort}/`, tls), 'nginx on HTTPS');
  assert.equal(page.status, 200);
  assert.match(page.body, /<html/i);
  assert.match(page.headers['strict-transport-security'] ?? '', /max-age=/);

  const health = await get(`https://127.0.0.1:${httpsPort}/healthz`, tls);
  assert.equal(health.status, 200);
  assert.equal(JSON.parse(health.body).status, 'ok');

  const ws = new WebSocket(`wss://127.0.0.1:${httpsPort}/ws`, 'mancala.v1', tls);
  const frames = [];
  let wake = null;
  ws.on('message', (data) => {
    frames.push(JSON.parse(data.toString()));
    if (wake) wake();
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  assert.equal(ws.protocol, 'mancala.v1');
  const next = async (type) => {
    const end = Date.now() + 5000;
    for (;;) {
      const i = frames.findIndex((f) => f.type === type || f.type === 'error');
      if (i >= 0) {
        const [f] = frames.splice(i, 1);
        assert.notEqual(f.type, 'error', `error frame: ${JSON.stringify(f)}`);
        return f;
      }
      if (Date.now() > end) throw new Error(`no ${type} frame`);
      await new Promise((r) => {
        wake = r;
        setTimeout(r, 200);
      });
    }
  };

  ws.send(JSON.stringify({ type: 'hello', name: 'Proxy' }));
  await next('welcome');
  ws.send(JSON.stringify({ type: 'create', game: 'kalah', houses: 3, seeds: 2, opponent: 'local', id: 1 }));
  const joined = await next('joined');
  assert.equal(joined.seat, 'both');
  let state = await next('state');
  let moves = 0;
  while (state.status !== 'finished') {
    assert.equal(state.status, 'playing');
    assert.ok(state.legal.length > 0);
    ws.send(JSON.stringify({ type: 'move', room: joined.room, house: state.legal[0], ply: state.ply }));
    state = await next('state');
    moves++;
    assert.ok(moves < 200, 'the game does not end');
  }
  assert.ok(['south', 'north', 'draw'].includes(state.result.winner));
  assert.equal(state.result.score[0] + state.result.score[1], 12);
  ws.close();
});
