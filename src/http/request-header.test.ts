import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import { requestHeader, type JoinedHeaderName } from './request-header.js';

const NAMES: JoinedHeaderName[] = ['payment-signature', 'x-payment', 'x-request-id', 'origin', 'transfer-encoding', 'x-signed-offer', 'payment-authorization'];

const app = new Hono();
app.all('/h', (c) => c.json(NAMES.map((n) => [n, requestHeader(c, n) ?? null, c.req.header(n) ?? null])));

let server: Server;
let port: number;
before(async () => {
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
      port = info.port;
      resolve();
    }) as Server;
  });
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** One raw request (header lines as written) → the answer's JSON body. */
function raw(headerLines: string[], body = ''): Promise<Array<[string, string | null, string | null]>> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let got = '';
    socket.on('data', (d) => (got += d.toString('latin1')));
    socket.on('end', () => {
      const at = got.indexOf('\r\n\r\n');
      const head = got.slice(0, at);
      if (!/^HTTP\/1\.1 200/.test(head)) return reject(new Error(head));
      const rest = got.slice(at + 4);
      // The answer may be chunked: take the JSON between the first [ and the last ].
      resolve(JSON.parse(rest.slice(rest.indexOf('['), rest.lastIndexOf(']') + 1)));
    });
    socket.on('error', reject);
    socket.write(['POST /h HTTP/1.1', 'Host: t', 'Connection: close', ...headerLines, `Content-Length: ${Buffer.byteLength(body)}`, '', body].join('\r\n'));
  });
}

test('requestHeader answers what c.req.header answers under @hono/node-server', async () => {
  const cases: string[][] = [
    [],
    ['X-Request-Id: abc-123', 'Origin: https://a.example', 'PAYMENT-SIGNATURE: eyJ4IjoxfQ=='],
    // Duplicates: joined with ", " by both.
    ['X-Request-Id: one', 'x-request-id: two', 'X-Payment: a', 'X-PAYMENT: b'],
    // Surrounding and inner whitespace, empty values.
    ['X-Request-Id:    padded   ', 'Origin:', 'X-Signed-Offer: \t a b \t'],
    ['payment-signature: ' + 'A'.repeat(5000)],
  ];
  for (const lines of cases) {
    for (const [name, mine, hono] of await raw(lines, '{}')) assert.equal(mine, hono, `${name} with ${JSON.stringify(lines)}`);
  }
});

test('requestHeader on a chunked request: Transfer-Encoding as Hono reads it', async () => {
  const answer = await new Promise<Array<[string, string | null, string | null]>>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let got = '';
    socket.on('data', (d) => (got += d.toString('latin1')));
    socket.on('end', () => {
      const rest = got.slice(got.indexOf('\r\n\r\n') + 4);
      resolve(JSON.parse(rest.slice(rest.indexOf('['), rest.lastIndexOf(']') + 1)));
    });
    socket.on('error', reject);
    socket.write('POST /h HTTP/1.1\r\nHost: t\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n');
  });
  for (const [name, mine, hono] of answer) assert.equal(mine, hono, name);
  assert.deepEqual(answer.find(([n]) => n === 'transfer-encoding')?.slice(1), ['chunked', 'chunked']);
});

test('requestHeader outside node-server (app.request) asks Hono', async () => {
  const res = await app.request('/h', { method: 'POST', headers: { 'X-Request-Id': 'r1', Origin: 'https://b.example' } });
  for (const [name, mine, hono] of (await res.json()) as Array<[string, string | null, string | null]>) assert.equal(mine, hono, name);
});
