/**
 * The signing key's configuration and the devnet's persisted key; receipts
 * are deterministic for their facts and each signed field counts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ConfigError, loadConfig } from '../config.js';
import { devnetSigningKey } from '../../devnet/signing-key.js';
import { createCommitmentSigner } from './signer.js';
import { verifyReceipt } from './verify.js';

test('X402_SIGNING_KEY: a 32-byte hex key, with or without 0x; anything else stops start-up with one line that does not echo it', () => {
  const key = generatePrivateKey();
  assert.equal(loadConfig({ X402_SIGNING_KEY: key }).signingKey, key);
  assert.equal(loadConfig({ X402_SIGNING_KEY: key.slice(2).toUpperCase() }).signingKey, key);
  assert.equal(loadConfig({}).signingKey, undefined);
  for (const bad of ['0x1234', 'zz'.repeat(32), '0x' + '0'.repeat(64), '0x' + 'f'.repeat(64)]) {
    assert.throws(() => loadConfig({ X402_SIGNING_KEY: bad }), (e: unknown) => e instanceof ConfigError && e.variable === 'X402_SIGNING_KEY' && !e.message.includes(bad));
  }
});

test('the devnet keeps its signing key in devnet.json across restarts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sigkey-'));
  const file = join(dir, 'devnet.json');
  const fresh = devnetSigningKey(file);
  assert.match(fresh, /^0x[0-9a-f]{64}$/);
  writeFileSync(file, JSON.stringify({ network: 'eip155:31337', signingKey: fresh }));
  assert.equal(devnetSigningKey(file), fresh);
  writeFileSync(file, '{not json');
  assert.notEqual(devnetSigningKey(file), fresh);
});

test('a receipt is a function of its facts; changing any signed fact breaks it', async () => {
  const key = generatePrivateKey();
  const signer = createCommitmentSigner(key);
  const facts = {
    resourceUrl: 'https://api.example/x402/v1/thing',
    network: 'eip155:8453',
    payer: privateKeyToAccount(generatePrivateKey()).address,
    transaction: '0x' + 'ab'.repeat(32),
    amount: '1000',
    issuedAt: 1_800_000_000,
    requestFingerprint: 'cd'.repeat(32),
    responseBody: '{"ok":true}',
  };
  const a = await createCommitmentSigner(key).receipt(facts);
  assert.deepEqual(await signer.receipt({ ...facts }), a, 'same facts, same signatures (RFC 6979)');
  const settled = { success: true, transaction: facts.transaction, network: facts.network, payer: facts.payer, extensions: { 'offer-receipt': a } };
  const ok = await verifyReceipt({ paymentResponse: settled, responseBody: facts.responseBody, request: { fingerprint: facts.requestFingerprint }, signer: signer.address });
  assert.deepEqual(ok.problems, []);
  // Each signed payload field, edited after signing.
  for (const [part, field, value] of [
    ['receipt', 'resourceUrl', 'https://evil.example/x'],
    ['receipt', 'issuedAt', 1],
    ['receipt', 'payer', facts.transaction.slice(0, 42)],
    ['binding', 'amount', '1'],
    ['binding', 'requestFingerprint', '0x' + 'ee'.repeat(32)],
  ] as const) {
    const edited = structuredClone(settled) as any;
    edited.extensions['offer-receipt'].info[part].payload[field] = value;
    const r = await verifyReceipt({ paymentResponse: edited, responseBody: facts.responseBody, signer: signer.address });
    assert.equal(r.ok, false, `${part}.${field}`);
  }
  // A settlement that disagrees with the receipt it carries.
  const other = await verifyReceipt({ paymentResponse: { ...settled, transaction: '0x' + '12'.repeat(32) }, responseBody: facts.responseBody, signer: signer.address });
  assert.match(other.problems.join(' '), /transaction/);
  assert.match((await verifyReceipt({ paymentResponse: { success: true }, responseBody: '', signer: signer.address })).problems[0]!, /no extensions/);
});
