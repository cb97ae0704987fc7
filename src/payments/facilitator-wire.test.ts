/**
 * The facilitator client on node:http (facilitator-wire.ts) against the
 * SDK's HTTPFacilitatorClient, side by side on the same scripted facilitator:
 * for every kind of answer a facilitator gives (valid, refused, malformed,
 * redirected, rate-limited, silent, gone), both produce the same result or
 * the same error (class, message, status, and whether it proves the request
 * was never sent). Plus what only ours promises: one kept-alive connection.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import type { AddressInfo, Socket } from 'node:net';
import { HTTPFacilitatorClient, type FacilitatorClient } from '@x402/core/server';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { FacilitatorWire, IDLE_CONNECTION_MS, idleLimitMs, MAX_ANSWER_BYTES } from './facilitator-wire.js';
import { provablyNotSent } from './facilitators.js';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

interface Scripted {
  url: string;
  connections: number;
  requests: Array<{ method: string; url: string; body: string; headers: IncomingMessage['headers'] }>;
  close(): Promise<void>;
}

async function facilitator(handler: Handler): Promise<Scripted> {
  const sockets = new Set<Socket>();
  const out: Scripted = { url: '', connections: 0, requests: [], close: async () => {} };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      out.requests.push({ method: req.method!, url: req.url!, body, headers: req.headers });
      handler(req, body, res);
    });
  });
  server.on('connection', (s) => {
    out.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  out.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  out.close = () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  return out;
}

const json = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof value === 'string' ? value : JSON.stringify(value));
};

const PAYLOAD = {
  x402Version: 2,
  accepted: { scheme: 'exact', network: 'eip155:31337', amount: '1000', asset: '0x' + '11'.repeat(20), payTo: '0x' + '22'.repeat(20), maxTimeoutSeconds: 60, extra: {} },
  payload: { signature: '0xabc', authorization: { from: '0x' + '33'.repeat(20), value: 1000n } },
} as unknown as PaymentPayload;
const REQUIREMENTS = PAYLOAD.accepted as unknown as PaymentRequirements;

/** What a call produced, in the terms the gate reads. */
async function outcome(call: () => Promise<unknown>): Promise<unknown> {
  try {
    return { ok: await call() };
  } catch (e) {
    const err = e as Error & { statusCode?: number; invalidReason?: string; errorReason?: string; operation?: string; timeoutMs?: number };
    return {
      error: err.constructor.name,
      message: err.message,
      statusCode: err.statusCode,
      invalidReason: err.invalidReason,
      errorReason: err.errorReason,
      operation: err.operation,
      notSent: provablyNotSent(e),
    };
  }
}

/** Both clients against the same scripted facilitator: the same outcome for `op`. */
async function same(handler: Handler, op: (c: FacilitatorClient) => Promise<unknown>, timeoutMs = 2000): Promise<unknown> {
  const f = await facilitator(handler);
  try {
    const ours = new FacilitatorWire(f.url, { timeoutMs });
    const sdk = new HTTPFacilitatorClient({ url: f.url, timeoutMs });
    const a = await outcome(() => op(ours));
    const b = await outcome(() => op(sdk));
    assert.deepEqual(a, b);
    ours.close();
    return a;
  } finally {
    await f.close();
  }
}

const verify = (c: FacilitatorClient) => c.verify(PAYLOAD, REQUIREMENTS);
const settle = (c: FacilitatorClient) => c.settle(PAYLOAD, REQUIREMENTS);
const supported = (c: FacilitatorClient) => c.getSupported();

test('the request: same method, path, content type and body (bigints as strings) as the SDK sends', async () => {
  const f = await facilitator((_req, _b, res) => json(res, 200, { isValid: true, payer: '0x1' }));
  try {
    await new FacilitatorWire(f.url, { timeoutMs: 2000 }).verify(PAYLOAD, REQUIREMENTS);
    await new HTTPFacilitatorClient({ url: f.url, timeoutMs: 2000 }).verify(PAYLOAD, REQUIREMENTS);
    const [ours, sdk] = f.requests;
    assert.equal(ours!.method, sdk!.method);
    assert.equal(ours!.url, sdk!.url);
    assert.equal(ours!.headers['content-type'], sdk!.headers['content-type']);
    assert.deepEqual(JSON.parse(ours!.body), JSON.parse(sdk!.body));
    assert.equal(JSON.parse(ours!.body).paymentPayload.payload.authorization.value, '1000');
  } finally {
    await f.close();
  }
});

test('valid answers: the same objects (unknown fields dropped, nulls as absent)', async () => {
  await same((_q, _b, res) => json(res, 200, { isValid: true, payer: '0xabc', invalidReason: null, extra: { a: 1 }, other: 'dropped' }), verify);
  await same((_q, _b, res) => json(res, 200, { success: true, transaction: '0xtx', network: 'eip155:31337', payer: null, amount: '1000', extensions: { x: {} } }), settle);
  await same((_q, _b, res) => json(res, 200, { kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:31337', extra: null }], signers: { 'eip155:*': ['0x1'] } }), supported);
  await same((_q, _b, res) => json(res, 200, { kinds: [] }), supported);
});

test('refusals: VerifyError and SettleError with the facilitator\'s status and reason', async () => {
  const v = await same((_q, _b, res) => json(res, 400, { isValid: false, invalidReason: 'insufficient_funds', invalidMessage: 'no money' }), verify);
  assert.equal((v as { error: string }).error, 'VerifyError');
  const s = await same((_q, _b, res) => json(res, 500, { success: false, errorReason: 'settle_exact_failed', transaction: '', network: 'eip155:31337' }), settle);
  assert.equal((s as { error: string }).error, 'SettleError');
  await same((_q, _b, res) => json(res, 402, { success: false, errorReason: 'x' }), settle);
});

test('failures: a non-JSON or verdict-less non-2xx is a plain Error with the same excerpt', async () => {
  await same((_q, _b, res) => (res.writeHead(502, { 'content-type': 'text/html' }), res.end('<html>\n  <body>Bad   gateway</body></html>')), verify);
  await same((_q, _b, res) => json(res, 500, { error: 'boom', detail: 'x'.repeat(400) }), settle);
  await same((_q, _b, res) => (res.writeHead(503), res.end()), supported);
});

test('malformed 2xx answers: FacilitatorResponseError with the same message', async () => {
  const a = await same((_q, _b, res) => json(res, 200, 'not json {'), verify);
  assert.equal((a as { error: string }).error, 'FacilitatorResponseError');
  await same((_q, _b, res) => json(res, 200, { isValid: 'yes' }), verify);
  await same((_q, _b, res) => json(res, 200, { success: true, network: 'eip155:1' }), settle);
  await same((_q, _b, res) => json(res, 200, { success: true, transaction: '0x', network: 'eip155:1', payer: 7 }), settle);
  await same((_q, _b, res) => json(res, 200, { kinds: [{ x402Version: '2', scheme: 'exact', network: 'n' }] }), supported);
  await same((_q, _b, res) => json(res, 200, { kinds: [], extensions: [1] }), supported);
  await same((_q, _b, res) => json(res, 200, [1, 2]), verify);
});

test('redirects are followed as fetch follows them', async () => {
  const a = await same((req, _b, res) => (req.url === '/verify' ? (res.writeHead(307, { location: '/v2/verify' }), res.end()) : json(res, 200, { isValid: true })), verify);
  assert.deepEqual(a, { ok: { isValid: true } });
  await same((req, _b, res) => (req.url === '/supported' ? (res.writeHead(302, { location: '/elsewhere' }), res.end()) : json(res, 200, { kinds: [] })), supported);
});

test('/supported answered 429 is asked again after Retry-After', async () => {
  let n = 0;
  const a = await same((_q, _b, res) => (n++ % 2 === 0 ? json(res, 429, { error: 'slow down' }, { 'retry-after': '1' }) : json(res, 200, { kinds: [] })), supported);
  assert.deepEqual(a, { ok: { kinds: [], extensions: [], signers: {} } });
});

test('EXTENSION-RESPONSES is put on the result', async () => {
  const ext = Buffer.from(JSON.stringify({ bazaar: { status: 'accepted' } })).toString('base64');
  const a = await same((_q, _b, res) => json(res, 200, { isValid: true }, { 'extension-responses': ext }), verify);
  assert.deepEqual((a as { ok: { extensionResponses: unknown } }).ok.extensionResponses, { bazaar: { status: 'accepted' } });
});

test('a facilitator that never answers: FacilitatorTimeoutError at the deadline, not a hang', async () => {
  const a = await same(() => {}, settle, 300);
  assert.equal((a as { error: string }).error, 'FacilitatorTimeoutError');
  // The deadline covers the body too: headers sent, body never finished.
  await same((_q, _b, res) => (res.writeHead(200, { 'content-type': 'application/json' }), res.write('{"isValid":')), verify, 300);
});

test('no connection: an error that proves nothing was sent, as the SDK\'s', async () => {
  const f = await facilitator(() => {});
  const url = f.url;
  await f.close();
  for (const op of [verify, settle, supported]) {
    const ours = await outcome(() => op(new FacilitatorWire(url, { timeoutMs: 2000 })));
    const sdk = await outcome(() => op(new HTTPFacilitatorClient({ url, timeoutMs: 2000 })));
    assert.deepEqual(ours, sdk);
    assert.equal((ours as { notSent: boolean }).notSent, true);
  }
});

test('a connection cut in the middle of the answer: an error that does not prove anything unsent', async () => {
  const cut: Handler = (_q, _b, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    res.write('{"success":tr');
    setTimeout(() => res.socket?.destroy(), 20);
  };
  const f = await facilitator(cut);
  try {
    const ours = (await outcome(() => settle(new FacilitatorWire(f.url, { timeoutMs: 2000 })))) as { error: string; notSent: boolean };
    const sdk = (await outcome(() => settle(new HTTPFacilitatorClient({ url: f.url, timeoutMs: 2000 })))) as { error: string; notSent: boolean };
    assert.equal(ours.error, sdk.error);
    assert.equal(ours.notSent, false);
    assert.equal(sdk.notSent, false);
  } finally {
    await f.close();
  }
});

test('calls reuse one kept-alive connection', async () => {
  const f = await facilitator((_q, _b, res) => json(res, 200, { isValid: true }));
  const client = new FacilitatorWire(f.url, { timeoutMs: 2000 });
  try {
    for (let i = 0; i < 5; i++) await client.verify(PAYLOAD, REQUIREMENTS);
    assert.equal(f.requests.length, 5);
    assert.equal(f.connections, 1);
  } finally {
    client.close();
    await f.close();
  }
});

/**
 * A facilitator that closes a kept-alive connection once it has been idle
 * `idleMs`: the close crosses the client's next request on the wire, so the
 * server sees that request arrive on a connection it already gave up and
 * resets it (what a keep-alive timeout racing a reused connection does).
 * `announce`: it says so in `Keep-Alive: timeout=…`, as Node's server does.
 */
async function closesIdleConnections(idleMs: number, announce: boolean): Promise<Scripted & { resets: number }> {
  const lastAnswer = new WeakMap<Socket, number>();
  const out = Object.assign(
    await facilitator((req, _b, res) => {
      const last = lastAnswer.get(req.socket);
      if (last !== undefined && Date.now() - last >= idleMs) {
        out.resets++;
        req.socket.destroy();
        return;
      }
      res.on('finish', () => lastAnswer.set(req.socket, Date.now()));
      json(res, 200, { isValid: true }, announce ? { 'Keep-Alive': `timeout=${Math.floor(idleMs / 1000)}` } : {});
    }),
    { resets: 0 },
  );
  return out;
}

test('a connection the facilitator closes as idle is not reused: the next verify goes on a new one and succeeds', async () => {
  // Announced: a server keeping idle connections 3 s is left before; silent: ours close before 5 s, Node's default.
  for (const [idleMs, announce, pause] of [[3000, true, 3100], [IDLE_CONNECTION_MS + 500, false, IDLE_CONNECTION_MS + 700]] as const) {
    const f = await closesIdleConnections(idleMs, announce);
    const client = new FacilitatorWire(f.url, { timeoutMs: 2000 });
    try {
      await client.verify(PAYLOAD, REQUIREMENTS);
      await new Promise((r) => setTimeout(r, pause));
      assert.deepEqual(await outcome(() => client.verify(PAYLOAD, REQUIREMENTS)), { ok: { isValid: true } }, `idle ${idleMs} ms, announced: ${announce}`);
      assert.equal(f.resets, 0);
      assert.equal(f.connections, 2);
    } finally {
      client.close();
      await f.close();
    }
  }
});

test('a facilitator that announces a longer keep-alive keeps its connection past our own idle limit; one that announces two seconds or less, not at all', async () => {
  for (const [announced, pause, connections] of [[10, IDLE_CONNECTION_MS + 700, 1], [2, 50, 2]] as const) {
    const f = await facilitator((_q, _b, res) => json(res, 200, { isValid: true }, { 'Keep-Alive': `timeout=${announced}` }));
    const client = new FacilitatorWire(f.url, { timeoutMs: 2000 });
    try {
      await client.verify(PAYLOAD, REQUIREMENTS);
      await new Promise((r) => setTimeout(r, pause));
      await client.verify(PAYLOAD, REQUIREMENTS);
      assert.equal(f.connections, connections, `announced timeout=${announced}`);
    } finally {
      client.close();
      await f.close();
    }
  }
});

test('the idle limit read from Keep-Alive, as undici reads it: the announced seconds less two, capped; ours without one', () => {
  assert.equal(idleLimitMs(undefined), IDLE_CONNECTION_MS);
  assert.equal(idleLimitMs('max=100'), IDLE_CONNECTION_MS);
  assert.equal(idleLimitMs('timeout=5'), 3000);
  assert.equal(idleLimitMs('timeout=60, max=1000'), 58_000);
  assert.equal(idleLimitMs('max=1000, Timeout = 30'), 28_000);
  assert.equal(idleLimitMs('timeout=2'), 0);
  assert.equal(idleLimitMs('timeout=86400'), 600_000);
});

test('an answer slower than the idle limit is still waited for, up to the deadline', async () => {
  const f = await facilitator((_q, _b, res) => setTimeout(() => json(res, 200, { isValid: true }), IDLE_CONNECTION_MS + 500));
  const client = new FacilitatorWire(f.url, { timeoutMs: IDLE_CONNECTION_MS + 3000 });
  try {
    assert.deepEqual(await outcome(() => client.verify(PAYLOAD, REQUIREMENTS)), { ok: { isValid: true } });
  } finally {
    client.close();
    await f.close();
  }
});

test('headers for each request are asked for that request\'s endpoint, right before it is sent', async () => {
  const f = await facilitator((req, _b, res) => (req.url === '/supported' ? json(res, 200, { kinds: [] }) : json(res, 200, { isValid: true })));
  const asked: string[] = [];
  const client = new FacilitatorWire(f.url, { timeoutMs: 2000, headersFor: (endpoint) => (asked.push(endpoint), { Authorization: `Bearer ${endpoint}-${asked.length}` }) });
  try {
    await client.getSupported();
    await client.verify(PAYLOAD, REQUIREMENTS);
    assert.deepEqual(asked, ['supported', 'verify']);
    assert.deepEqual(f.requests.map((r) => r.headers.authorization), ['Bearer supported-1', 'Bearer verify-2']);
  } finally {
    client.close();
    await f.close();
  }
});

test('redirect edge cases as fetch: 303 and a POST\'s 301 continue as GET; a loop fails; credentials stay with their origin', async () => {
  const seen: string[] = [];
  const a = await same((req, _b, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (req.url === '/verify') return (res.writeHead(303, { location: '/answer' }), res.end());
    return json(res, 200, { isValid: true });
  }, verify);
  assert.deepEqual(a, { ok: { isValid: true } });
  assert.deepEqual(seen, ['POST /verify', 'GET /answer', 'POST /verify', 'GET /answer']);
  await same((req, _b, res) => (req.url === '/settle' ? (res.writeHead(301, { location: '/s' }), res.end()) : json(res, 200, { success: true, transaction: '0x', network: 'n' })), settle);
  const loop = await same((_q, _b, res) => (res.writeHead(302, { location: '/supported' }), res.end()), supported);
  assert.equal((loop as { error: string; notSent: boolean }).error, 'TypeError');

  // A redirect to another origin: the Authorization header is not sent there.
  const other = await facilitator((_q, _b, res) => json(res, 200, { isValid: true }));
  const first = await facilitator((_q, _b, res) => (res.writeHead(307, { location: `${other.url}/verify` }), res.end()));
  try {
    await new FacilitatorWire(first.url, { timeoutMs: 2000, headersFor: () => ({ Authorization: 'Bearer secret', 'X-Key': 'k' }) }).verify(PAYLOAD, REQUIREMENTS);
    assert.equal(first.requests[0]!.headers.authorization, 'Bearer secret');
    assert.equal(other.requests[0]!.headers.authorization, undefined);
    assert.equal(other.requests[0]!.headers['x-key'], 'k');
  } finally {
    await first.close();
    await other.close();
  }
});

test('/supported: a Retry-After date in the past falls back to the backoff, and three 429s give up with the last answer', async () => {
  const past = new Date(Date.now() - 60_000).toUTCString();
  const a = await same((_q, _b, res) => json(res, 429, { error: 'slow down' }, { 'retry-after': past }), supported);
  assert.equal((a as { error: string }).error, 'Error');
});

test('a URL whose scheme is not HTTP fails before anything is sent', async () => {
  const ours = (await outcome(() => verify(new FacilitatorWire('ftp://127.0.0.1:1', { timeoutMs: 500 })))) as { error: string };
  const sdk = (await outcome(() => verify(new HTTPFacilitatorClient({ url: 'ftp://127.0.0.1:1', timeoutMs: 500 })))) as { error: string };
  assert.equal(ours.error, sdk.error);
});

/** An answer compressed with `codings` in the order listed (as Content-Encoding lists them), whatever the request asked for. */
function compressed(status: number, value: unknown, coding: string): Handler {
  return (_q, _b, res) => {
    let bytes: Buffer = Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));
    for (const c of coding.split(',').map((s) => s.trim().toLowerCase())) {
      if (c === 'gzip' || c === 'x-gzip') bytes = gzipSync(bytes);
      else if (c === 'br') bytes = brotliCompressSync(bytes);
      else if (c === 'deflate') bytes = deflateSync(bytes);
      else if (c === 'deflate-raw') bytes = deflateRawSync(bytes);
    }
    res.writeHead(status, { 'content-type': 'application/json', 'content-encoding': coding.replace('deflate-raw', 'deflate') });
    res.end(bytes);
  };
}

test('answers a facilitator (or the proxy in front of it) compresses are read as fetch reads them: gzip, deflate with or without its zlib header, br, several codings', async () => {
  for (const coding of ['gzip', 'x-gzip', 'GZIP', 'deflate', 'deflate-raw', 'br', 'gzip, br', 'deflate, gzip', 'identity']) {
    assert.deepEqual(await same(compressed(200, { isValid: true, payer: '0xabc' }, coding), verify), { ok: { isValid: true, payer: '0xabc' } }, coding);
  }
  const tx = { success: true, transaction: '0x' + 'ab'.repeat(32), network: 'eip155:8453', payer: '0xabc' };
  assert.deepEqual(await same(compressed(200, tx, 'gzip'), settle), { ok: tx });
  assert.deepEqual(await same(compressed(200, { kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:8453' }] }, 'br'), supported), {
    ok: { kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:8453' }], extensions: [], signers: {} },
  });
  // A refusal and a failure compressed: the same verdict and the same excerpt.
  const refused = (await same(compressed(402, { isValid: false, invalidReason: 'insufficient_funds' }, 'gzip'), verify)) as { error: string; invalidReason: string };
  assert.equal(refused.invalidReason, 'insufficient_funds');
  await same(compressed(502, '<html>bad gateway</html>', 'br'), settle);
  // A coding fetch does not know, after one it does: nothing decoded, the bytes as they came (not JSON).
  for (const unknown of ['gzip, zstd', 'gzip, constructor']) {
    assert.equal(((await same(compressed(200, { isValid: true }, unknown), verify)) as { error: string }).error, 'FacilitatorResponseError', unknown);
  }
});

test('a compressed answer that does not decompress: an error that does not prove anything unsent', async () => {
  const broken: Handler = (_q, _b, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    res.end(Buffer.concat([gzipSync('{"success":true}').subarray(0, 10), Buffer.from('not gzip at all')]));
  };
  const a = (await same(broken, settle)) as { notSent: boolean };
  assert.equal(a.notSent, false);
});

test('an answer larger than MAX_ANSWER_BYTES, as sent or once decompressed, fails without proving anything unsent; one just under it is read', async () => {
  const padded = (bytes: number) => JSON.stringify({ success: true, transaction: '0x01', network: 'eip155:8453', pad: 'x'.repeat(bytes) });
  const streamed: Handler = (_q, _b, res) => {
    // Chunked, no length announced: only the bytes themselves show the size.
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = ' '.repeat(64 * 1024);
    for (let i = 0; i < 40; i++) res.write(chunk);
    res.end('{}');
  };
  const bomb: Handler = (_q, _b, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    res.end(gzipSync(Buffer.from(padded(4 * MAX_ANSWER_BYTES))));
  };
  for (const [name, handler] of [['sent', compressed(200, padded(MAX_ANSWER_BYTES), 'identity')], ['streamed', streamed], ['decompressed', bomb]] as const) {
    const f = await facilitator(handler);
    const client = new FacilitatorWire(f.url, { timeoutMs: 5000 });
    try {
      const a = (await outcome(() => settle(client))) as { error: string; notSent: boolean };
      assert.equal(a.error, 'TypeError', name);
      assert.equal(a.notSent, false, name);
    } finally {
      client.close();
      await f.close();
    }
  }
  const under = await same(compressed(200, padded(MAX_ANSWER_BYTES - 200), 'gzip'), settle);
  assert.equal((under as { ok: { success: boolean } }).ok.success, true);
});

test('a facilitator behind a firewall that turns away clients that do not name themselves answers both clients', async () => {
  const firewall: Handler = (req, _b, res) => {
    if (!req.headers['user-agent'] || !req.headers.accept) return void (res.writeHead(403, { 'content-type': 'text/html' }), res.end('<html>Access denied</html>'));
    json(res, 200, { isValid: true });
  };
  assert.deepEqual(await same(firewall, verify), { ok: { isValid: true } });
});

test('an answer that starts with a UTF-8 byte order mark is read as fetch reads it', async () => {
  const bom: Handler = (_q, _b, res) => (res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }), res.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"isValid":true}')])));
  await same(bom, verify);
  await same((_q, _b, res) => (res.writeHead(400, { 'content-type': 'application/json' }), res.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"isValid":false,"invalidReason":"x"}')]))), verify);
});
