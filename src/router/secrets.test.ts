import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isSecretKey, stripSecrets } from './secrets.js';

test('secret-like keys are recognized in any spelling, ordinary keys are kept', () => {
  for (const k of ['password', 'API-Key', 'apiKey', 'private_key', 'mnemonic', 'seed_phrase', 'Authorization', 'cookie', 'session_id', 'refreshToken', 'client_secret', 'pin', 'credentials'])
    assert.equal(isSecretKey(k), true, k);
  for (const k of ['agent', 'shipping_country', 'author', 'footprint', 'classname', 'locale', 'budget']) assert.equal(isSecretKey(k), false, k);
});

test('stripSecrets removes keys at any depth, inside arrays too, without touching the input', () => {
  const input = { agent: 'a', token: 't', deep: { list: [{ password: 'p', ok: 1 }, { nested: { api_key: 'k' } }] } };
  const { value, removed } = stripSecrets(input);
  assert.equal(removed, 3);
  assert.deepEqual(value, { agent: 'a', deep: { list: [{ ok: 1 }, { nested: {} }] } });
  assert.equal(input.token, 't');
});
