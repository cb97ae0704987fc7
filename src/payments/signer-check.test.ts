import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { recoverAddress, keccak256, toHex, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { signedBy, HALF_N } from './signer-check.js';

const N = HALF_N * 2n + 1n;
const hex64 = (n: bigint) => n.toString(16).padStart(64, '0');

/** What the chain's ecrecover says, through viem (@noble/curves): the reference the native recovery must agree with. */
async function ecrecoverSays(digest: Hex, signature: Hex, address: string): Promise<boolean> {
  try {
    return (await recoverAddress({ hash: digest, signature })).toLowerCase() === address.toLowerCase();
  } catch {
    return false;
  }
}

const keyArb = fc.bigInt({ min: 1n, max: N - 1n }).map((k) => ('0x' + hex64(k)) as Hex);
const digestArb = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => keccak256(b));

test('a signature is checked with the same answers as ecrecover', async () => {
  await fc.assert(
    fc.asyncProperty(keyArb, keyArb, digestArb, digestArb, async (k1, k2, d1, d2) => {
      const a = privateKeyToAccount(k1);
      const b = privateKeyToAccount(k2);
      const s1 = await a.sign({ hash: d1 });
      const s2 = await a.sign({ hash: d2 });
      assert.equal(signedBy(d1, s1, a.address), true);
      assert.equal(signedBy(d2, s2, a.address.toLowerCase()), true);
      // Never vouches for a signature over another digest …
      assert.equal(signedBy(d2, s1, a.address), d1 === d2);
      // … nor for someone else's signature claimed as a's.
      if (k1 !== k2) assert.equal(signedBy(d2, await b.sign({ hash: d2 }), a.address), false);
      // A flipped recovery bit recovers someone else on chain: refused.
      const flipped = (s2.slice(0, 130) + (s2.endsWith('1b') ? '1c' : '1b')) as Hex;
      assert.equal(signedBy(d2, flipped, a.address), await ecrecoverSays(d2, flipped, a.address));
      assert.equal(signedBy(d2, flipped, a.address), false);
      // v as 0/1 (the raw parity) means the same as 27/28.
      const raw = (s2.slice(0, 130) + (s2.endsWith('1b') ? '00' : '01')) as Hex;
      assert.equal(signedBy(d2, raw, a.address), true);
    }),
    { numRuns: 40 },
  );
});

test('malleated (high-s) copies are refused whether or not the payer is known', async () => {
  const a = privateKeyToAccount(('0x' + hex64(123456789n)) as Hex);
  const digest = keccak256(toHex('malleable'));
  const sig = await a.sign({ hash: digest });
  const s = BigInt('0x' + sig.slice(66, 130));
  const v = sig.endsWith('1b') ? '1c' : '1b';
  const malleated = ('0x' + sig.slice(2, 66) + hex64(N - s) + v) as Hex;
  assert.equal(await ecrecoverSays(digest, malleated, a.address), true, 'the chain would accept it: that is why it is refused');
  assert.equal(signedBy(digest, malleated, a.address), false);
  assert.equal(signedBy(digest, sig, a.address), true);
});

test('arbitrary signature bytes get the same answer as ecrecover (never a false yes)', async () => {
  const a = privateKeyToAccount(('0x' + hex64(987654321n)) as Hex);
  await fc.assert(
    fc.asyncProperty(
      fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
      fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
      fc.constantFrom('00', '01', '1b', '1c', '1d', 'ff'),
      digestArb,
      async (r, s, v, digest) => {
        const sig = ('0x' + hex64(r) + hex64(s) + v) as Hex;
        assert.equal(signedBy(digest, sig, a.address), false);
      },
    ),
    { numRuns: 200 },
  );
});

test('malformed input is a no', () => {
  const digest = keccak256(toHex('x'));
  const someone = '0x' + '11'.repeat(20);
  assert.equal(signedBy(digest, '0x1234' as Hex, someone), false);
  assert.equal(signedBy('0x12' as Hex, ('0x' + '11'.repeat(65)) as Hex, someone), false);
  // r = 0, s = 0, and r ≥ n are refused before any recovery.
  assert.equal(signedBy(digest, ('0x' + '00'.repeat(64) + '1b') as Hex, someone), false);
  assert.equal(signedBy(digest, ('0x' + 'ff'.repeat(32) + '01'.repeat(32) + '1b') as Hex, someone), false);
});
