/**
 * Our base58 against @solana/kit's on arbitrary bytes (leading zero bytes
 * included) and arbitrary text (outside the alphabet included): the same
 * text out, the same bytes or the same refusal in.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { getBase58Decoder, getBase58Encoder } from '@solana/kit';
import { fromBase58, toBase58 } from './base58.js';

const kitText = getBase58Decoder();
const kitBytes = getBase58Encoder();

const bytes = fc.tuple(fc.nat({ max: 4 }), fc.uint8Array({ maxLength: 80 })).map(([zeros, rest]) => new Uint8Array([...new Array<number>(zeros).fill(0), ...rest]));

test('bytes → text: the same as @solana/kit, and back to the same bytes', () => {
  fc.assert(
    fc.property(bytes, (b) => {
      const text = toBase58(b);
      assert.equal(text, kitText.decode(b));
      assert.deepEqual(fromBase58(text), b);
    }),
    { numRuns: 3000 },
  );
  for (const b of [new Uint8Array(0), new Uint8Array(32), new Uint8Array(32).fill(255), new Uint8Array(64).fill(255)]) assert.equal(toBase58(b), kitText.decode(b));
});

test('text → bytes: the same as @solana/kit, or undefined where it refuses', () => {
  const text = fc.oneof(
    fc.string({ unit: fc.constantFrom(...'123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'), maxLength: 100 }),
    fc.string({ unit: fc.constantFrom(...'1z0OIl+/é'), maxLength: 12 }),
    fc.string({ maxLength: 20 }),
  );
  fc.assert(
    fc.property(text, (s) => {
      let want: Uint8Array | undefined;
      try {
        want = new Uint8Array(kitBytes.encode(s));
      } catch {
        want = undefined;
      }
      assert.deepEqual(fromBase58(s), want);
    }),
    { numRuns: 3000 },
  );
});
