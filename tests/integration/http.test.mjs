// HTTP methods and limits on every route (security probe, finding 10): every request gets a
// status, never an empty reply. HEAD answers like GET without the body; OPTIONS 204 and other
// methods 405, both with Allow; a path over 2 KiB 414; known headers over 8 KiB 431; dot segments
// and hidden files 404 (docs/server.md, "HTTP"). Raw heads that libwebsockets parses badly get
// their status too (docs/security.md, "HTTP requests libwebsockets parses").
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { test } from 'node:test';
import { startServer } from './harness.mjs';

// One request with node:http (any method, any header); resolves with status, headers and body.
function request(server, method, path, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.http}${path}`, { method, headers, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

const routes = ['/healthz', '/metrics', '/api/games/1', '/api/players/00/games', '/r/ABCDEF', '/g/1', '/ws', '/',
  '/index.html', '/nope', '/api/games/' + '9'.repeat(300)];

test('every method on every route gets a status', async () => {
  const server = await startServer();
  try {
    for (const path of routes) {
      const get = await request(server, 'GET', path);
      assert.ok([200, 404].includes(get.status), `GET ${path}: ${get.status}`);
      // HEAD: the same status and headers as GET, no body.
      const head = await request(server, 'HEAD', path);
      assert.equal(head.status, get.status, `HEAD ${path}`);
      assert.equal(head.body, '', `HEAD ${path} has no body`);
      assert.equal(head.headers['content-type'], get.headers['content-type'], `HEAD ${path} type`);
      if (get.headers['content-length'] !== undefined && path !== '/metrics' && path !== '/healthz') {
        assert.equal(head.headers['content-length'], get.headers['content-length'], `HEAD ${path} length`);
      }
      const options = await request(server, 'OPTIONS', path);
      assert.equal(options.status, 204, `OPTIONS ${path}`);
      assert.equal(options.headers.allow, 'GET, HEAD');
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
        const r = await request(server, method, path);
        assert.equal(r.status, 405, `${method} ${path}`);
        assert.equal(r.headers.allow, 'GET, HEAD', `${method} ${path} says what is allowed`);
      }
    }
    // The known answers of GET, for the record.
    assert.equal((await request(server, 'GET', '/healthz')).status, 200);
    assert.equal((await request(server, 'GET', '/api/games/' + '9'.repeat(300))).status, 404);
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test('a long path gets 414, large headers 431, a 5 KB header is served', async () => {
  const server = await startServer();
  try {
    assert.equal((await request(server, 'GET', '/api/games/' + '9'.repeat(3000))).status, 414);
    assert.equal((await request(server, 'GET', '/' + 'a'.repeat(2100))).status, 414);
    assert.equal((await request(server, 'GET', '/healthz', { Cookie: 'c=' + 'x'.repeat(9000) })).status, 431);
    assert.equal((await request(server, 'GET', '/healthz', { 'X-Big': 'x'.repeat(5000) })).status, 200);
    assert.equal((await request(server, 'GET', '/healthz', { Referer: 'x'.repeat(5000) })).status, 200);
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test('dot segments and hidden files are never served', async () => {
  const server = await startServer();
  try {
    for (const path of ['/.git/config', '/.env', '/%2e%2e/%2e%2e/etc/passwd', '/..%2f..%2fetc/passwd',
      '/a/./b', '/.well-known/x']) {
      const r = await request(server, 'GET', path);
      assert.equal(r.status, 404, `${path}: ${r.status}`);
      assert.ok(!r.body.includes('root:'), path);
    }
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

// Sends data on a new TCP connection and resolves with everything the server wrote until it
// closed (at most 10 s: a connection the server leaves hanging fails the test).
function raw(server, data) {
  return new Promise((resolve, reject) => {
    const s = net.connect(server.port, '127.0.0.1');
    const chunks = [];
    const timer = setTimeout(() => { s.destroy(); reject(new Error(`no answer, no close: ${Buffer.concat(chunks)}`)); }, 10000);
    s.on('data', (d) => chunks.push(d));
    s.on('error', () => {}); // A reset after the answer: what was read counts.
    s.on('close', () => { clearTimeout(timer); resolve(Buffer.concat(chunks).toString('latin1')); });
    s.write(data);
  });
}

// The status line and headers of a raw answer.
function head(answer) {
  const [status, ...lines] = answer.split('\r\n\r\n')[0].split('\r\n');
  return { status, headers: Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()])) };
}

test('heads libwebsockets would drop, refuse with 403 or leave hanging get their status', async () => {
  const server = await startServer();
  const H = 'Host: 127.0.0.1\r\n';
  try {
    // An unknown header counts: over 8 KiB of fields is 431, however they are named.
    let a = head(await raw(server, `GET /healthz HTTP/1.1\r\n${H}X-Big: ${'x'.repeat(16000)}\r\n\r\n`));
    assert.equal(a.status, 'HTTP/1.1 431 Request Header Fields Too Large');
    assert.equal(a.headers.connection, 'close');
    a = head(await raw(server, `GET /healthz HTTP/1.1\r\n${H}X-Big: ${'x'.repeat(7000)}\r\nConnection: close\r\n\r\n`));
    assert.equal(a.status, 'HTTP/1.1 200 OK', 'under 8 KiB is served');
    // A 30 KB head: 431, not a silent close.
    a = head(await raw(server, `GET /healthz HTTP/1.1\r\n${H}Cookie: ${'c'.repeat(30000)}\r\n\r\n`));
    assert.equal(a.status, 'HTTP/1.1 431 Request Header Fields Too Large');
    // A request line over 3 KiB: 414.
    a = head(await raw(server, `GET /${'a'.repeat(5000)} HTTP/1.1\r\n${H}\r\n`));
    assert.equal(a.status, 'HTTP/1.1 414 URI Too Long');
    // CONNECT (which hung), TRACE, PROPFIND and unknown methods (403): 405 with Allow.
    for (const method of ['CONNECT', 'TRACE', 'PROPFIND', 'BREW']) {
      const target = method === 'CONNECT' ? 'example.com:443' : '/';
      a = head(await raw(server, `${method} ${target} HTTP/1.1\r\n${H}\r\n`));
      assert.equal(a.status, 'HTTP/1.1 405 Method Not Allowed', method);
      assert.equal(a.headers.allow, 'GET, HEAD', method);
    }
    // A NUL in the path (lws closed without a word) and a bad escape (lws: 403): 400.
    a = head(await raw(server, `GET /app.js%00.html HTTP/1.1\r\n${H}\r\n`));
    assert.equal(a.status, 'HTTP/1.1 400 Bad Request');
    a = head(await raw(server, `GET /%zz HTTP/1.1\r\n${H}\r\n`));
    assert.equal(a.status, 'HTTP/1.1 400 Bad Request');
    // Two different Content-Lengths, or one with Transfer-Encoding (RFC 9112, 6.3): 400.
    a = head(await raw(server, `GET / HTTP/1.1\r\n${H}Content-Length: 0\r\nContent-Length: 5\r\n\r\n`));
    assert.equal(a.status, 'HTTP/1.1 400 Bad Request');
    a = head(await raw(server, `GET / HTTP/1.1\r\n${H}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n`));
    assert.equal(a.status, 'HTTP/1.1 400 Bad Request');
    a = head(await raw(server, `GET /healthz HTTP/1.1\r\n${H}Content-Length: 0\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`));
    assert.equal(a.status, 'HTTP/1.1 200 OK', 'the same length twice is no conflict');
    // A garbled request line: 400.
    a = head(await raw(server, `GET /\r\n${H}\r\n`));
    assert.equal(a.status, 'HTTP/1.1 400 Bad Request');
    // A head split in pieces still goes through, and the WebSocket upgrade too.
    const slow = net.connect(server.port, '127.0.0.1');
    const chunks = [];
    slow.on('data', (d) => chunks.push(d));
    const closed = new Promise((r) => slow.on('close', r));
    slow.write('GET /healthz HT');
    await new Promise((r) => setTimeout(r, 200));
    slow.write(`TP/1.1\r\n${H}Connection: close\r\n`);
    await new Promise((r) => setTimeout(r, 200));
    slow.write('\r\n');
    await closed;
    assert.equal(head(Buffer.concat(chunks).toString()).status, 'HTTP/1.1 200 OK');
    assert.equal((await request(server, 'GET', '/healthz')).status, 200);
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

// Sends GET /healthz, then, once its answer has come, second on the same kept-alive connection;
// resolves with everything the server wrote until it closed.
function keptAlive(server, second) {
  return new Promise((resolve, reject) => {
    const s = net.connect(server.port, '127.0.0.1');
    let text = '';
    let sent = false;
    const timer = setTimeout(() => { s.destroy(); reject(new Error(`no answer, no close: ${text}`)); }, 10000);
    s.on('data', (d) => {
      text += d.toString('latin1');
      if (!sent && /"status":"ok"[^}]*\}/.test(text)) { sent = true; s.write(second); }
    });
    s.on('error', () => {});
    s.on('close', () => { clearTimeout(timer); resolve(text); });
    s.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  });
}

test('a later request of a kept-alive connection: what lws lets the server answer', async () => {
  const server = await startServer();
  const H = 'Host: 127.0.0.1\r\n';
  try {
    for (const method of ['CONNECT', 'TRACE', 'PROPFIND']) {
      const target = method === 'CONNECT' ? 'example.com:443' : '/';
      const text = await keptAlive(server, `${method} ${target} HTTP/1.1\r\n${H}\r\n`);
      const second = text.slice(text.indexOf('HTTP/1.1', 1));
      assert.match(text, /^HTTP\/1\.1 200 OK/);
      assert.equal(head(second).status, 'HTTP/1.1 405 Method Not Allowed', method);
      assert.equal(head(second).headers.allow, 'GET, HEAD', method);
    }
    for (const fields of ['Content-Length: 0\r\nContent-Length: 5\r\n', 'Content-Length: 5\r\nTransfer-Encoding: chunked\r\n']) {
      const text = await keptAlive(server, `GET /healthz HTTP/1.1\r\n${H}${fields}\r\n`);
      assert.equal(head(text.slice(text.indexOf('HTTP/1.1', 1))).status, 'HTTP/1.1 400 Bad Request', fields);
    }
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});
