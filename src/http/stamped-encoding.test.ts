/**
 * A cached 402 answered with a stamp of its own is byte for byte the text
 * restamped and encoded from scratch: whatever comes before and after the
 * slot (multi-byte characters, any length modulo three), and for every stamp.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SignInWithX, restampText } from '../payments/sign-in.js';
import { StampedBase64, StampedBody } from './stamped-encoding.js';

const URL_A = 'https://api.example/x402/v1/accessibility-contrast-calculator';
const signIn = new SignInWithX(['eip155:8453', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp']);

test('the stamped encodings equal the restamped text encoded afresh, for any text around the declaration and any stamp', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 40 }), fc.integer({ min: 0, max: 10 ** 12 }), (before, after, now) => {
      const text = JSON.stringify({ before, extensions: signIn.declare(URL_A), after });
      const stamp = signIn.stamp(URL_A, now);
      const fresh = restampText(text, stamp);
      const header = new StampedBase64(text);
      assert.equal(header.with(stamp), Buffer.from(fresh, 'utf8').toString('base64'));
      assert.equal(header.length, header.with(signIn.stamp(URL_A, now + 1000)).length);
      assert.deepEqual(Buffer.from(new StampedBody(text).with(stamp)), Buffer.from(fresh, 'utf8'));
    }),
    { numRuns: 300 },
  );
});

test('each answer is its own copy: an earlier answer is never written over', () => {
  const text = JSON.stringify({ extensions: signIn.declare(URL_A) });
  const body = new StampedBody(text);
  const a = signIn.stamp(URL_A, 1_000_000);
  const first = body.with(a);
  const kept = Buffer.from(first).toString();
  body.with(signIn.stamp(URL_A, 2_000_000));
  assert.equal(Buffer.from(first).toString(), kept);
  assert.equal(kept, restampText(text, a));
});

test('a text without a declaration is encoded as it is', () => {
  assert.equal(new StampedBase64('{"a":1}').with(signIn.stamp(URL_A, 0)), Buffer.from('{"a":1}').toString('base64'));
  assert.equal(Buffer.from(new StampedBody('{"a":1}').with(signIn.stamp(URL_A, 0))).toString(), '{"a":1}');
});
