import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { PIECE_CHARS, wireBody } from './wire-body.js';

async function bytesOf(b: string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>): Promise<Buffer> {
  return Buffer.from(await new Response(b).arrayBuffer());
}

test('a small body goes out whole, as the string', () => {
  const s = '{"ok":true}';
  assert.equal(wireBody({ body: s }), s);
});

test('a large body goes out in pieces with exactly its UTF-8 bytes, even when a piece boundary falls inside a surrogate pair', async () => {
  // An emoji (two code units) straddling the first piece boundary, then non-ASCII throughout.
  const s = 'a'.repeat(PIECE_CHARS - 1) + '😀' + 'é€'.repeat(PIECE_CHARS) + '😀'.repeat(PIECE_CHARS);
  const out = wireBody({ body: s });
  assert.ok(out instanceof ReadableStream);
  assert.deepEqual(await bytesOf(out), Buffer.from(s, 'utf8'));
});

test('any large body: the pieces concatenate to its UTF-8 bytes', async () => {
  await fc.assert(
    fc.asyncProperty(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }), fc.nat(PIECE_CHARS), async (unit, pad) => {
      const s = 'x'.repeat(pad) + unit.repeat(Math.ceil((2 * PIECE_CHARS) / unit.length));
      assert.deepEqual(await bytesOf(wireBody({ body: s })), Buffer.from(s, 'utf8'));
    }),
    { numRuns: 30 },
  );
});

test('a large body already encoded (by the worker pool) goes out as slices of those bytes', async () => {
  const s = 'é😀'.repeat(PIECE_CHARS);
  const bytes = new TextEncoder().encode(s);
  const out = wireBody({ body: s, bodyBytes: bytes });
  assert.ok(out instanceof ReadableStream);
  assert.deepEqual(await bytesOf(out), Buffer.from(s, 'utf8'));
});

test('a small body already encoded goes out whole as those bytes, and its text is never made', () => {
  const bytes = new TextEncoder().encode('{"ok":true}');
  const r = {
    get body(): string {
      throw new Error('the text was made');
    },
    bodyBytes: bytes,
  };
  assert.equal(wireBody(r), bytes);
});

test('a large body already encoded goes out without its text being made', async () => {
  const s = 'x'.repeat(PIECE_CHARS * 3);
  const bytes = new TextEncoder().encode(s);
  const out = wireBody({
    get body(): string {
      throw new Error('the text was made');
    },
    bodyBytes: bytes,
  });
  assert.deepEqual(await bytesOf(out), Buffer.from(s, 'utf8'));
});
