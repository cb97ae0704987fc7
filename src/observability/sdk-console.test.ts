/**
 * The x402 SDK's console lines as JSON log lines: a real SDK warning (its
 * resource server failing to fetch /supported) reaches our logger tagged
 * x402-sdk with every configured secret cut out; console calls from our own
 * code are left alone; the original console comes back when routing stops.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { x402ResourceServer, type FacilitatorClient } from '@x402/core/server';
import { routeSdkConsole, secretsOf } from './sdk-console.js';

const CDP_SECRET = 'cdp-secret-0123456789abcdef';
const HEADER_KEY = 'header-api-key-98765';
const QUERY_KEY = 'query-key-abcdef';

test('the SDK\'s console warning becomes one JSON line tagged x402-sdk, secrets cut out; other console calls are untouched', async () => {
  const lines: Array<Record<string, unknown>> = [];
  const out = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  const log = pino({ level: 'info' }, out);
  const secrets = secretsOf({
    facilitatorUrls: [`https://facilitator.example/x402?key=${QUERY_KEY}`],
    facilitatorAuth: { cdp: { apiKeyId: 'organizations/o/apiKeys/k', apiKeySecret: CDP_SECRET }, headers: { 'https://facilitator.example': { 'X-API-Key': HEADER_KEY } } },
    rpcUrl: 'https://base.example/v2/rpc-path-key-123',
  });
  const realWarn = console.warn;
  const passedThrough: string[] = [];
  const original = (...args: unknown[]) => void passedThrough.push(args.join(' '));
  console.warn = original;
  const stop = routeSdkConsole(log, secrets);
  try {
    // A facilitator whose error quotes back what it was sent.
    const leaky = {
      getSupported: () => Promise.reject(new Error(`401: bad key ${CDP_SECRET} / ${HEADER_KEY} for https://facilitator.example/x402?key=${QUERY_KEY} via https://user:pw@proxy.example/`)),
      verify: () => Promise.reject(new Error('unused')),
      settle: () => Promise.reject(new Error('unused')),
    } as unknown as FacilitatorClient;
    await assert.rejects(new x402ResourceServer(leaky).initialize());
    console.warn('our own warning'); // not the SDK's: printed as before, not routed
  } finally {
    stop();
    const restored = console.warn;
    console.warn = realWarn;
    assert.equal(restored, original, 'console restored');
  }
  assert.deepEqual(passedThrough, ['our own warning']);
  await new Promise((r) => setImmediate(r));
  assert.equal(lines.length, 1, JSON.stringify(lines));
  const [line] = lines;
  assert.equal(line!.source, 'x402-sdk');
  assert.equal(line!.level, 40);
  const msg = String(line!.msg);
  assert.match(msg, /^Failed to fetch supported kinds from facilitator: Error: 401: bad key \[redacted\]/);
  for (const secret of [CDP_SECRET, HEADER_KEY, QUERY_KEY, 'user:pw']) assert.ok(!msg.includes(secret), `${secret} in ${msg}`);
});
