/**
 * HTTP hygiene on the real service: CORS for browser agents, gzip of large
 * documents, ETag/304 on discovery documents, the free-route rate limit (in
 * memory, and on Redis shared by two instances), and X-Forwarded-* honoured
 * only with TRUST_PROXY.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { REDIS_URL, redisReachable } from './support/redis.js';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { startRig, postJson, CONTRAST, BLACK_ON_WHITE, type Rig } from './support/harness.js';

const rigs: Rig[] = [];
after(async () => {
  for (const r of rigs) await r.close();
});
async function rig(env: Record<string, string> = {}): Promise<Rig> {
  const r = await startRig({ env });
  rigs.push(r);
  return r;
}

/** A raw GET (no automatic decompression): status, headers and the bytes as sent. */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Counts live in one-minute windows: start a counting run well inside one, so a new window cannot reset it midway. */
async function awayFromWindowEdge(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 5_000) await new Promise((r) => setTimeout(r, left + 50));
}

const REDIS_UP = await redisReachable();
const REDIS_SKIP = `Redis is not reachable at ${REDIS_URL}: skipping the shared rate-limit test (CI provides Redis)`;
if (!REDIS_UP) console.log(`# SKIP: ${REDIS_SKIP}`);

test('default service: CORS, gzip, ETag, and X-Forwarded-* ignored without TRUST_PROXY', async (t) => {
  const { service } = await rig();
  const url = service.url;

  await t.test('a CORS preflight for a paid call is answered and allows PAYMENT-SIGNATURE', async () => {
    const res = await fetch(url + CONTRAST, {
      method: 'OPTIONS',
      headers: { Origin: 'https://agent.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type, payment-signature' },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.match(res.headers.get('access-control-allow-methods') ?? '', /POST/);
    assert.match(res.headers.get('access-control-allow-headers') ?? '', /PAYMENT-SIGNATURE/i);
  });

  await t.test('a cross-origin 402 exposes PAYMENT-REQUIRED to the page', async () => {
    const res = await postJson(url + CONTRAST, BLACK_ON_WHITE, { Origin: 'https://agent.example' });
    assert.equal(res.status, 402);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/\s*,\s*/);
    assert.ok(exposed.includes('payment-required') && exposed.includes('payment-response'), `exposed: ${exposed}`);
    assert.ok(res.headers.get('payment-required'));
  });

  await t.test('/openapi.json is gzipped when accepted, much smaller, and decodes to the same document', async () => {
    const plain = await rawGet(url + '/openapi.json');
    const gz = await rawGet(url + '/openapi.json', { 'Accept-Encoding': 'gzip, deflate, br' });
    assert.equal(plain.status, 200);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.match(String(gz.headers.vary), /accept-encoding/i);
    assert.ok(gz.body.length * 3 < plain.body.length, `gzip ${gz.body.length} B vs plain ${plain.body.length} B`);
    assert.deepEqual(gunzipSync(gz.body), plain.body);
    console.log(`# /openapi.json: ${plain.body.length} B plain, ${gz.body.length} B gzip`);
    // Small answers and POST answers (the 402s) are not worth the CPU of compressing.
    const small = await rawGet(url + '/healthz', { 'Accept-Encoding': 'gzip' });
    assert.equal(small.headers['content-encoding'], undefined);
    assert.deepEqual(JSON.parse(small.body.toString()), { status: 'ok' });
    const challenge = await postJson(url + CONTRAST, BLACK_ON_WHITE, { 'Accept-Encoding': 'gzip' });
    assert.equal(challenge.status, 402);
    assert.equal(challenge.headers.get('content-encoding'), null);
  });

  await t.test('discovery documents carry an ETag and answer 304 to If-None-Match', async () => {
    for (const path of ['/openapi.json', '/.well-known/x402', '/.well-known/agent-card.json', '/llms.txt', '/v1/services']) {
      const first = await fetch(url + path);
      assert.equal(first.status, 200, path);
      const tag = first.headers.get('etag');
      assert.ok(tag, `${path} has an ETag`);
      await first.arrayBuffer();
      const again = await fetch(url + path, { headers: { 'If-None-Match': tag! } });
      assert.equal(again.status, 304, path);
      assert.equal((await again.arrayBuffer()).byteLength, 0);
      const changed = await fetch(url + path, { headers: { 'If-None-Match': '"something-else"' } });
      assert.equal(changed.status, 200, path);
      await changed.arrayBuffer();
    }
  });

  await t.test('without TRUST_PROXY, X-Forwarded-Proto/Host do not change the URLs the service states', async () => {
    const res = await postJson(url + CONTRAST, BLACK_ON_WHITE, { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'attacker.example' });
    assert.equal(res.status, 402);
    const pr = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
    assert.equal(pr.resource.url, url + CONTRAST);
  });

  await t.test('the rate limit is off in this rig, so nothing is 429', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await fetch(url + '/v1/services')).status, 200);
  });
});

test('configured service: CORS origins, TRUST_PROXY, in-memory rate limit', async (t) => {
  // The proxy's public name is one of ours (without it, a forwarded host is refused: test/host-header-spoofing.test.ts).
  const { service } = await rig({ CORS_ORIGINS: 'https://allowed.example', TRUST_PROXY: '1', RATE_LIMIT_PER_MINUTE: '3', ALLOWED_HOSTS: 'api.public.example' });
  const url = service.url;

  await t.test('only the configured origin is allowed', async () => {
    const ok = await fetch(url + '/healthz', { headers: { Origin: 'https://allowed.example' } });
    assert.equal(ok.headers.get('access-control-allow-origin'), 'https://allowed.example');
    const other = await fetch(url + '/healthz', { headers: { Origin: 'https://other.example' } });
    assert.equal(other.headers.get('access-control-allow-origin'), null);
  });

  await t.test('a paid route answers with the same CORS and request-id headers as every other route', async () => {
    // Paid routes have their own envelope (src/http/paid-envelope.ts, docs/decisions/0022), not the shared middleware.
    const ok = await postJson(url + CONTRAST, BLACK_ON_WHITE, { Origin: 'https://allowed.example', 'X-Request-Id': 'paid-cors-1' });
    assert.equal(ok.status, 402);
    assert.equal(ok.headers.get('access-control-allow-origin'), 'https://allowed.example');
    assert.match(ok.headers.get('vary') ?? '', /origin/i);
    assert.match(ok.headers.get('access-control-expose-headers') ?? '', /PAYMENT-REQUIRED/);
    assert.equal(ok.headers.get('x-request-id'), 'paid-cors-1');
    const other = await postJson(url + CONTRAST, BLACK_ON_WHITE, { Origin: 'https://other.example', 'X-Request-Id': 'not valid!' });
    assert.equal(other.headers.get('access-control-allow-origin'), null);
    assert.match(other.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, 'an invalid caller id is replaced');
    // Every answer of a paid route, not only its 402: a refused body, a wrong method, a preflight.
    const invalid = await postJson(url + CONTRAST, { foreground: 'not a colour' }, { Origin: 'https://allowed.example', 'X-Request-Id': 'paid-cors-2' });
    assert.equal(invalid.status, 400);
    const wrongMethod = await fetch(url + CONTRAST, { method: 'PUT', headers: { Origin: 'https://allowed.example', 'X-Request-Id': 'paid-cors-3' } });
    assert.equal(wrongMethod.status, 405);
    for (const [res, id] of [[invalid, 'paid-cors-2'], [wrongMethod, 'paid-cors-3']] as const) {
      assert.equal(res.headers.get('access-control-allow-origin'), 'https://allowed.example');
      assert.match(res.headers.get('vary') ?? '', /origin/i);
      assert.match(res.headers.get('access-control-expose-headers') ?? '', /PAYMENT-REQUIRED/);
      assert.equal(res.headers.get('x-request-id'), id);
    }
    const preflight = await fetch(url + CONTRAST, {
      method: 'OPTIONS',
      headers: { Origin: 'https://allowed.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'payment-signature, sign-in-with-x, authorization' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://allowed.example');
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /SIGN-IN-WITH-X/i);
    assert.match(preflight.headers.get('vary') ?? '', /origin/i);
    assert.match(preflight.headers.get('x-request-id') ?? '', /^[\w-]{8,}$/, 'a preflight has its request id too');
  });

  await t.test('with TRUST_PROXY, the 402 names the public origin the proxy reports', async () => {
    const res = await postJson(url + CONTRAST, BLACK_ON_WHITE, { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.public.example', 'X-Forwarded-For': '198.51.100.7' });
    assert.equal(res.status, 402);
    const pr = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
    assert.equal(pr.resource.url, 'https://api.public.example' + CONTRAST);
    const services = (await (await fetch(url + '/openapi.json', { headers: { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.public.example' } })).json()) as { servers?: Array<{ url: string }> };
    if (services.servers) assert.ok(services.servers.some((s) => s.url.startsWith('https://api.public.example')), JSON.stringify(services.servers));
  });

  await t.test('a client past its free-route budget gets 429 rate_limited with Retry-After; others, probes and paid routes do not', async () => {
    const client = { 'X-Forwarded-For': '203.0.113.9' };
    await awayFromWindowEdge();
    for (let i = 0; i < 3; i++) assert.equal((await fetch(url + '/v1/services', { headers: client })).status, 200);
    const limited = await fetch(url + '/v1/services', { headers: client });
    assert.equal(limited.status, 429);
    const body = (await limited.json()) as { error: { code: string } };
    assert.equal(body.error.code, 'rate_limited');
    const retry = Number(limited.headers.get('retry-after'));
    assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
    // Another client (as our trusted proxy reports it) has its own budget.
    assert.equal((await fetch(url + '/v1/services', { headers: { 'X-Forwarded-For': '203.0.113.10' } })).status, 200);
    // Probes and paid routes are not limited.
    assert.equal((await fetch(url + '/healthz', { headers: client })).status, 200);
    assert.equal((await postJson(url + CONTRAST, BLACK_ON_WHITE, client)).status, 402);
    // The proxy appends the real address last: a client-supplied first entry does not buy a new budget.
    assert.equal((await fetch(url + '/v1/services', { headers: { 'X-Forwarded-For': '10.9.9.9, 203.0.113.9' } })).status, 429);
  });
});

test('rate limit on Redis is shared by two instances', { skip: REDIS_UP ? undefined : REDIS_SKIP }, async () => {
  const env = { REDIS_URL, TRUST_PROXY: '1', RATE_LIMIT_PER_MINUTE: '4' };
  const a = await rig(env);
  const b = await rig(env);
  // A fresh client address per run: counts of an earlier run in the same minute must not leak in.
  const client = { 'X-Forwarded-For': `198.18.${randomBytes(1)[0]}.${randomBytes(1)[0]}` };
  const statuses: number[] = [];
  await awayFromWindowEdge();
  for (const svc of [a, b, a, b, a, b]) statuses.push((await fetch(svc.service.url + '/v1/services', { headers: client })).status);
  assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
});
