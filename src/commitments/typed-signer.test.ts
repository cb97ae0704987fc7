import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import {
  BOUND_OFFER_TYPES,
  BOUND_RECEIPT_TYPES,
  OFFER_BINDING_DOMAIN,
  OFFER_DOMAIN,
  OFFER_TYPES,
  RECEIPT_BINDING_DOMAIN,
  RECEIPT_DOMAIN,
  RECEIPT_TYPES,
  STEP_DOMAIN,
  STEP_TYPES,
} from './formats.js';
import { createTypedSigner } from './typed-signer.js';

const KINDS = [
  { domain: RECEIPT_DOMAIN, types: RECEIPT_TYPES, primaryType: 'Receipt' },
  { domain: RECEIPT_BINDING_DOMAIN, types: BOUND_RECEIPT_TYPES, primaryType: 'BoundReceipt' },
  { domain: OFFER_DOMAIN, types: OFFER_TYPES, primaryType: 'Offer' },
  { domain: OFFER_BINDING_DOMAIN, types: BOUND_OFFER_TYPES, primaryType: 'BoundOffer' },
  { domain: STEP_DOMAIN, types: STEP_TYPES, primaryType: 'Step' },
] as const;

const value = (type: string) =>
  type === 'string'
    ? fc.string({ unit: 'binary', maxLength: 80 })
    : type === 'uint256'
      ? fc.bigInt({ min: 0n, max: (1n << 256n) - 1n })
      : fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => `0x${Buffer.from(b).toString('hex')}`);

test('every signed type: the same signature as viem signTypedData, byte for byte (any key, any field values)', async () => {
  for (const kind of KINDS) {
    const fields = (kind.types as Record<string, ReadonlyArray<{ name: string; type: string }>>)[kind.primaryType]!;
    const message = fc.record(Object.fromEntries(fields.map((f) => [f.name, value(f.type)])));
    await fc.assert(
      fc.asyncProperty(message, fc.constant(null).map(() => generatePrivateKey()), async (m, key) => {
        const ours = createTypedSigner(key).sign(kind.domain, kind.types, kind.primaryType, m);
        const viem = await privateKeyToAccount(key).signTypedData({ domain: kind.domain, types: kind.types, primaryType: kind.primaryType, message: m } as never);
        assert.equal(ours, viem, kind.primaryType);
      }),
      { numRuns: 40 },
    );
  }
});

test('values that are not of their field type are refused, not signed', () => {
  const s = createTypedSigner(generatePrivateKey());
  const ok = { executionId: 'e', step: 1n, capabilityId: 'c', route: 'r', inputSha256: `0x${'00'.repeat(32)}`, outputSha256: `0x${'11'.repeat(32)}` };
  assert.match(s.sign(STEP_DOMAIN, STEP_TYPES, 'Step', ok), /^0x[0-9a-f]{130}$/);
  assert.throws(() => s.sign(STEP_DOMAIN, STEP_TYPES, 'Step', { ...ok, step: -1n }), /uint256/);
  assert.throws(() => s.sign(STEP_DOMAIN, STEP_TYPES, 'Step', { ...ok, inputSha256: '0x12' }), /bytes32/);
  assert.throws(() => s.sign(STEP_DOMAIN, STEP_TYPES, 'Step', { ...ok, route: 7 }), /string/);
});
