// The web client's files over real HTTP: every file comes back as it is on disk (gzip decoded by
// node's own zlib), with validators and the cache policy; conditional requests get 304 without a
// body; names outside the client are 404, also when the request line is sent as it is.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { startServer } from './harness.mjs';

const WEB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web');
const TEXT = /\.(html|js|css|svg|json|txt)$/;
const SERVED = /\.(html|js|css|svg|json|txt|png|ico|woff2)$/;

let server;
before(async () => { server = await startServer(); });
after(async () => { assert.deepEqual(await server.stop(), { code: 0, signal: null }); });

// GET path with headers; resolves with {status, headers, body (Buffer, as sent)}.
function get(p, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: server.port, path: p, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
  });
}

// Sends a raw request line (no client-side normalisation of the path); resolves with the status.
function raw(line) {
  return new Promise((resolve, reject) => {
    const s = net.connect(server.port, '127.0.0.1', () => s.write(`${line}\r\nHost: x\r\nConnection: close\r\n\r\n`));
    let data = '';
    s.on('data', (d) => { data += d; });
    s.on('end', () => resolve(Number((data.match(/^HTTP\/1\.1 (\d+)/) || [])[1])));
    s.on('error', reject);
  });
}

const files = fs.readdirSync(WEB).filter((f) => SERVED.test(f));

test('every file of the client comes back as it is, gzip for text when asked, with validators', async () => {
  assert.ok(files.length > 15, 'the web directory has its files');
  let plain = 0, sent = 0;
  for (const f of files) {
    const disk = fs.readFileSync(path.join(WEB, f));
    const r = await get('/' + f, { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(r.status, 200, f);
    const body = r.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(r.body) : r.body;
    assert.ok(body.equals(disk), `${f}: the same bytes as on disk`);
    assert.equal(Number(r.headers['content-length']), r.body.length, f);
    assert.match(r.headers.etag, /^"[0-9a-f]{32}(-gz)?"$/, f);
    assert.equal(new Date(r.headers['last-modified']).getTime(), Math.floor(fs.statSync(path.join(WEB, f)).mtimeMs / 1000) * 1000, f);
    assert.equal(r.headers['cache-control'], 'no-cache', f);
    assert.match(r.headers['content-security-policy'], /script-src 'self'/, f);
    if (TEXT.test(f) && disk.length > 1000) {
      assert.equal(r.headers['content-encoding'], 'gzip', `${f} is compressed`);
      assert.equal(r.headers.vary, 'Accept-Encoding', f);
      assert.ok(r.body.length < disk.length * 0.6, `${f}: ${r.body.length} of ${disk.length} bytes`);
    }
    plain += disk.length;
    sent += r.body.length;
    // Without Accept-Encoding, the file itself.
    const id = await get('/' + f);
    assert.equal(id.headers['content-encoding'], undefined, f);
    assert.ok(id.body.equals(disk), f);
  }
  // What the whole client weighs over the wire, for the record (the e2e weight test and
  // bench/web-weight.mjs measure the lobby's first load).
  console.log(`# the client's ${files.length} files: ${plain} bytes, ${sent} bytes sent with gzip`);
});

test('conditional requests: If-None-Match and If-Modified-Since answer 304 without a body', async () => {
  for (const ae of ['gzip', undefined]) {
    const headers = ae ? { 'accept-encoding': ae } : {};
    const first = await get('/lobby.js', headers);
    assert.equal(first.status, 200);
    const tag = first.headers.etag;
    assert.equal(tag.endsWith('-gz"'), !!ae);
    let r = await get('/lobby.js', { ...headers, 'if-none-match': tag });
    assert.equal(r.status, 304);
    assert.equal(r.body.length, 0);
    assert.equal(r.headers.etag, tag);
    assert.equal(r.headers['cache-control'], 'no-cache');
    r = await get('/lobby.js', { ...headers, 'if-none-match': `"nope", W/${tag}` });
    assert.equal(r.status, 304, 'weak comparison, in a list');
    r = await get('/lobby.js', { ...headers, 'if-none-match': '"0123"' });
    assert.equal(r.status, 200);
    assert.ok(r.body.length > 0);
    r = await get('/lobby.js', { ...headers, 'if-modified-since': first.headers['last-modified'] });
    assert.equal(r.status, 304);
    r = await get('/lobby.js', { ...headers, 'if-modified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' });
    assert.equal(r.status, 200);
    // If-None-Match decides when both are there.
    r = await get('/lobby.js', { ...headers, 'if-none-match': '"0123"', 'if-modified-since': first.headers['last-modified'] });
    assert.equal(r.status, 200);
  }
  // A tag of the gzip form does not validate the plain one.
  const gz = await get('/room.js', { 'accept-encoding': 'gzip' });
  assert.equal((await get('/room.js', { 'if-none-match': gz.headers.etag })).status, 200);
});

test('the page routes are index.html; other names are not found', async () => {
  const index = fs.readFileSync(path.join(WEB, 'index.html'));
  for (const p of ['/', '/r/K7QX2M', '/g/1', '/?how=kalah']) {
    const r = await get(p, { 'accept-encoding': 'gzip' });
    assert.equal(r.status, 200, p);
    assert.match(r.headers['content-type'], /^text\/html/, p);
    assert.ok(zlib.gunzipSync(r.body).equals(index), p);
  }
  for (const p of ['/nothere.js', '/README.md', '/.hidden', '/web/index.html', '/sub/']) {
    assert.equal((await get(p)).status, 404, p);
  }
  // A missing file is a bare 404; an unknown page gets the client's page with status 404 (it says
  // "not found" in the reader's language, with the way home), never cached.
  assert.equal((await get('/nothere.js')).body.length, 0);
  for (const p of ['/nothere', '/some/page', '/sub/']) {
    const r = await get(p);
    assert.equal(r.status, 404, p);
    assert.match(r.headers['content-type'], /^text\/html/, p);
    assert.ok(r.body.equals(index), p);
    assert.equal(r.headers['cache-control'], 'no-store', p);
  }
  for (const line of ['GET /../server/main.c HTTP/1.1', 'GET /%2e%2e/server/main.c HTTP/1.1',
    'GET /..%2fserver/main.c HTTP/1.1', 'GET //etc/passwd HTTP/1.1']) {
    const status = await raw(line);
    assert.ok(status === 404 || status === 400 || status === 403, `${line}: ${status}`);
  }
  // The rest of the server is still there.
  assert.equal((await get('/healthz')).status, 200);
  assert.equal((await get('/api/games/999999')).status, 404);
});
