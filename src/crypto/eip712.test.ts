import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { bytesToHex, getAddress, hashTypedData, type Hex } from 'viem';
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from '../payments/authorization.js';
import { typedDataDigest } from './eip712.js';

const TRANSFER = TRANSFER_WITH_AUTHORIZATION_TYPES;

const bytesHex = (n: number) => fc.uint8Array({ minLength: n, maxLength: n }).map((b) => bytesToHex(b));
/** An address as buyers write it: lower case or EIP-55 checksummed. */
const address = fc.tuple(bytesHex(20), fc.boolean()).map(([a, checksummed]) => (checksummed ? getAddress(a) : a));
const uint256 = fc.bigInt({ min: 0n, max: (1n << 256n) - 1n });

test('a buyer\'s EIP-3009 authorization: the same digest as viem hashTypedData (any domain, any values)', () => {
  fc.assert(
    fc.property(
      fc.record({
        name: fc.string({ unit: 'binary', maxLength: 40 }),
        version: fc.string({ maxLength: 8 }),
        chainId: fc.integer({ min: 1, max: 2 ** 40 }),
        verifyingContract: address,
      }),
      fc.record({ from: address, to: address, value: uint256, validAfter: uint256, validBefore: uint256, nonce: bytesHex(32) }),
      (domain, message) => {
        const ours = bytesToHex(typedDataDigest(domain, TRANSFER, 'TransferWithAuthorization', message));
        const viem = hashTypedData({ domain: { ...domain, verifyingContract: domain.verifyingContract as Hex }, types: TRANSFER, primaryType: 'TransferWithAuthorization', message: message as never });
        assert.equal(ours, viem);
      },
    ),
    { numRuns: 300 },
  );
});

test('an address viem refuses (mixed case, wrong checksum; wrong length) is refused here too', () => {
  const good = getAddress('0x' + 'ab'.repeat(20));
  const badChecksum = good.slice(0, 2) + (good[2] === good[2]!.toUpperCase() ? good[2]!.toLowerCase() : good[2]!.toUpperCase()) + good.slice(3);
  const domain = { name: 'USD Coin', version: '2', chainId: 8453, verifyingContract: good };
  const message = { from: good, to: good, value: 1n, validAfter: 0n, validBefore: 2n, nonce: '0x' + '00'.repeat(32) };
  assert.doesNotThrow(() => typedDataDigest(domain, TRANSFER, 'TransferWithAuthorization', message));
  for (const from of [badChecksum, '0x' + 'ab'.repeat(19), 'nope']) {
    assert.throws(() => hashTypedData({ domain: domain as never, types: TRANSFER, primaryType: 'TransferWithAuthorization', message: { ...message, from } as never }));
    assert.throws(() => typedDataDigest(domain, TRANSFER, 'TransferWithAuthorization', { ...message, from }), TypeError);
  }
});
