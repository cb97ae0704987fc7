import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
// An independent RFC 8785 implementation: ox's (mppx, a dependency, canonicalizes its payment requests with it).
import { Json } from 'ox';
import { canonicalJson, requestFingerprint, sha256Hex } from './canonical-json.js';
import { prng } from '../../test/support/prng.js';

/** A large request with the shapes real ones have: lists of same-keyed records, non-ASCII, escapes, numbers of every kind. */
function generatedBody(seed: number, records: number): unknown {
  const rand = prng(seed);
  const units = ['a', 'Z', ' ', '"', '\\', '\n', '\u0000', '\u001f', '\u007f', 'é', '\u2028', '€', '\ud83d\ude00', '\ud800', '\udfff', '\uffff'];
  const text = (n: number) => Array.from({ length: n }, () => (rand() < 0.8 ? 'x' : units[Math.floor(rand() * units.length)]!)).join('');
  const number = () => [0, -0, rand() * 1e6, -rand(), Math.floor(rand() * 2 ** 53), rand() * 1e-9, 1e21 * (1 + rand()), 0.1 + 0.2][Math.floor(rand() * 8)]!;
  const fields = Array.from({ length: records }, (_, i) => ({
    name: `field_${i}_${text(6)}`,
    type: ['string', 'number', 'integer', 'boolean', 'object', 'array'][i % 6],
    required: rand() < 0.5,
    nullable: rand() < 0.2 ? null : rand() < 0.5,
    ...(i % 3 === 0 ? { note: text(Math.floor(rand() * 120)) } : {}),
    ...(i % 5 === 0 ? { default: number(), skipped: undefined } : {}),
    ...(i % 7 === 0 ? { [text(3)]: [number(), text(4), [], {}, undefined] } : {}),
  }));
  return { source_fields: fields, target_fields: [...fields].reverse().map((f) => ({ ...f, required: !f.required })), meta: { seed, '\ue000': 1, '\ud83d\ude00': 2, B: 3, a: 4, '10': 5, '2': 6 } };
}

/**
 * [name, resource, input]: the requests whose fingerprints are pinned. The
 * first ones are what the catalog's routes receive; the rest cover every rule
 * of the form, and what the writer does beyond I-JSON.
 */
function corpus(): Array<[string, string, unknown]> {
  const protoKeys = JSON.parse('{"b":1,"__proto__":{"x":[1]},"a":2}') as unknown;
  const nullProto = Object.assign(Object.create(null) as object, { z: 1, y: [2] });
  return [
    ['contrast example', 'accessibility-contrast-calculator', { foreground: '#000000', background: '#ffffff', large_text: false }],
    ['contrast, keys in another order', 'accessibility-contrast-calculator', { large_text: true, background: '#FFF', foreground: 'rgb(10, 20, 30)' }],
    ['compatibility pair', 'data-compatibility-checker', { comparison_mode: 'backward_compatible', canonicalization: 'exact', source_fields: [{ name: 'id', type: 'integer', required: true, nullable: false }, { name: 'email', type: 'string', required: false, nullable: true }], target_fields: [{ name: 'Id', type: 'number', required: true, nullable: false }] }],
    ['nft token id past 2^53 as text', 'nft-metadata-uri-normalizer', { uri: 'https://gateway.pinata.cloud/ipfs/bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/metadata/{id}.json', token_id: '115792089237316195423570985008687907853269984665640564039457584007913129639935', ipfs_gateway: 'https://dweb.link' }],
    ['extractor page with markup', 'catalog-offer-evidence-extractor', { url: 'https://shop.example/p/1', html: '<html><head><script type="application/ld+json">{"@type":"Product","name":"Caf\u00e9 \\"Noir\\"","offers":{"price":"4.50"}}</script></head><body>\t\u00a0€</body></html>' }],
    ['composite plan', 'outcome-router', { goal: 'check then normalize', steps: [{ capability: 'a', input: { x: 1 } }, { capability: 'b', input: { from: 'a.output', y: [true, false, null] } }] }],
    ['strings and escapes', 'r', ['', 'a', '"', '\\', '/', '\b\f\n\r\t', '\u0000\u0001\u001f', '\u007f', '\u0080', 'é', '\u2028\u2029', '\ud83d\ude00', '\ud800', '\udc00x', 'x\ud800', '\uffff', '\ufeff']],
    ['numbers', 'r', [0, -0, 1, -1, 1.5, -1.5, 100, 1e21, 4.5e21, 1e-6, 1e-7, 5e-324, 1.7976931348623157e308, 0.1 + 0.2, 2 ** 53, 2 ** 53 + 2, 333333333.3333333, 9007199254740993, 1e300 * 10, NaN, -Infinity]],
    ['key order by UTF-16 code units', 'r', { '\ue000': 1, '\ud83d\ude00': 2, b: 3, B: 4, a: 5, '10': 6, '2': 7, '': 8, 'é': 9, '"': 10, 'a\n': 11 }],
    ['nesting, empties and literals', 'r', { a: [], b: {}, c: [[[]]], d: { e: { f: { g: null } } }, t: true, f: false, n: null, s: '' }],
    ['undefined members and elements', 'r', { a: undefined, b: [undefined, 1, , 2], c: { d: undefined } }],
    ['top-level scalars', 'r', 'just a string'],
    ['top-level undefined', 'r', undefined],
    ['own __proto__ key from JSON.parse', 'r', protoKeys],
    ['beyond JSON: functions, symbols, Date, Map, null prototype', 'r', { fn: () => 1, sym: Symbol('s'), date: new Date(0), map: new Map([[1, 2]]), nullProto, arr: [() => 1, Symbol('t')] }],
    ['non-ASCII resource', 'ressource-é-\ud83d\ude00', { a: 1 }],
    ['empty resource', '', {}],
    ['generated body, 300 records', 'data-compatibility-checker', generatedBody(0xc0ffee, 300)],
    ['generated body, 3000 records', 'r', generatedBody(7, 3000)],
    ['one 3 MiB string', 'catalog-offer-evidence-extractor', { html: 'x'.repeat(3 * 1024 * 1024) + 'é"\n', url: 'https://a.example' }],
  ];
}

/**
 * Computed by the implementation this one replaced (a streaming byte writer
 * with a fallback, itself checked against the original). Stored payment
 * attempts are bound to fingerprints like these: a redelivery recomputes the
 * fingerprint and must find the same one, so none of these may ever change.
 */
const PINNED: Record<string, string> = {
  "contrast example": 'cd285bd20885b3a0a53c2c17108e516212d1c0e5ae96a58fb3d390f1f018cc7c',
  "contrast, keys in another order": '153018b98f9e4d157505aada2bb8b5c8c895f18d8696dd0c6526b431b65a7dd8',
  "compatibility pair": '87f3d1888968153dd0d76976560229daa558e3e5e506493b96c06f79b35b9a6d',
  "nft token id past 2^53 as text": '413b10812f3e2f8f4efde8ffaf120bccc1cb019f220a20fa7d84c74bb65cd029',
  "extractor page with markup": 'e794d2a0c307a773c98fe37a58f3e7445fdd5d36fdf56b53fb3f19eac1182936',
  "composite plan": '27c253d08e2e4df0ee81a2ac2af7f8c8eaae0685acee3de40d781ad5ea5d3dcf',
  "strings and escapes": 'cfb3a88dcf0994d8005542d73931f2d3912385c3b9f5dff38821f207625797e3',
  "numbers": 'eeb4238535e7a38b52916c2a1c026d6f9350d2b78883045bba38635258604225',
  "key order by UTF-16 code units": '55c566e8e7e02ba00fc6cd3a3c59e4e9d657091014669e0983fad5603b42d774',
  "nesting, empties and literals": '4bdd6edb5f81816aac9666aa6bf432a799e37ad60c15358f691df8053640a6b3',
  "undefined members and elements": '6b35363944d202c2abf0ff4f0d84bffd64548d3482ee41739edc2e33112a9b17',
  "top-level scalars": 'b5c15ca3ea757600d05d94a5012d7bce861006bdd6467e383073ac4e8751e675',
  "top-level undefined": '40527127aa23ff441649b53067392c7656287a854dbdc56005d943980d605fb3',
  "own __proto__ key from JSON.parse": '72e1beb6828ff15fdf91f30b02a819f071789f307c1c4957204ced916c8c6209',
  "beyond JSON: functions, symbols, Date, Map, null prototype": 'e45d012f80499e7214f93c5074d82ae1a8d3fc50fda915eeec4f396e39d61004',
  "non-ASCII resource": '4ea9149c41bec60f8bb0184dac4ac2318c684a23247dc7919bff92a04a4e9612',
  "empty resource": 'a062dd4952b935e430d409c4a5e5cd760e8781e3200d5c7e12a232dddba8a528',
  "generated body, 300 records": 'cb5aa15c7f5bb0164fda650fc5b969b46ba3062789217ebb0623ce4f916e5390',
  "generated body, 3000 records": '032ac71991b7e944d210feaeeb1740a46c6ecaad547488512e5227fa8a909bd0',
  "one 3 MiB string": '2e5d651d88b32c100969b47fb1f08f9bfc8caaf018a9dfd6207b763015ca8f7a',
};

test('fingerprints of a fixed corpus are the ones made before this implementation (stored attempts are bound to them)', () => {
  const seen = corpus().map(([name, resource, input]) => {
    assert.equal(requestFingerprint(resource, input), PINNED[name], name);
    assert.equal(sha256Hex(resource + '\n' + canonicalJson(input)), PINNED[name], name);
    return name;
  });
  assert.deepEqual(seen, Object.keys(PINNED));
});

test('RFC 8785 Appendix B: number serialization samples (IEEE 754 bits → text)', () => {
  const samples: Array<[string, string]> = [
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ];
  const fromBits = (hex: string) => Buffer.from(hex, 'hex').readDoubleBE(0);
  for (const [bits, text] of samples) assert.equal(canonicalJson(fromBits(bits)), text, bits);
  // JCS refuses NaN and Infinity (Appendix B's other two samples); this form has always written them as null.
  assert.equal(canonicalJson([fromBits('7fffffffffffffff'), fromBits('7ff0000000000000')]), '[null,null]');
});

test('RFC 8785 §3.2.3: members sorted by the UTF-16 code units of their keys', () => {
  const input = JSON.parse(
    '{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control","\\u00f6":"Latin Small Letter O With Diaeresis"}',
  ) as unknown;
  // JSON.parse puts the integer-like "1" first in the object; the canonical text puts it where its code units say.
  assert.equal(
    canonicalJson(input),
    '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
  );
});

test('RFC 8785 §3.2.4: the specification\'s own example, byte for byte', () => {
  const input = JSON.parse(
    '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
  ) as unknown;
  assert.equal(canonicalJson(input), '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}');
  // UTF-8 for hashing: the euro sign is three bytes.
  assert.equal(Buffer.byteLength(canonicalJson(input)), canonicalJson(input).length + 2);
});

test('property: equal to an independent RFC 8785 implementation on JSON values', () => {
  const same = (v: unknown) => assert.equal(canonicalJson(v), Json.canonicalize(v));
  // Printable strings, any Unicode, raw UTF-16 code units (lone surrogates are escaped alike by both).
  fc.assert(fc.property(fc.jsonValue(), same), { numRuns: 1000 });
  fc.assert(fc.property(fc.jsonValue({ stringUnit: 'binary' }), same), { numRuns: 500 });
  const tricky = fc.constantFrom('a', 'B', '1', '"', '\\', '/', '\u0000', '\u001f', '\u007f', '\u2028', 'é', '\ue000', '\ud800', '\udfff', '\ud83d\ude00');
  fc.assert(fc.property(fc.jsonValue({ stringUnit: tricky }), same), { numRuns: 500 });
  // What JSON.parse makes of any JSON text, __proto__ keys and duplicate keys included.
  fc.assert(fc.property(fc.jsonValue(), fc.constantFrom('__proto__', 'a'), (v, k) => same(JSON.parse(`{"${k}":${JSON.stringify(v)},"${k}":1,"z":${JSON.stringify(v)}}`))), { numRuns: 200 });
});

test('property: canonical JSON parses back to the same value, ignores key order and whitespace', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (v) => {
      const c = canonicalJson(v);
      assert.deepEqual(JSON.parse(c), JSON.parse(JSON.stringify(v)));
      const reversed = JSON.parse(JSON.stringify(v, null, 2), (_k, x: unknown) =>
        x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).reverse()) : x,
      ) as unknown;
      assert.equal(canonicalJson(reversed), c);
    }),
    { numRuns: 500 },
  );
});

test('property: the fingerprint is SHA-256 of the resource, a line feed and the canonical JSON, UTF-8', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme' }), fc.jsonValue({ stringUnit: 'grapheme' }), (resource, v) => {
      const bytes = Buffer.from(resource + '\n' + Json.canonicalize(v), 'utf8');
      assert.equal(requestFingerprint(resource, v), sha256Hex(bytes));
    }),
    { numRuns: 300 },
  );
  assert.notEqual(requestFingerprint('r1', { a: 1 }), requestFingerprint('r2', { a: 1 }), 'the resource is part of the fingerprint');
});

test('undefined as JSON.stringify treats it: omitted as a member, null in an array or alone; a bigint throws', () => {
  assert.equal(canonicalJson({ a: undefined, b: 1, c: undefined }), '{"b":1}');
  assert.equal(canonicalJson({ a: undefined }), '{}');
  assert.equal(canonicalJson([1, undefined, , 2]), '[1,null,null,2]');
  assert.equal(canonicalJson(undefined), 'null');
  assert.throws(() => canonicalJson({ a: 1n }), TypeError);
});
