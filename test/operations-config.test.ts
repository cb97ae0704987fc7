/**
 * The operators' settings (CORS_ORIGINS, TRUST_PROXY, RATE_LIMIT_PER_MINUTE,
 * REDIS_URL, METRICS_TOKEN, SHUTDOWN_DRAIN_MS): defaults, and a bad value
 * stops start-up with one line naming the variable.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../src/config.js';

test('defaults: CORS for any origin, no proxy trusted, 600 free requests a minute in memory, public metrics, 10 s drain', () => {
  const ops = loadConfig({}).operations;
  assert.deepEqual(ops, { corsOrigins: '*', trustProxy: false, rateLimitPerMinute: 600, redisUrl: undefined, metricsToken: undefined, shutdownDrainMs: 10_000 });
});

test('valid settings are read as given', () => {
  const ops = loadConfig({
    CORS_ORIGINS: 'https://a.example, http://localhost:3000',
    TRUST_PROXY: '1',
    RATE_LIMIT_PER_MINUTE: '0',
    REDIS_URL: 'redis://127.0.0.1:6379/2',
    METRICS_TOKEN: 'a-long-enough-metrics-token',
    SHUTDOWN_DRAIN_MS: '2500',
  }).operations;
  assert.deepEqual(ops.corsOrigins, ['https://a.example', 'http://localhost:3000']);
  assert.equal(ops.trustProxy, true);
  assert.equal(ops.rateLimitPerMinute, 0);
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
