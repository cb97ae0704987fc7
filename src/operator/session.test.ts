import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OperatorSessions, SESSION_SECONDS } from './session.js';

const TOKEN = 'a-sixteen-plus-character-admin-token';

test('a session is valid until it expires, only under the token that issued it, and never carries the token', () => {
  const sessions = new OperatorSessions(TOKEN);
  const now = 1_800_000_000_000;
  const value = sessions.issue(now);
  assert.ok(!value.includes(TOKEN));
  assert.equal(sessions.valid(value, now), true);
  assert.equal(sessions.valid(value, now + SESSION_SECONDS * 1000 - 1000), true);
  assert.equal(sessions.valid(value, now + SESSION_SECONDS * 1000), false, 'expired');
  assert.equal(new OperatorSessions(`${TOKEN}-rotated`).valid(value, now), false, 'a new ADMIN_TOKEN ends every session');
});

test('a forged or malformed session is refused: a later expiry with the old MAC, a truncated MAC, the token itself, nothing', () => {
  const sessions = new OperatorSessions(TOKEN);
  const now = 1_800_000_000_000;
  const [version, expires, mac] = sessions.issue(now).split('.');
  assert.equal(sessions.valid(`${version}.${Number(expires) + 86_400}.${mac}`, now), false);
  assert.equal(sessions.valid(`${version}.${expires}.${mac!.slice(0, -1)}`, now), false);
  assert.equal(sessions.valid(`v2.${expires}.${mac}`, now), false);
  for (const v of [TOKEN, '', undefined, `v1.${expires}.${'A'.repeat(43)}`]) assert.equal(sessions.valid(v, now), false, String(v));
});

test('the cookie: HttpOnly, SameSite=Strict, scoped to /admin, Secure only over https; clearing it expires it', () => {
  const sessions = new OperatorSessions(TOKEN);
  assert.equal(sessions.cookie('v', false), `operator_session=v; Path=/admin; Max-Age=${SESSION_SECONDS}; HttpOnly; SameSite=Strict`);
  assert.equal(sessions.cookie('v', true), `operator_session=v; Path=/admin; Max-Age=${SESSION_SECONDS}; HttpOnly; SameSite=Strict; Secure`);
  assert.equal(OperatorSessions.clear(true), 'operator_session=; Path=/admin; Max-Age=0; HttpOnly; SameSite=Strict; Secure');
});
