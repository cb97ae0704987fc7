/**
 * Property: whatever arrives as a request body, either the capability's own
 * validation (input schema + check, exactly as the paid route applies them,
 * via makeInputReader) refuses it, or the handler returns a result that
 * serialises as JSON and matches the output schema. A throw after validation
 * would come after the payment was verified.
 *
 * The generators aim at this capability's parsers: URIs assembled from
 * schemes, hosts with valid and broken DNS labels, subdomain-gateway forms,
 * CIDs in every multibase (well-formed and not), DNSLink names and data: URIs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import ajv2020 from 'ajv/dist/2020.js';
import { makeInputReader } from '../../catalog/input-reader.js';
import { nftMetadataUriNormalizer as cap } from './index.js';
import { encodeBase32, encodeBase36, encodeBase58btc } from './cid.js';

const Ajv2020 = ajv2020.default;
const validateOut = new Ajv2020({ strict: false, allErrors: true }).compile(cap.outputSchema);

const V0 = 'QmZHKZDavkvNfA9gSAg7HALv8jF7BJaKjUc9U2LSuvUySB';
const V1 = 'bafybeiasb5vpmaounyilfuxbd3lryvosl4yefqrfahsb2esg46q6tu6y5q';
const IPNS_KEY = 'k51qzi5uqu5dlvj2baxnqndepeb86cbk3ng7n3i46uzyxzyqj2xjonzllnv0v8';

/** Each multibase prefix with the characters its body may use (and a few it may not). */
const BASES: ReadonlyArray<[string, string]> = [
  ['0', '01'],
  ['7', '01234567'],
  ['9', '0123456789'],
  ['f', '0123456789abcdefABCDEF'],
  ['F', '0123456789ABCDEF'],
  ['v', '0123456789abcdefghijklmnopqrstuv'],
  ['V', '0123456789ABCDEFGHIJKLMNOPQRSTUV'],
  ['t', '0123456789abcdefghijklmnopqrstuv='],
  ['T', '0123456789ABCDEFGHIJKLMNOPQRSTUV='],
  ['b', 'abcdefghijklmnopqrstuvwxyz234567'],
  ['B', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'],
  ['c', 'abcdefghijklmnopqrstuvwxyz234567='],
  ['C', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567='],
  ['h', 'ybndrfg8ejkmcpqxot1uwisza345h769'],
  ['k', '0123456789abcdefghijklmnopqrstuvwxyz'],
  ['K', '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'],
  ['R', '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:'],
  ['z', '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'],
  ['Z', '123456789abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ'],
  ['m', 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'],
  ['M', 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/='],
  ['u', 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'],
  ['U', 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_='],
  ['pro-', 'bdfghjklmnprstvzaiou-'],
  ['\u{1F680}', '\u{1F680}\u{1FA90}\u2604\u{1F6F0}\u{1F942}\u{1F47C}x'],
  ['1', 'abc'],
  ['Q', 'mabc'],
  ['\u0000', 'ab'],
];

const varint = (n: number): number[] => {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return out;
};

/** CID-shaped bytes: version, codec, multihash code and length, digest — sometimes inconsistent on purpose. */
const cidBytesArb = fc
  .record({
    version: fc.constantFrom(0, 1, 1, 1, 2, 0x12),
    codec: fc.constantFrom(0x55, 0x70, 0x71, 0x72, 0x0129, 0xf101, 0x300000),
    hash: fc.constantFrom(0x00, 0x12, 0x13, 0xb220, 0x1012),
    digest: fc.uint8Array({ minLength: 0, maxLength: 70 }),
    lengthDelta: fc.constantFrom(0, 0, 0, 1, -1),
  })
  .map(({ version, codec, hash, digest, lengthDelta }) =>
    Uint8Array.from([...varint(version), ...varint(codec), ...varint(hash), ...varint(Math.max(0, digest.length + lengthDelta)), ...digest]),
  );

const cidArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(V0, V1, IPNS_KEY, V0.toLowerCase(), V1.toUpperCase(), 'zdj7WWeQ43G6JJvLWQWZpyHuAMq6uYWRjkBXFad11vE2LHhQ7'),
  cidBytesArb.map((b) => 'b' + encodeBase32(b)),
  cidBytesArb.map((b) => 'B' + encodeBase32(b).toUpperCase()),
  cidBytesArb.map((b) => 'z' + encodeBase58btc(b)),
  cidBytesArb.map((b) => 'k' + encodeBase36(b)),
  cidBytesArb.map((b) => 'f' + Buffer.from(b).toString('hex')),
  cidBytesArb.map((b) => 'm' + Buffer.from(b).toString('base64').replace(/=+$/, '')),
  cidBytesArb.map((b) => 'U' + Buffer.from(b).toString('base64url').padEnd(Math.ceil(b.length / 3) * 4, '=')),
  fc
    .tuple(fc.constantFrom(...BASES), fc.integer({ min: 0, max: 120 }), fc.infiniteStream(fc.nat()))
    .map(([[prefix, alphabet], n, picks]) => {
      const chars = [...alphabet];
      const it = picks[Symbol.iterator]();
      let body = '';
      for (let i = 0; i < n; i++) body += chars[it.next().value % chars.length];
      return prefix + body;
    }),
);

const labelArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,10}[a-z0-9])?$/) },
  { weight: 2, arbitrary: fc.constantFrom('docs', 'ipfs', 'ipns', 'dweb', 'link', 'io', 'en-wikipedia--on--ipfs-org', 'docs-ipfs-io', 'xn--bcher-kva') },
  { weight: 1, arbitrary: fc.constantFrom('', '-a', 'a-', '-', 'a_b', '_dnslink', 'ü', 'a%41', 'A'.repeat(63), 'a'.repeat(64), 'a---b', '--', 'Qm') },
  { weight: 1, arbitrary: cidArb },
);

const hostArb: fc.Arbitrary<string> = fc.oneof(
  fc.array(labelArb, { minLength: 1, maxLength: 5 }).map((ls) => ls.join('.')),
  fc
    .tuple(
      fc.array(labelArb, { minLength: 1, maxLength: 4 }),
      fc.constantFrom('ipfs', 'ipns', 'IPNS'),
      fc.constantFrom('dweb.link', 'w3s.link', 'nftstorage.link', 'gw.example.org', 'example.com', 'localhost', 'Dweb.Link'),
    )
    .map(([ls, ns, gw]) => `${ls.join('.')}.${ns}.${gw}`),
  fc.constantFrom('127.0.0.1', '[2001:db8::1]', '[::1', 'a'.repeat(300), 'example.com.', 'ipfs.io', 'arweave.net'),
);

const pathArb = fc.oneof(
  fc.constant(''),
  fc.stringMatching(/^(\/[A-Za-z0-9._~{}%-]{0,8}){1,3}(\?[A-Za-z0-9=&{}]{0,6})?(#[A-Za-z0-9]{0,4})?$/),
  fc.string({ maxLength: 12 }).map((s) => '/' + s),
);

const uriArb: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(fc.constantFrom('ipfs://', 'ipfs://ipfs/', 'IPFS:/', '/ipfs/', 'ipfs/', 'dweb:/ipfs/', ''), cidArb, pathArb).map(([p, c, r]) => p + c + r),
  fc.tuple(fc.constantFrom('ipns://', '/ipns/', 'ipfs://ipns/'), fc.oneof(cidArb, hostArb), pathArb).map(([p, n, r]) => p + n + r),
  fc
    .tuple(fc.constantFrom('https://', 'http://', 'HTTPS://', 'https:', 'https:///'), fc.option(fc.constantFrom('user:pw@', '@'), { nil: '' }), hostArb, fc.option(fc.constantFrom(':8080', ':', ':x'), { nil: '' }), pathArb)
    .map(([s, u, h, port, r]) => s + u + h + port + r),
  fc.tuple(fc.constantFrom('https://ipfs.io/ipfs/', 'https://gw.example/ipns/', 'ipfs.io/ipfs/'), fc.oneof(cidArb, hostArb), pathArb).map(([p, c, r]) => p + c + r),
  fc.tuple(fc.constantFrom('ar://', 'https://arweave.net/'), fc.stringMatching(/^[A-Za-z0-9_-]{0,50}$/), pathArb).map(([p, id, r]) => p + id + r),
  fc.tuple(fc.constantFrom('data:', 'data:application/json;base64,', 'data:application/json,', 'data:;utf8,'), fc.string({ maxLength: 40 })).map(([p, d]) => p + d),
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.string({ unit: 'grapheme', maxLength: 60 }),
);

const tokenIdArb = fc.oneof(
  { weight: 4, arbitrary: fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }).map((n) => n.toString(10)) },
  { weight: 4, arbitrary: fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }).map((n) => '0x' + n.toString(16)) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>('', '-1', '1.5', ' 1', '0x', 12, '{id}', (1n << 256n).toString(10)) },
);
const gatewayArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('https://ipfs.io', 'https://dweb.link/', 'https://gw.example.org', 'https://localhost:8080', 'https://127.0.0.1:8443') },
  { weight: 1, arbitrary: fc.constantFrom('https://ipfs.io:99999', 'http://ipfs.io', 'https://-bad.example', 'https://ipfs.io/ipfs/') },
);

/** Mostly well-typed bodies (so most reach the handler), some that validation must refuse. */
const requestArb = fc
  .record({
    uri: fc.oneof({ weight: 30, arbitrary: uriArb }, { weight: 1, arbitrary: fc.constantFrom<unknown>('', 5, null) }),
    token_id: fc.option(tokenIdArb, { nil: undefined, freq: 2 }),
    ipfs_gateway: fc.option(gatewayArb, { nil: undefined, freq: 2 }),
    extra: fc.oneof({ weight: 30, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constant('x') }),
  })
  // As it arrives on the wire: undefined keys vanish, lone surrogates travel as escapes.
  .map((r) => JSON.parse(JSON.stringify(r)) as unknown);

test('property: every generated request is refused by validation or answered with a JSON result matching the output schema', (t) => {
  const reader = makeInputReader(cap);
  let accepted = 0;
  let refused = 0;
  fc.assert(
    fc.property(requestArb, (body) => {
      const parsed = reader.fromValue(body);
      if (!parsed.ok) {
        refused++;
        return;
      }
      accepted++;
      let out: unknown;
      try {
        out = cap.run(parsed.input as Parameters<typeof cap.run>[0]);
      } catch (e) {
        assert.fail(`threw after validation on ${JSON.stringify(body)}: ${(e as Error)?.stack ?? e}`);
      }
      const text = JSON.stringify(out);
      assert.equal(typeof text, 'string');
      assert.deepEqual(JSON.parse(text), out);
      assert.ok(validateOut(out), `output schema: ${JSON.stringify(validateOut.errors)} for ${JSON.stringify(body)}`);
    }),
    { numRuns: 4000 },
  );
  t.diagnostic(`${accepted} inputs reached the handler, ${refused} were refused by validation`);
  // Both branches must be exercised, and most inputs must reach the handler.
  assert.ok(refused > 0, 'no generated input was refused');
  assert.ok(accepted > 2000, `only ${accepted} inputs reached the handler`);
});
