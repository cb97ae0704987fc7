import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canonicalJson, requestFingerprint, sha256Hex } from './canonical-json.js';

test('key order and whitespace do not change the canonical form; values do', () => {
  assert.equal(canonicalJson({ b: 1, a: [true, null, 'x'] }), '{"a":[true,null,"x"],"b":1}');
  assert.equal(canonicalJson(JSON.parse('{ "a" : 1 , "b":{"d":2,"c":3}}')), canonicalJson({ b: { c: 3, d: 2 }, a: 1 }));
  assert.notEqual(requestFingerprint('r', { a: 1 }), requestFingerprint('r', { a: 2 }));
  assert.notEqual(requestFingerprint('r1', { a: 1 }), requestFingerprint('r2', { a: 1 }), 'the resource is part of the fingerprint');
});

test('property: canonical JSON parses back to the same value and ignores key order', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (v) => {
      const c = canonicalJson(v);
      assert.deepEqual(JSON.parse(c), JSON.parse(JSON.stringify(v)));
      const shuffled = JSON.parse(JSON.stringify(v), (_k, x) =>
        x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).reverse()) : x,
      );
      assert.equal(canonicalJson(shuffled), c);
    }),
    { numRuns: 500 },
  );
});

test('undefined is written the way JSON.stringify writes it: null in arrays, omitted in objects', () => {
  assert.equal(canonicalJson([1, undefined, 2]), '[1,null,2]');
  assert.equal(canonicalJson({ a: undefined, b: 1 }), '{"b":1}');
  assert.equal(canonicalJson(undefined), 'null');
});

/** The original implementation (pieces pushed to an array, joined, then hashed): the reference the values must never move from. */
function referenceCanonicalJson(value: unknown): string {
  const out: string[] = [];
  const write = (v: unknown): void => {
    if (v === null || typeof v !== 'object') {
      out.push(JSON.stringify(v) ?? 'null');
      return;
    }
    if (Array.isArray(v)) {
      out.push('[');
      for (let i = 0; i < v.length; i++) {
        if (i) out.push(',');
        write(v[i] === undefined ? null : v[i]);
      }
      out.push(']');
      return;
    }
    const obj = v as Record<string, unknown>;
    const keys = Object.keys(obj);
    let sorted = true;
    for (let i = 1; i < keys.length; i++) if (keys[i - 1]! > keys[i]!) { sorted = false; break; }
    if (!sorted) keys.sort();
    out.push('{');
    let first = true;
    for (const k of keys) {
      const x = obj[k];
      if (x === undefined) continue;
      if (!first) out.push(',');
      first = false;
      out.push(JSON.stringify(k), ':');
      write(x);
    }
    out.push('}');
  };
  write(value);
  return out.join('');
}
const referenceFingerprint = (resource: string, input: unknown) => sha256Hex(resource + '\n' + referenceCanonicalJson(input));

test('property: the streaming implementation gives the original canonical bytes and fingerprints', () => {
  const check = (v: unknown) => {
    assert.equal(canonicalJson(v), referenceCanonicalJson(v));
    assert.equal(requestFingerprint('data-compatibility-checker', v), referenceFingerprint('data-compatibility-checker', v));
  };
  // Printable strings, any Unicode (astral, lone surrogates), and raw UTF-16 code units.
  fc.assert(fc.property(fc.jsonValue(), check), { numRuns: 500 });
  fc.assert(fc.property(fc.jsonValue({ stringUnit: 'binary' }), check), { numRuns: 500 });
  const tricky = fc.constantFrom('a', '"', '\\', '\u0000', '\u001f', '\u007f', '\u2028', '\u00e9', '\ud800', '\udfff', '\ud83d\ude00');
  fc.assert(fc.property(fc.jsonValue({ stringUnit: tricky }), check), { numRuns: 300 });
  fc.assert(fc.property(fc.jsonValue({ stringUnit: 'grapheme' }), fc.string({ unit: 'binary' }), (v, resource) => {
    assert.equal(requestFingerprint(resource, v), referenceFingerprint(resource, v));
  }), { numRuns: 300 });
});

test('the streaming fingerprint equals the original on bodies large enough to be hashed in many chunks', () => {
  const fields = Array.from({ length: 3000 }, (_, i) => ({ name: `f${i}\u00e9\ud83d\ude00`, type: i % 2 ? 'string' : 'number', note: '\ud800 lone', n: i / 7, z: -0 }));
  const body = { producer: { fields }, consumer: { fields: [...fields].reverse() }, x: [1e21, 5e-7, 2 ** 53 + 1, '\u0000\u001f"\\'] };
  assert.ok(canonicalJson(body).length > 200_000);
  assert.equal(canonicalJson(body), referenceCanonicalJson(body));
  assert.equal(requestFingerprint('r', body), referenceFingerprint('r', body));
});

test('edge values keep their original canonical form', () => {
  for (const v of [-0, 1e21, 1e-7, NaN, Infinity, '\u2028\u2029', '\ud800', '\udc00x', 'é', [undefined, , 1], { b: undefined, a: () => 1 }, new Date(0), Symbol('s'), () => 1]) {
    assert.equal(canonicalJson(v), referenceCanonicalJson(v));
    assert.equal(requestFingerprint('r', v), referenceFingerprint('r', v));
  }
  assert.throws(() => canonicalJson(1n));
  // As RFC 8785 for I-JSON input: keys by UTF-16 code units (U+1F600 is 0xD83D 0xDE00, before U+E000), ES numbers, minimal escapes.
  assert.equal(canonicalJson({ '\ue000': 1, '\ud83d\ude00': 2, a: [1e-7, 100, -0, 4.5e21] }), '{"a":[1e-7,100,0,4.5e+21],"\ud83d\ude00":2,"\ue000":1}');
});

test('property: sibling objects with the same, reordered or overlapping keys (the key-order reuse) keep the original bytes', () => {
  // Keys whose heads are written from cached UTF-8 bytes: ASCII, non-ASCII, astral, escaped (`"`, `\n`, a lone surrogate).
  const key = fc.constantFrom('a', 'b', 'B', '_', 'é', '10', '2', '__proto__x', '\ud83d\ude00', '\ue000', '"q', 'n\n', '\ud800');
  const record = fc.dictionary(key, fc.oneof(fc.jsonValue({ maxDepth: 1 }), fc.constant(undefined)), { maxKeys: 5 });
  const check = (v: unknown) => {
    assert.equal(canonicalJson(v), referenceCanonicalJson(v));
    assert.equal(requestFingerprint('r', v), referenceFingerprint('r', v));
  };
  fc.assert(fc.property(fc.array(record, { maxLength: 12 }), check), { numRuns: 500 });
  // The same keys in another order, and another key set of the same length, right after one another.
  check([{ a: 1, b: 2 }, { b: 3, a: 4 }, { a: 5, c: 6 }, { c: 7, a: 8 }, { a: 9, b: 10 }]);
  check({ list: [{ name: 'x', type: 'string', required: true, nullable: false }, { nullable: true, name: 'y', required: false, type: 'number' }] });
  // An omitted first member must not leave a leading comma.
  check([{ a: undefined, b: 1 }, { a: undefined, b: undefined, c: 2 }, { a: undefined }]);
  // A sibling whose keys are a prefix or an extension of the last list (the reuse compares keys with for-in).
  check([{ a: 1, b: 2 }, { a: 1, b: 2, c: 3 }, { a: 1, b: 2 }, { a: 1 }, { a: 1, b: 2 }, {}, { a: 1 }]);
});

test('the key-order reuse lists own enumerable keys only: inherited enumerable keys and non-enumerable own keys stay out', () => {
  const check = (v: unknown) => {
    assert.equal(canonicalJson(v), referenceCanonicalJson(v));
    assert.equal(requestFingerprint('r', v), referenceFingerprint('r', v));
  };
  const hidden = { a: 1, b: 2 };
  Object.defineProperty(hidden, 'c', { value: 3, enumerable: false });
  check([{ a: 1, b: 2 }, hidden, { a: 1, b: 2, c: 3 }, hidden]);
  // for-in also lists an enumerable key added to Object.prototype (after the own keys); it must not be written.
  const proto = Object.prototype as Record<string, unknown>;
  proto.polluted = 'x';
  try {
    check([{ a: 1, b: 2 }, { a: 1, b: 2 }, { b: 1, a: 2 }, { a: 1 }, JSON.parse('{"polluted":1,"a":2}') as unknown]);
  } finally {
    delete proto.polluted;
  }
});

test('property: long strings (copied natively from 64 code units) keep the original bytes', () => {
  const check = (v: unknown) => {
    assert.equal(canonicalJson(v), referenceCanonicalJson(v));
    assert.equal(requestFingerprint('r', v), referenceFingerprint('r', v));
  };
  const unit = fc.constantFrom('a', ' ', '~', '\u007f', '"', '\\', '\n', '\u0000', 'é', '\u2028', '\ud800', '\udfff', '\ud83d\ude00', '\uffff');
  // Mostly plain ASCII with the odd special code unit, around the 64-unit threshold and well past it.
  const long = fc.oneof(
    fc.string({ unit: fc.oneof({ weight: 30, arbitrary: fc.constant('x') }, { weight: 1, arbitrary: unit }), minLength: 60, maxLength: 70 }),
    fc.string({ unit, minLength: 64, maxLength: 300 }),
  );
  fc.assert(fc.property(fc.array(long, { maxLength: 4 }), long, (list, key) => check({ [key]: list, k: key })), { numRuns: 500 });
  for (const n of [63, 64, 65, 5000]) check(['x'.repeat(n), 'é'.repeat(n), '"'.repeat(n), 'x'.repeat(n - 1) + '\ud800', '\ud83d\ude00'.repeat(n)]);
});

test('JSON.parse own __proto__ keys, null-prototype objects and non-plain values keep the original bytes', () => {
  const check = (v: unknown) => {
    assert.equal(canonicalJson(v), referenceCanonicalJson(v));
    assert.equal(requestFingerprint('r', v), referenceFingerprint('r', v));
  };
  check(JSON.parse('{"b":1,"__proto__":{"x":[1]},"a":2}'));
  check([JSON.parse('{"__proto__":1}'), { __proto__: null, b: 1, a: 2 }]);
  const nullProto = Object.create(null) as Record<string, unknown>;
  nullProto.z = [nullProto.y, 1];
  nullProto.y = 'y';
  check({ n: nullProto, d: new Date(0), m: new Map([[1, 2]]), f: () => 1, s: Symbol('s'), arr: Object.assign([1, 2], { extra: 3 }) });
  check([1, () => 1, Symbol('s'), undefined]);
});

test('a getter that canonicalizes during the walk, and a large value then a small one, keep the original bytes', () => {
  const outer: Record<string, unknown> = { b: [1, 'x'] };
  Object.defineProperty(outer, 'a', { enumerable: true, get: () => canonicalJson({ inner: ['nested', 2], z: 'é' }) });
  assert.equal(canonicalJson(outer), referenceCanonicalJson(outer));
  assert.equal(requestFingerprint('r', outer), referenceFingerprint('r', outer));
  const big = { s: 'x'.repeat(3 * 1024 * 1024), t: 'é'.repeat(1000) };
  assert.equal(requestFingerprint('r', big), referenceFingerprint('r', big));
  assert.equal(canonicalJson({ b: 2, a: 1 }), '{"a":1,"b":2}');
});
