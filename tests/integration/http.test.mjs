// HTTP methods and limits on every route (security probe, finding 10): every request gets a
// status, never an empty reply. HEAD answers like GET without the body; OPTIONS 204 and other
// methods 405, both with Allow; a path over 2 KiB 414; known headers over 8 KiB 431; dot segments
// and hidden files 404 (docs/server.md, "HTTP").
import assert from 'node:assert/strict';
import http from 'node:http';
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
