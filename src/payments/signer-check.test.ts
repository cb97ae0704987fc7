import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { recoverAddress, keccak256, toHex, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { SignerCheck, HALF_N } from './signer-check.js';

const N = HALF_N * 2n + 1n;
const hex64 = (n: bigint) => n.toString(16).padStart(64, '0');

/** What the chain's ecrecover says, through viem (the reference the cache must agree with). */
async function ecrecoverSays(digest: Hex, signature: Hex, address: string): Promise<boolean> {
  try {
    return (await recoverAddress({ hash: digest, signature })).toLowerCase() === address.toLowerCase();
  } catch {
    return false;
  }
}

const keyArb = fc.bigInt({ min: 1n, max: N - 1n }).map((k) => ('0x' + hex64(k)) as Hex);
const digestArb = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => keccak256(b));

test('a payer seen before is checked from the kept key, with the same answers as ecrecover', async () => {
  await fc.assert(
    fc.asyncProperty(keyArb, keyArb, digestArb, digestArb, async (k1, k2, d1, d2) => {
      const a = privateKeyToAccount(k1);
      const b = privateKeyToAccount(k2);
      const check = new SignerCheck({ maxKeys: 4 });
      const s1 = await a.sign({ hash: d1 });
      const s2 = await a.sign({ hash: d2 });
      assert.equal(check.signedBy(d1, s1, a.address), true); // recovered, key kept
      assert.equal(check.stats.recovered, 1);
      assert.equal(check.signedBy(d2, s2, a.address), true); // from the kept key
      assert.equal(check.stats.cached, 1);
      // The kept key never vouches for a signature over another digest …
      assert.equal(check.signedBy(d2, s1, a.address), d1 === d2);
      // … nor for someone else's signature claimed as a's.
      if (k1 !== k2) assert.equal(check.signedBy(d2, await b.sign({ hash: d2 }), a.address), false);
      // A flipped recovery bit recovers someone else on chain: refused from the cache too.
      const flipped = (s2.slice(0, 130) + (s2.endsWith('1b') ? '1c' : '1b')) as Hex;
      assert.equal(check.signedBy(d2, flipped, a.address), await ecrecoverSays(d2, flipped, a.address));
      assert.equal(check.signedBy(d2, flipped, a.address), false);
    }),
    { numRuns: 25 },
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
  for (const check of [new SignerCheck(), (() => { const c = new SignerCheck(); c.signedBy(digest, sig, a.address); return c; })()]) {
    assert.equal(check.signedBy(digest, malleated, a.address), false);
    assert.equal(check.signedBy(digest, sig, a.address), true);
  }
});

test('arbitrary signature bytes get the same answer as ecrecover (never a false yes)', async () => {
  const a = privateKeyToAccount(('0x' + hex64(987654321n)) as Hex);
  const warm = new SignerCheck();
  const seed = keccak256(toHex('seed'));
  warm.signedBy(seed, await a.sign({ hash: seed }), a.address);
  await fc.assert(
    fc.asyncProperty(
      fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
      fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
      fc.constantFrom('00', '01', '1b', '1c', '1d', 'ff'),
      digestArb,
      async (r, s, v, digest) => {
        const sig = ('0x' + hex64(r) + hex64(s) + v) as Hex;
        assert.equal(warm.signedBy(digest, sig, a.address), false);
        assert.equal(new SignerCheck().signedBy(digest, sig, a.address), false);
      },
    ),
    { numRuns: 200 },
  );
});

test('malformed input is a no, and the cache stays bounded', async () => {
  const check = new SignerCheck({ maxKeys: 2 });
  const digest = keccak256(toHex('x'));
  assert.equal(check.signedBy(digest, '0x1234' as Hex, '0x' + '11'.repeat(20)), false);
  assert.equal(check.signedBy('0x12' as Hex, ('0x' + '11'.repeat(65)) as Hex, '0x' + '11'.repeat(20)), false);
  const accounts = [1n, 2n, 3n].map((k) => privateKeyToAccount(('0x' + hex64(k)) as Hex));
  for (const acc of accounts) assert.equal(check.signedBy(digest, await acc.sign({ hash: digest }), acc.address), true);
  // The first payer was evicted: checking it again recovers (and still agrees).
  const before = check.stats.recovered;
  assert.equal(check.signedBy(digest, await accounts[0]!.sign({ hash: digest }), accounts[0]!.address), true);
  assert.equal(check.stats.recovered, before + 1);
});
