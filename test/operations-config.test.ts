/**
 * The operators' settings (CORS_ORIGINS, TRUST_PROXY, RATE_LIMIT_PER_MINUTE,
 * REDIS_URL, METRICS_TOKEN, SHUTDOWN_DRAIN_MS) and the facilitator credentials
 * (CDP_API_KEY_ID/SECRET, X402_FACILITATOR_HEADERS): defaults, and a bad value
 * stops start-up with one line naming the variable, never echoing a secret.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { generateJwt } from '@coinbase/cdp-sdk/auth';
import { ConfigError, loadConfig } from '../src/config.js';

test('defaults: CORS for any origin, no proxy trusted, 600 free requests a minute in memory, public metrics, 10 s drain', () => {
  const ops = loadConfig({}).operations;
  assert.deepEqual(ops, { corsOrigins: '*', trustProxy: false, rateLimitPerMinute: 600, redisUrl: undefined, metricsToken: undefined, shutdownDrainMs: 10_000 });
});

test('valid settings are read as given', () => {
  const ops = loadConfig({
    CORS_ORIGINS: 'https://a.example, http://localhost:3000',
    TRUST_PROXY: '1',
    RATE_LIMIT_PER_MINUTE: '120',
    REDIS_URL: 'redis://127.0.0.1:6379/2',
    METRICS_TOKEN: 'a-long-enough-metrics-token',
    SHUTDOWN_DRAIN_MS: '2500',
  }).operations;
  assert.deepEqual(ops.corsOrigins, ['https://a.example', 'http://localhost:3000']);
  assert.equal(ops.trustProxy, true);
  assert.equal(ops.rateLimitPerMinute, 120);
  assert.equal(loadConfig({ RATE_LIMIT_PER_MINUTE: '0' }).operations.rateLimitPerMinute, 0);
  assert.equal(ops.redisUrl, 'redis://127.0.0.1:6379/2');
  assert.equal(ops.shutdownDrainMs, 2500);
});

test('a bad value names its variable', () => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ CORS_ORIGINS: 'https://a.example/path' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: 'not a url' }, 'CORS_ORIGINS'],
    [{ TRUST_PROXY: 'yes' }, 'TRUST_PROXY'],
    [{ RATE_LIMIT_PER_MINUTE: 'many' }, 'RATE_LIMIT_PER_MINUTE'],
    [{ REDIS_URL: 'http://127.0.0.1:6379' }, 'REDIS_URL'],
    [{ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN'],
    [{ SHUTDOWN_DRAIN_MS: '-1' }, 'SHUTDOWN_DRAIN_MS'],
  ];
  for (const [env, variable] of cases) {
    assert.throws(
      () => loadConfig(env),
      (e: unknown) => e instanceof ConfigError && e.variable === variable && !e.message.includes('\n'),
      JSON.stringify(env),
    );
  }
});

const EXTERNAL = { X402_NETWORK: 'eip155:84532', X402_PAY_TO: '0x' + '1'.repeat(40), X402_FACILITATOR_URL: 'https://fac.example/x402, https://other.example' };
const authOf = (env: Record<string, string>) => loadConfig({ ...EXTERNAL, ...env }).payment!.facilitatorAuth;
/** A ConfigError naming `variable`, on one line, that does not contain `secret`. */
const quietError = (variable: string, secret: string) => (e: unknown) => e instanceof ConfigError && e.variable === variable && !e.message.includes('\n') && !e.message.includes(secret);

/** CDP's library mints a JWT with this secret (throws when it cannot). */
const mints = (apiKeySecret: string) => generateJwt({ apiKeyId: 'k', apiKeySecret, requestMethod: 'GET', requestHost: 'fac.example', requestPath: '/x402/supported' });

function ed25519Secret(): string {
  const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  return Buffer.concat([Buffer.from(jwk.d!, 'base64url'), Buffer.from(jwk.x!, 'base64url')]).toString('base64');
}

test('no facilitator credentials by default', () => {
  assert.deepEqual(authOf({}), {});
});

test("CDP keys: both formats CDP issues are accepted, in the form CDP's library signs with", async () => {
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const sec1 = ec.export({ format: 'pem', type: 'sec1' }) as string;
  const pkcs8 = ec.export({ format: 'pem', type: 'pkcs8' }) as string;
  const ed = ed25519Secret();
  // CDP's library imports only PKCS#8: the SEC1 PEM CDP hands out is converted.
  await assert.rejects(mints(sec1));
  for (const secret of [sec1, sec1.trim().replace(/\n/g, '\\n'), pkcs8, `  ${sec1}  `, ed]) {
    const auth = authOf({ CDP_API_KEY_ID: ' key-id ', CDP_API_KEY_SECRET: secret });
    assert.equal(auth.cdp?.apiKeyId, 'key-id');
    assert.ok(await mints(auth.cdp!.apiKeySecret), JSON.stringify(secret.slice(0, 30)));
  }
  assert.equal(authOf({ CDP_API_KEY_ID: 'k', CDP_API_KEY_SECRET: ed }).cdp?.apiKeySecret, ed);
});

test('CDP keys: one without the other names the missing one; a malformed secret stops start-up without echoing it', async () => {
  const ed = ed25519Secret();
  assert.throws(() => authOf({ CDP_API_KEY_ID: 'k' }), quietError('CDP_API_KEY_SECRET', 'k'));
  assert.throws(() => authOf({ CDP_API_KEY_SECRET: ed }), quietError('CDP_API_KEY_ID', ed));
  assert.throws(() => authOf({ CDP_API_KEY_ID: 'two words', CDP_API_KEY_SECRET: ed }), quietError('CDP_API_KEY_ID', ed));
  const mismatched = Buffer.concat([Buffer.from(ed, 'base64').subarray(0, 32), Buffer.from(ed25519Secret(), 'base64').subarray(32)]).toString('base64');
  const malformed = [
    'not-a-key-at-all',
    Buffer.alloc(32, 7).toString('base64'),
    mismatched,
    '-----BEGIN EC PRIVATE KEY-----\\nMHcCAQEEIBroken\\n-----END EC PRIVATE KEY-----',
    generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string,
    generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string,
  ];
  for (const secret of malformed) {
    assert.throws(() => authOf({ CDP_API_KEY_ID: 'k', CDP_API_KEY_SECRET: secret }), quietError('CDP_API_KEY_SECRET', secret.slice(0, 40).replace(/-----[A-Z ]+-----/, '')), secret.slice(0, 20));
    // …and CDP's library would not have signed with it either: start-up catches what every call would hit.
    await assert.rejects(mints(secret.replace(/\\n/g, '\n')));
  }
});

test('X402_FACILITATOR_HEADERS: static headers per facilitator origin', () => {
  const auth = authOf({ X402_FACILITATOR_HEADERS: JSON.stringify({ 'https://fac.example/': { 'X-API-Key': 'abc', 'X-Team': 't1' }, 'https://other.example': { 'Api-Key': 'def' } }) });
  assert.deepEqual(auth.headers, { 'https://fac.example': { 'X-API-Key': 'abc', 'X-Team': 't1' }, 'https://other.example': { 'Api-Key': 'def' } });
  assert.equal(auth.cdp, undefined);
});

test('X402_FACILITATOR_HEADERS: a bad value names the variable and never echoes a header value', () => {
  const secret = 'sk_live_do_not_print';
  const cases: Array<[string, Record<string, string>?]> = [
    [`{"https://fac.example": {"X-API-Key": "${secret}"`],
    [JSON.stringify(['https://fac.example'])],
    [JSON.stringify({ 'https://unlisted.example': { 'X-API-Key': secret } })],
    [JSON.stringify({ 'https://fac.example/x402': { 'X-API-Key': secret } })],
    [JSON.stringify({ 'fac.example': { 'X-API-Key': secret } })],
    [JSON.stringify({ 'https://fac.example': { 'X API Key': secret } })],
    [JSON.stringify({ 'https://fac.example': { 'X-API-Key': 42 } })],
    [JSON.stringify({ 'https://fac.example': { 'X-API-Key': `${secret}\r\nX-Evil: 1` } })],
    [JSON.stringify({ 'https://fac.example': { 'X-API-Key': secret, 'x-api-key': secret } })],
    [JSON.stringify({ 'https://fac.example': { 'Content-Type': 'text/plain' } })],
    [JSON.stringify({ 'https://fac.example': 'X-API-Key: abc' })],
    [JSON.stringify({ 'https://fac.example': { Authorization: `Bearer ${secret}` } }), { CDP_API_KEY_ID: 'k', CDP_API_KEY_SECRET: ed25519Secret() }],
  ];
  for (const [value, extra] of cases) {
    assert.throws(() => authOf({ X402_FACILITATOR_HEADERS: value, ...extra }), quietError('X402_FACILITATOR_HEADERS', secret), value);
  }
  // Set for the devnet rail, where it could never apply.
  assert.throws(() => loadConfig({ X402_FACILITATOR_HEADERS: '{}' }), quietError('X402_FACILITATOR_HEADERS', '{}'));
});

test('OPERATOR_CONTACT: an http(s) URL or an e-mail address (bare or mailto:), else one line naming it; unset: none', () => {
  assert.equal(loadConfig({}).operatorContact, undefined);
  assert.deepEqual(loadConfig({ OPERATOR_CONTACT: 'https://example.com/contact' }).operatorContact, { url: 'https://example.com/contact' });
  assert.deepEqual(loadConfig({ OPERATOR_CONTACT: 'ops@example.com' }).operatorContact, { email: 'ops@example.com' });
  assert.deepEqual(loadConfig({ OPERATOR_CONTACT: 'mailto:ops@example.com' }).operatorContact, { email: 'ops@example.com' });
  for (const bad of ['example.com', 'ftp://example.com', 'ops@', 'javascript:alert(1)']) {
    assert.throws(() => loadConfig({ OPERATOR_CONTACT: bad }), (e: unknown) => e instanceof ConfigError && e.variable === 'OPERATOR_CONTACT' && !e.message.includes('\n'), bad);
  }
});
