/**
 * The collectors' HTTP client against a real local server that answers the
 * way some servers and proxies do whatever was asked: a compressed body to a
 * request for `identity`, JSON behind a UTF-8 byte order mark, a small
 * compressed body that decodes to far more than the limit, a body that does
 * not decode.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { fetchJson } from './fetch.js';

const LIMIT = 64 * 1024;
const DOC = { name: 'x402-fetch', versions: { '2.27.0': { time: '2026-11-01T00:00:00Z' } }, note: 'ünïcode' };
const PLAIN = Buffer.from(JSON.stringify(DOC));
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

interface Answer {
  headers: Record<string, string>;
  body: Buffer;
}

const ANSWERS: Record<string, Answer> = {
  '/plain': { headers: {}, body: PLAIN },
  '/gzip': { headers: { 'content-encoding': 'gzip' }, body: gzipSync(PLAIN) },
  '/x-gzip': { headers: { 'content-encoding': 'x-gzip' }, body: gzipSync(PLAIN) },
  '/br': { headers: { 'content-encoding': 'br' }, body: brotliCompressSync(PLAIN) },
  '/deflate': { headers: { 'content-encoding': 'deflate' }, body: deflateSync(PLAIN) },
  '/deflate-raw': { headers: { 'content-encoding': 'deflate' }, body: deflateRawSync(PLAIN) },
  '/two-codings': { headers: { 'content-encoding': 'gzip, br' }, body: brotliCompressSync(gzipSync(PLAIN)) },
  // A coding fetch does not know: the bytes are taken as they came, as fetch takes them.
  '/unknown-coding': { headers: { 'content-encoding': 'zstd-experimental' }, body: PLAIN },
  '/bom': { headers: {}, body: Buffer.concat([BOM, PLAIN]) },
  '/gzip-bom': { headers: { 'content-encoding': 'gzip' }, body: gzipSync(Buffer.concat([BOM, PLAIN])) },
  // 8 MiB of one JSON string, about 8 KiB on the wire.
  '/bomb': { headers: { 'content-encoding': 'gzip' }, body: gzipSync(Buffer.from(JSON.stringify({ pad: 'a'.repeat(8 * 1024 * 1024) }))) },
  '/broken': { headers: { 'content-encoding': 'gzip' }, body: Buffer.from('this is not gzip at all, whatever the header says') },
};

describe('collectors fetch: answers decoded as fetch decodes them, within the limit', () => {
  let server: Server;
  let base = '';
  const asked: IncomingHttpHeaders[] = [];

  before(async () => {
    server = createServer((req, res) => {
      asked.push(req.headers);
      const a = ANSWERS[req.url ?? ''];
      if (!a) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': a.body.length, ...a.headers }).end(a.body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  const get = (path: string) => fetchJson(base + path, { timeoutMs: 3000, maxBytes: LIMIT, allowPrivateAddresses: true });
  const hashOf = (b: Buffer) => createHash('sha256').update(b).digest('hex');

  test('a body compressed although the request asked for identity is read, and hashed as the document it decodes to', async () => {
    for (const path of ['/gzip', '/x-gzip', '/br', '/deflate', '/deflate-raw', '/two-codings']) {
      const got = await get(path);
      assert.ok(got.ok, `${path}: ${JSON.stringify(got)}`);
      assert.deepEqual(got.json, DOC, path);
      assert.equal(got.excerptHash, hashOf(PLAIN), `${path}: the same document, the same hash, however it travelled`);
      assert.equal(got.bytes, ANSWERS[path]!.body.length, `${path}: bytes counts what came over the wire`);
    }
    assert.ok(asked.every((h) => h['accept-encoding'] === 'identity'), 'it still asks for no coding');
  });

  test('an unknown coding leaves the bytes as they came, as fetch does', async () => {
    const got = await get('/unknown-coding');
    assert.ok(got.ok, JSON.stringify(got));
    assert.deepEqual(got.json, DOC);
  });

  test('JSON behind a UTF-8 byte order mark is read, as fetch reads it', async () => {
    for (const path of ['/bom', '/gzip-bom']) {
      const got = await get(path);
      assert.ok(got.ok, `${path}: ${JSON.stringify(got)}`);
      assert.deepEqual(got.json, DOC, path);
    }
  });

  test('a small compressed body that decodes past the limit fails as too large, and nothing of it is parsed', async () => {
    assert.ok(ANSWERS['/bomb']!.body.length < LIMIT, 'the bomb itself is under the limit on the wire');
    const got = await get('/bomb');
    assert.equal(got.ok, false);
    assert.equal(!got.ok && got.failure, 'too_large');
    assert.match(!got.ok ? got.detail : '', /decodes to more than 65536 bytes \(gzip\)/);
  });

  test('a body that does not decode as its Content-Encoding says fails with a reason, not as a parse error', async () => {
    const got = await get('/broken');
    assert.equal(got.ok, false);
    assert.equal(!got.ok && got.failure, 'network');
    assert.match(!got.ok ? got.detail : '', /does not decode as its Content-Encoding \(gzip\) says/);
  });

  test('a plain answer is read as before', async () => {
    const got = await get('/plain');
    assert.ok(got.ok, JSON.stringify(got));
    assert.deepEqual(got.json, DOC);
    assert.equal(got.excerptHash, hashOf(PLAIN));
  });
});
