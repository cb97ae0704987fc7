/**
 * Our x402 header codec against @x402/core/http's on arbitrary JSON values
 * (any Unicode, lone surrogates included): the same header text out, the
 * same value or the same refusal in.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import * as sdk from '@x402/core/http';
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from './x402-headers.js';

const text = fc.string({ unit: 'binary', maxLength: 40 });
const value = fc.jsonValue({ maxDepth: 3 }).chain((v) => fc.record({ v: fc.constant(v), s: text, n: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })) }));

/** What a call gives: its value, or that it threw. */
function outcome<T>(f: () => T): { ok: true; value: T } | { ok: false } {
  try {
    return { ok: true, value: f() };
  } catch {
    return { ok: false };
  }
}

test('PAYMENT-RESPONSE and PAYMENT-REQUIRED: the same text as the SDK writes', () => {
  fc.assert(
    fc.property(value, fc.boolean(), (v, withExtensions) => {
      const response = { success: true, transaction: v.s, network: 'eip155:8453', payer: v.s, extra: v, ...(withExtensions ? { extensionResponses: { x: v.v } } : {}) };
      assert.equal(encodePaymentResponseHeader(response as never), sdk.encodePaymentResponseHeader(response as never));
      const required = { x402Version: 2, error: v.s, resource: { url: v.s }, accepts: [{ extra: v }] };
      assert.equal(encodePaymentRequiredHeader(required as never), sdk.encodePaymentRequiredHeader(required as never));
    }),
    { numRuns: 500 },
  );
});

test('PAYMENT-SIGNATURE: the same value as the SDK reads, or a refusal where it refuses', () => {
  const header = fc.oneof(
    // Honest headers, written by the SDK's client-side encoder.
    value.map((v) => sdk.encodePaymentSignatureHeader({ x402Version: 2, payload: v } as never)),
    // Base64 of bytes that need not be UTF-8 or JSON.
    fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString('base64')),
    // Anything at all: bad alphabet, bad padding, whitespace.
    fc.string({ maxLength: 40 }),
    // The base64 alphabet with padding anywhere, any length: atob's rules on padding and lone characters.
    fc.string({ unit: fc.constantFrom(...'e30MQ=x+/A'), maxLength: 12 }),
    fc.constantFrom('e30', 'e30=', 'e30==', 'e30===', 'MQ', 'MQ=', 'MQ==', 'e', 'e3', '=', '==', ''),
    // JSON behind a UTF-8 byte order mark, once or twice (TextDecoder drops one).
    value.chain((v) =>
      fc.constantFrom(1, 2).map((marks) => Buffer.concat([Buffer.from('\ufeff'.repeat(marks)), Buffer.from(JSON.stringify({ x402Version: 2, payload: v }))]).toString('base64')),
    ),
  );
  fc.assert(
    fc.property(header, (h) => {
      assert.deepEqual(outcome(() => decodePaymentSignatureHeader(h)), outcome(() => sdk.decodePaymentSignatureHeader(h)));
    }),
    { numRuns: 2000 },
  );
});
