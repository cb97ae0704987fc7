/**
 * Facilitator credentials on the real devnet, behind a proxy that checks CDP's
 * JWT on every request as CDP does (test/support/cdp-jwt-proxy.ts).
 *
 * - With CDP_API_KEY_ID/SECRET, for both key formats CDP issues (ECDSA PEM
 *   pasted with literal "\n", Ed25519 base64), the service starts, a paid call
 *   settles once, and every facilitator call (supported, verify, settle)
 *   carried its own JWT minted for exactly that request; none reused.
 * - With a different key under the same id the facilitator refuses /supported:
 *   the service starts but its paid routes answer 503 facilitator_unavailable,
 *   and nothing is charged. The same when the key is revoked while running:
 *   /verify is refused, 503, nothing charged.
 * - X402_FACILITATOR_HEADERS reach their own origin only.
 * - Neither the secret nor a JWT nor a static header value reaches the logs,
 *   even when the facilitator quotes the request's credentials back.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { Writable } from 'node:stream';
import { startDevnet, type DevnetAccount } from '../devnet/index.js';
import { loadConfig, type PaymentConfig } from '../src/config.js';
import { createLogger, startService, type RunningService } from '../src/service.js';
import { facilitatorHttpClient } from '../src/payments/facilitator-http.js';
import { startCdpJwtProxy, type CdpJwtProxy } from './support/cdp-jwt-proxy.js';
import { balanceOf, BLACK_ON_WHITE, CONTRAST, decodePaymentResponseHeader, devnetEnv, payingFetch, tempDir, transferLogs, type Devnet } from './support/harness.js';

/** A CDP API key as CDP hands it out, in the form an operator pastes it into an env file. */
interface CdpKey {
  /** CDP_API_KEY_SECRET's value. */
  secret: string;
  publicKey: KeyObject;
  /** Pieces of key material that must never be printed (the secret in every encoding we hold). */
  material: string[];
}

/** ECDSA P-256, "-----BEGIN EC PRIVATE KEY-----", its newlines written as literal \n (one env line). */
function ecdsaKey(): CdpKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const sec1 = privateKey.export({ format: 'pem', type: 'sec1' }) as string;
  const pkcs8 = privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  return { secret: sec1.trim().replace(/\n/g, '\\n'), publicKey, material: [sec1, pkcs8].flatMap(pemBodyLines) };
}

/** Ed25519: base64 of seed ‖ public key (64 bytes). */
function ed25519Key(): CdpKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  const seed = Buffer.from(jwk.d!, 'base64url');
  const secret = Buffer.concat([seed, Buffer.from(jwk.x!, 'base64url')]).toString('base64');
  return { secret, publicKey, material: [secret, seed.toString('base64'), seed.toString('base64url'), seed.toString('hex')] };
}

function pemBodyLines(pem: string): string[] {
  return pem.split('\n').filter((l) => l && !l.startsWith('-----'));
}

/**
 * Everything the service prints: its JSON log, and what the x402 SDK writes to
 * the console itself (it reports a failed /supported with console.error).
 */
function logCapture() {
  const text: string[] = [];
  const out = new Writable({
    write(chunk, _enc, done) {
      text.push(String(chunk));
      done();
    },
  });
  return { log: createLogger('debug', out as unknown as NodeJS.WriteStream), text: () => text.join('') + consoleText.join('\n') };
}

const consoleText: string[] = [];
const consoleOriginal = { error: console.error, warn: console.warn, log: console.log };
before(() => {
  for (const k of ['error', 'warn', 'log'] as const) console[k] = (...args: unknown[]) => void consoleText.push(args.map((a) => (a instanceof Error ? `${a.message} ${String(a.cause ?? '')}` : String(a))).join(' '));
});
after(() => Object.assign(console, consoleOriginal));

/** No piece of key material (nor its first 16 characters) and no JWT in `text`. */
function assertNoSecrets(text: string, key: CdpKey, jwts: Array<string | undefined>) {
  for (const m of key.material) assert.ok(!text.includes(m.slice(0, 16)), 'key material in the log');
  for (const jwt of jwts) if (jwt) assert.ok(!text.includes(jwt.split('.')[2]!.slice(0, 16)), 'a JWT in the log');
  assert.doesNotMatch(text, /eyJ[A-Za-z0-9_-]{10,}/, 'a JWT in the log');
}

let devnet: Devnet;
before(async () => {
  devnet = await startDevnet();
});
after(async () => devnet?.stop());

interface Started {
  proxy: CdpJwtProxy;
  service: RunningService;
  logs: () => string;
  close(): Promise<void>;
}

async function start(trusted: CdpKey, configured: CdpKey, env: Record<string, string> = {}): Promise<Started> {
  const keyId = randomUUID();
  const proxy = await startCdpJwtProxy(devnet.facilitatorUrl, { cdp: { keyId, publicKey: trusted.publicKey }, echoHeaders: true });
  const capture = logCapture();
  const config = loadConfig(devnetEnv(devnet, proxy.url, { DATA_DIR: tempDir(), CDP_API_KEY_ID: keyId, CDP_API_KEY_SECRET: configured.secret, LOG_LEVEL: 'debug', ...env }));
  const service = await startService(config, { log: capture.log });
  return {
    proxy,
    service,
    logs: capture.text,
    async close() {
      await service.close();
      await proxy.close();
    },
  };
}

function buyContrast(service: RunningService, buyer: DevnetAccount) {
  return payingFetch(devnet, buyer)(service.url + CONTRAST, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(BLACK_ON_WHITE) });
}

async function chargesOf(buyer: DevnetAccount) {
  return { balance: await balanceOf(devnet, buyer.address), transfers: (await transferLogs(devnet, { from: buyer.address })).length };
}

for (const [format, makeKey, buyerIndex] of [
  ['ECDSA (PEM with literal \\n)', ecdsaKey, 0],
  ['Ed25519 (base64)', ed25519Key, 1],
] as const) {
  test(`${format}: every facilitator call carries its own CDP JWT for exactly that request, and a paid call settles once`, async () => {
    const key = makeKey();
    const buyer = devnet.buyers[buyerIndex]!;
    const rig = await start(key, key);
    try {
      assert.equal(rig.service.rail.ready, true, 'the facilitator accepted /supported at start-up');
      const before = await chargesOf(buyer);
      const res = await buyContrast(rig.service, buyer);
      assert.equal(res.status, 200, await res.clone().text());
      const receipt = decodePaymentResponseHeader(res.headers.get('payment-response')!);
      assert.equal(receipt.success, true);
      const after = await chargesOf(buyer);
      assert.equal(after.transfers - before.transfers, 1, 'one Transfer on chain');
      assert.ok(after.balance < before.balance);

      const { requests, refused } = rig.proxy;
      assert.deepEqual(refused, [], 'nothing refused');
      assert.deepEqual(
        [...new Set(requests.map((r) => `${r.method} ${r.path}`))].sort(),
        ['GET /supported', 'POST /settle', 'POST /verify'],
      );
      const jwts = requests.map((r) => r.jwt);
      assert.ok(jwts.every(Boolean), 'every request carried a JWT');
      assert.equal(new Set(jwts).size, jwts.length, 'no JWT reused');
      await rig.service.close();
      assertNoSecrets(rig.logs(), key, jwts);
    } finally {
      await rig.close();
    }
  });
}

test('a different key under the same id: /supported is refused, the service starts but its paid routes answer 503 and nothing is charged', async () => {
  const real = ecdsaKey();
  const wrong = ecdsaKey();
  const buyer = devnet.buyers[2]!;
  const rig = await start(real, wrong);
  try {
    assert.equal(rig.service.rail.ready, false);
    assert.ok(rig.proxy.refused.length >= 1);
    assert.equal(rig.proxy.accepted.length, 0);
    assert.deepEqual([...new Set(rig.proxy.refused.map((r) => `${r.method} ${r.path}: ${r.reason}`))], ['GET /supported: bad signature']);
    const before = await chargesOf(buyer);
    const res = await buyContrast(rig.service, buyer);
    assert.equal(res.status, 503);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'facilitator_unavailable');
    assert.deepEqual(await chargesOf(buyer), before, 'not charged');
    await rig.service.close();
    const logs = rig.logs();
    // The refusal is reported with the facilitator's answer; the credentials that answer quoted back are not.
    assert.match(logs, /getSupported failed \(401\).*Bearer \[redacted\]/);
    assertNoSecrets(logs, wrong, rig.proxy.requests.map((r) => r.jwt));
    assertNoSecrets(logs, real, []);
  } finally {
    await rig.close();
  }
});

test('the key revoked while running: /verify is refused, the paid call answers 503 and nothing is charged', async () => {
  const key = ed25519Key();
  const buyer = devnet.buyers[3]!;
  const rig = await start(key, key);
  try {
    assert.equal(rig.service.rail.ready, true);
    rig.proxy.trust(ed25519Key().publicKey);
    const before = await chargesOf(buyer);
    const res = await buyContrast(rig.service, buyer);
    assert.equal(res.status, 503, await res.clone().text());
    const body = await res.text();
    assert.doesNotMatch(body, /eyJ|Bearer [A-Za-z0-9]/, 'no credential in the answer');
    assert.deepEqual(await chargesOf(buyer), before, 'not charged');
    assert.deepEqual(rig.proxy.refused.map((r) => `${r.method} ${r.path}`), ['POST /verify']);
    assert.equal(rig.proxy.requests.filter((r) => r.path === '/settle').length, 0, 'never asked to settle');
    await rig.service.close();
    assertNoSecrets(rig.logs(), key, rig.proxy.requests.map((r) => r.jwt));
  } finally {
    await rig.close();
  }
});

test('X402_FACILITATOR_HEADERS reach their own origin only, on every call', async () => {
  const a = await startCdpJwtProxy(devnet.facilitatorUrl);
  const b = await startCdpJwtProxy(devnet.facilitatorUrl);
  const buyer = devnet.buyers[0]!;
  const capture = logCapture();
  const apiKey = `key-for-a-${randomUUID()}`;
  const env = devnetEnv(devnet, `${a.url},${b.url}`, { DATA_DIR: tempDir(), X402_FACILITATOR_HEADERS: JSON.stringify({ [a.url]: { 'X-API-Key': apiKey } }) });
  const config = loadConfig(env);
  const service = await startService(config, { log: capture.log });
  try {
    const res = await buyContrast(service, buyer);
    assert.equal(res.status, 200);
    // B, configured from the same settings, is asked too: it must not see A's key.
    await facilitatorHttpClient(b.url, config.payment!).getSupported();
    assert.deepEqual([...new Set(a.requests.map((r) => `${r.method} ${r.path}`))].sort(), ['GET /supported', 'POST /settle', 'POST /verify']);
    for (const r of a.requests) assert.equal(r.headers['x-api-key'], apiKey, `${r.method} ${r.path} to A`);
    assert.ok(b.requests.length >= 1);
    for (const r of b.requests) assert.equal(r.headers['x-api-key'], undefined, `${r.method} ${r.path} to B`);
    assert.ok(!capture.text().includes(apiKey.slice(0, 16)), 'the header value is not logged');
  } finally {
    await service.close();
    await a.close();
    await b.close();
  }
});

test('a facilitator quoting the credentials back in an error: the error the service sees has them cut out', async () => {
  const key = ecdsaKey();
  const keyId = randomUUID();
  // The proxy expects a different key: it refuses, quoting Authorization and X-API-Key back.
  const proxy = await startCdpJwtProxy(devnet.facilitatorUrl, { cdp: { keyId, publicKey: ecdsaKey().publicKey }, echoHeaders: true });
  const apiKey = `static-${randomUUID()}`;
  const payment: Pick<PaymentConfig, 'facilitatorTimeoutMs' | 'facilitatorAuth'> = {
    facilitatorTimeoutMs: 3000,
    facilitatorAuth: loadConfig(devnetEnv(devnet, proxy.url, { CDP_API_KEY_ID: keyId, CDP_API_KEY_SECRET: key.secret, X402_FACILITATOR_HEADERS: JSON.stringify({ [proxy.url]: { 'X-API-Key': apiKey } }) })).payment!.facilitatorAuth,
  };
  try {
    const err = (await facilitatorHttpClient(proxy.url, payment).getSupported().then(
      () => assert.fail('refused'),
      (e: unknown) => e,
    )) as Error;
    assert.match(err.message, /401/);
    assert.match(err.message, /redacted/);
    const sent = proxy.requests[0]!;
    assert.equal(sent.headers['x-api-key'], apiKey);
    assert.ok(!err.message.includes(apiKey.slice(0, 8)), err.message);
    assert.ok(!err.message.includes(sent.jwt!.slice(0, 16)), err.message);
  } finally {
    await proxy.close();
  }
});
