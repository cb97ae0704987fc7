import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import ajv2020 from 'ajv/dist/2020.js';
import { nftMetadataUriNormalizer as cap, checkNormalizerRequest } from './index.js';
import { normalizeNftUri, tokenIdHex64, MAX_DATA_JSON_DEPTH, MAX_UINT256, type NormalizerRequest, type NormalizerResponse } from './normalize.js';
import { parseCid, parseIpnsKey, encodeBase58btc, decodeBase58btc } from './cid.js';
import { adversarialUris } from './adversarial-inputs.js';

// ajv is CommonJS: under NodeNext the default import is the module object; `.default` is the class.
const Ajv2020 = ajv2020.default;
const ajv = new Ajv2020({ strict: false, allErrors: true });
const validateIn = ajv.compile(cap.inputSchema);
const validateOut = ajv.compile(cap.outputSchema);

const V0 = 'QmZHKZDavkvNfA9gSAg7HALv8jF7BJaKjUc9U2LSuvUySB';
const V0B = 'QmYjtig7VJQ6XsnUjqqJvj7QaMcCAwtrgNdahSiFofrE7o';
const V1 = 'bafybeiasb5vpmaounyilfuxbd3lryvosl4yefqrfahsb2esg46q6tu6y5q';
const AR = 'rgW4h3ffQQzOD8ynnwdl3_YlHxtssqV3aXOregPr7yI';
const IPNS_KEY = 'k51qzi5uqu5dlvj2baxnqndepeb86cbk3ng7n3i46uzyxzyqj2xjonzllnv0v8';
const HEX_314592 = '000000000000000000000000000000000000000000000000000000000004cce0';

/** Runs the capability and checks every output against the output schema. */
function run(uri: string, extra: Omit<NormalizerRequest, 'uri'> = {}): NormalizerResponse {
  const out = cap.run({ uri, ...extra });
  assert.ok(validateOut(out), `output schema: ${JSON.stringify(validateOut.errors)} for ${JSON.stringify(uri)}`);
  return out;
}

function codes(r: NormalizerResponse): string[] {
  return r.warnings.map((w) => w.code);
}

// ---------------------------------------------------------------------------
// Domain-rules §C vectors

test('§C vector: ipfs://ipfs/Qm… → ipfs://Qm…', () => {
  const r = run(`ipfs://ipfs/${V0}`);
  assert.equal(r.canonical_uri, `ipfs://${V0}`);
  assert.equal(r.kind, 'ipfs');
  assert.equal(r.valid, true);
  assert.equal(r.raw_uri, `ipfs://ipfs/${V0}`);
  assert.equal(r.gateway_url, `https://ipfs.io/ipfs/${V0}`);
  assert.ok(codes(r).includes('IPFS_DOUBLE_PREFIX_FIXED'));
  assert.ok(!JSON.stringify({ ...r, raw_uri: '' }).includes('ipfs/ipfs/'));
  assert.ok(!r.gateway_url!.includes('/ipfs/ipfs/'));
});

test('§C vector: Pinata path gateway → the same canonical URI', () => {
  const r = run(`https://rainbow.pinata.cloud/ipfs/${V0}`);
  assert.equal(r.canonical_uri, `ipfs://${V0}`);
  assert.equal(r.kind, 'ipfs');
  assert.ok(codes(r).includes('GATEWAY_URL_CANONICALIZED'));
  assert.equal(r.mutable, false);
});

test('§C vector: ar:// id with path → arweave.net gateway', () => {
  const r = run(`ar://${AR}/1.json`);
  assert.equal(r.kind, 'arweave');
  assert.equal(r.canonical_uri, `ar://${AR}/1.json`);
  assert.equal(r.gateway_url, `https://arweave.net/${AR}/1.json`);
  assert.equal(r.arweave?.transaction_id, AR);
  assert.equal(r.path, '/1.json');
  assert.equal(r.mutable, false);
  assert.equal(r.content_addressed, true);
  assert.deepEqual(r.warnings, []);
});

test('§C vector CIDs: v0 and v1', () => {
  const a = run(V0B);
  assert.equal(a.ipfs?.cid_version, 0);
  assert.equal(a.ipfs?.multibase, 'base58btc');
  assert.equal(a.ipfs?.cid, V0B);
  assert.equal(a.canonical_uri, `ipfs://${V0B}`);
  const b = run(V1);
  assert.equal(b.ipfs?.cid_version, 1);
  assert.equal(b.ipfs?.multibase, 'base32');
  assert.equal(b.ipfs?.codec, 'dag-pb');
  assert.equal(b.ipfs?.multihash, 'sha2-256');
  assert.equal(b.canonical_uri, `ipfs://${V1}`);
  assert.equal(b.subdomain_gateway_url, `https://${V1}.ipfs.dweb.link/`);
});

// ---------------------------------------------------------------------------
// CID module

test('CIDv0 → CIDv1 base32 conversion matches the well-known pair', () => {
  const r = parseCid('QmbWqxBEKC3P8tqsKc98xmWNzrzDtRLMiMPL8wBuTGsMnR');
  assert.ok(r.ok);
  assert.equal(r.v1Base32, 'bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi');
  const back = parseCid('bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi');
  assert.ok(back.ok && back.version === 1 && back.codec === 'dag-pb' && back.digestLength === 32);
});

test('CIDv1 in other multibases is accepted and re-encoded as base32; the input base and its case-folded text are kept aside', () => {
  const z = parseCid('zdj7WWeQ43G6JJvLWQWZpyHuAMq6uYWRjkBXFad11vE2LHhQ7');
  assert.ok(z.ok && z.multibase === 'base58btc' && z.cid === V1);
  assert.equal(z.ok && z.caseFolded, 'zdj7WWeQ43G6JJvLWQWZpyHuAMq6uYWRjkBXFad11vE2LHhQ7');
  assert.equal(z.ok && z.v1Base32, V1);
  const f = parseCid('F01701220C3C4733EC8AFFD06CF9E9FF50FFC6BCD2EC85A6170004BB709669C31DE94391A');
  assert.ok(f.ok && f.multibase === 'base16upper' && f.lowercased && f.caseFolded.startsWith('f0170'));
  assert.equal(f.ok && f.cid, 'bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi');
  const raw = parseCid('bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku');
  assert.ok(raw.ok && raw.codec === 'raw');
});

test('CID validation: bad alphabet, bad length, bad multihash, bad version', () => {
  assert.equal(parseCid(V0.slice(0, -1) + '0').ok, false, 'base58 has no 0');
  assert.equal(parseCid(V0.slice(0, -1) + 'l').ok, false, 'base58 has no l');
  assert.equal(parseCid(V0 + 'a').ok, false, '47 characters');
  assert.equal(parseCid(V0.slice(0, 45)).ok, false, '45 characters');
  assert.equal(parseCid(V1.slice(0, -1)).ok, false, 'truncated base32');
  assert.equal(parseCid(V1 + 'aa').ok, false, 'extra bytes after the digest');
  assert.equal(parseCid('b' + 'aeaaaaaaa').ok, false, 'garbage');
  // A CIDv0 multihash written in base32 with a prefix is not allowed.
  const mh = decodeBase58btc(V0)!;
  assert.equal(encodeBase58btc(mh), V0);
  const asB32 = 'b' + Buffer.from(mh).toString('hex'); // not base32: hex digits 0,1,8,9 fail
  assert.equal(parseCid(asB32).ok, false);
  // Version 2 does not exist.
  assert.equal(parseCid('f02701220c3c4733ec8affd06cf9e9ff50ffc6bcd2ec85a6170004bb709669c31de94391a').ok, false);
  assert.equal(parseCid('f1220c3c4733ec8affd06cf9e9ff50ffc6bcd2ec85a6170004bb709669c31de94391a').ok, false);
  const mangled = parseCid(V0.toLowerCase());
  assert.ok(!mangled.ok && mangled.mangledV0);
});

test('IPNS keys: base36 libp2p-key and legacy peer ids', () => {
  const k = parseIpnsKey(IPNS_KEY);
  assert.ok(k.ok && k.base36 === IPNS_KEY);
  const peer = parseIpnsKey('12D3KooWD3eckifWpRn9wQpMG9R9hX3sD158z7EqHWmweQAJU5SA');
  assert.ok(peer.ok && peer.base36.startsWith('k51'));
  assert.equal(parseIpnsKey(V1).ok, false, 'a dag-pb CID is not an IPNS key');
});

// ---------------------------------------------------------------------------
// Every IPFS input form

test('IPFS input forms all give ipfs://{cid}{/path}', () => {
  const path = '/metadata/7.json';
  const forms = [
    `ipfs://${V0}${path}`,
    `ipfs://ipfs/${V0}${path}`,
    `ipfs://ipfs/ipfs/${V0}${path}`,
    `ipfs:///ipfs/${V0}${path}`,
    `ipfs:${V0}${path}`,
    `IPFS://${V0}${path}`,
    `/ipfs/${V0}${path}`,
    `/ipfs/ipfs/${V0}${path}`,
    `ipfs/${V0}${path}`,
    `${V0}${path}`,
    `https://gateway.pinata.cloud/ipfs/${V0}${path}`,
    `https://cloudflare-ipfs.com/ipfs/ipfs/${V0}${path}`,
    `http://127.0.0.1:8080/ipfs/${V0}${path}`,
    `HTTPS://IPFS.IO/ipfs/${V0}${path}`,
    `dweb:/ipfs/${V0}${path}`,
    `ipfs.io/ipfs/${V0}${path}`,
    `  ipfs://${V0}${path}\n`,
    `ipfs://${V0}${path}\u0000\u0000\u0000`,
  ];
  for (const f of forms) {
    const r = run(f);
    assert.equal(r.canonical_uri, `ipfs://${V0}${path}`, f);
    assert.equal(r.kind, 'ipfs', f);
    assert.equal(r.valid, true, f);
    assert.equal(r.path, path, f);
    assert.equal(r.gateway_url, `https://ipfs.io/ipfs/${V0}${path}`, f);
    assert.equal(r.ipfs?.cid, V0, 'CIDv0 case kept');
    assert.equal(r.raw_uri, f, 'raw kept as received');
  }
});

test('bare CID without path, CIDv1 forms, subdomain gateways', () => {
  assert.equal(run(V0).canonical_uri, `ipfs://${V0}`);
  assert.ok(codes(run(V0)).includes('BARE_CID_CONVERTED'));
  const sub = run(`https://${V1}.ipfs.dweb.link/a/B.json?x=1#frag`);
  assert.equal(sub.canonical_uri, `ipfs://${V1}/a/B.json?x=1#frag`);
  assert.equal(sub.kind, 'ipfs');
  assert.ok(codes(sub).includes('GATEWAY_URL_CANONICALIZED'));
  const subUpper = run(`https://${V1.toUpperCase()}.IPFS.nftstorage.link/`);
  assert.equal(subUpper.canonical_uri, `ipfs://${V1}/`);
  // A CIDv1 written in base32upper is lowercased with a warning.
  const upper = run(`ipfs://B${V1.slice(1).toUpperCase()}/x`);
  assert.equal(upper.canonical_uri, `ipfs://${V1}/x`);
  assert.ok(codes(upper).includes('CID_MULTIBASE_LOWERCASED'));
  // A subdomain gateway URL with a case-intact CIDv0 is recovered, with a warning.
  const v0sub = run(`https://${V0}.ipfs.dweb.link/`);
  assert.equal(v0sub.canonical_uri, `ipfs://${V0}/`);
  assert.ok(codes(v0sub).includes('SUBDOMAIN_CID_NOT_BASE32'));
});

test('path case, trailing slash, query and fragment are kept byte for byte', () => {
  const r = run(`https://ipfs.io/ipfs/${V1}/Dir/File%20Name.JSON/?a=B&c=%7E#Top`);
  assert.equal(r.canonical_uri, `ipfs://${V1}/Dir/File%20Name.JSON/?a=B&c=%7E#Top`);
  assert.equal(r.path, '/Dir/File%20Name.JSON/?a=B&c=%7E#Top');
  assert.equal(run(`ipfs://${V0}/`).canonical_uri, `ipfs://${V0}/`);
  assert.equal(run(`ipfs://${V0}`).path, '');
});

test('ipfs_gateway and subdomain gateway URLs', () => {
  const r = run(`ipfs://${V0}/1.json`, { ipfs_gateway: 'https://Gateway.Pinata.Cloud/' });
  assert.equal(r.gateway_url, `https://gateway.pinata.cloud/ipfs/${V0}/1.json`);
  assert.equal(r.subdomain_gateway_url, `https://${r.ipfs!.cid_v1_base32}.ipfs.gateway.pinata.cloud/1.json`);
  const d = run(`ipfs://${V0}/1.json`);
  assert.equal(d.subdomain_gateway_url, `https://bafybeifcsyudqlgwezz4biy7rqhk74ah3q5l6unw57ialjh6qfr4pytllq.ipfs.dweb.link/1.json`);
  assert.equal(run(`ipfs://${V1}`, { ipfs_gateway: 'https://127.0.0.1:8443' }).subdomain_gateway_url, null, 'no subdomains on an IP address');
  assert.equal(run(`ipfs://${V1}`, { ipfs_gateway: 'https://localhost:8080' }).subdomain_gateway_url, `https://${V1}.ipfs.localhost:8080/`);
  const q = run(`ipfs://${V1}?filename=a.json`);
  assert.equal(q.subdomain_gateway_url, `https://${V1}.ipfs.dweb.link/?filename=a.json`);
  assert.equal(q.gateway_url, `https://ipfs.io/ipfs/${V1}?filename=a.json`);
});

test('bad CIDs are delivered results, not exceptions', () => {
  const mangled = run(`ipfs://${V0.toLowerCase()}`);
  assert.equal(mangled.valid, false);
  assert.equal(mangled.canonical_uri, null);
  assert.ok(codes(mangled).includes('CIDV0_CASE_MANGLED'));
  const bad = run('ipfs://QmNotARealCid');
  assert.equal(bad.kind, 'ipfs');
  assert.equal(bad.valid, false);
  assert.ok(codes(bad).includes('INVALID_CID'));
  const empty = run('ipfs://');
  assert.equal(empty.valid, false);
  const gwBad = run('https://example.com/ipfs/about');
  assert.equal(gwBad.kind, 'https');
  assert.equal(gwBad.canonical_uri, 'https://example.com/ipfs/about');
  assert.ok(codes(gwBad).includes('GATEWAY_PATH_NOT_CONTENT'));
  const ordinary = run('https://docs.ipfs.tech/concepts/');
  assert.equal(ordinary.kind, 'https');
  assert.deepEqual(ordinary.warnings, [], 'an ordinary host with an "ipfs" label is not a gateway');
  const bareMangled = run(V0.toLowerCase());
  assert.equal(bareMangled.kind, 'ipfs');
  assert.ok(codes(bareMangled).includes('CIDV0_CASE_MANGLED'));
});

// ---------------------------------------------------------------------------
// IPNS

test('IPNS forms are canonical ipns:// and mutable', () => {
  const forms = [
    `ipns://${IPNS_KEY}/meta.json`,
    `/ipns/${IPNS_KEY}/meta.json`,
    `ipns/${IPNS_KEY}/meta.json`,
    `ipns://ipns/${IPNS_KEY}/meta.json`,
    `https://ipfs.io/ipns/${IPNS_KEY}/meta.json`,
    `https://${IPNS_KEY}.ipns.dweb.link/meta.json`,
    `dweb:/ipns/${IPNS_KEY}/meta.json`,
  ];
  for (const f of forms) {
    const r = run(f);
    assert.equal(r.kind, 'ipns', f);
    assert.equal(r.canonical_uri, `ipns://${IPNS_KEY}/meta.json`, f);
    assert.equal(r.mutable, true, f);
    assert.equal(r.gateway_url, `https://ipfs.io/ipns/${IPNS_KEY}/meta.json`, f);
    assert.equal(r.subdomain_gateway_url, `https://${IPNS_KEY}.ipns.dweb.link/meta.json`, f);
    assert.ok(codes(r).includes('IPNS_MUTABLE'));
  }
  const dns = run('https://en-wikipedia--on--ipfs-org.ipns.dweb.link/wiki/');
  assert.equal(dns.canonical_uri, 'ipns://en.wikipedia-on-ipfs.org/wiki/');
  assert.equal(dns.ipns?.name_type, 'dnslink');
  assert.equal(run('ipns://Example.COM').canonical_uri, 'ipns://example.com');
  const bad = run('ipns://not a name');
  assert.equal(bad.valid, false);
  assert.ok(codes(bad).includes('IPNS_NAME_INVALID'));
});

// ---------------------------------------------------------------------------
// Arweave

test('Arweave: gateway URLs → ar://, names are not ids, invalid ids', () => {
  const g = run(`https://arweave.net/${AR}/1.json?x#y`);
  assert.equal(g.canonical_uri, `ar://${AR}/1.json?x#y`);
  assert.equal(g.kind, 'arweave');
  assert.ok(codes(g).includes('GATEWAY_URL_CANONICALIZED'));
  assert.equal(run(`https://ARWEAVE.net/${AR}`).canonical_uri, `ar://${AR}`);
  const name = run('ar://my-collection/1.json');
  assert.equal(name.kind, 'arweave');
  assert.equal(name.arweave?.arns_name, 'my-collection');
  assert.equal(name.arweave?.transaction_id, null);
  assert.equal(name.mutable, true);
  assert.equal(name.gateway_url, 'https://my-collection.arweave.net/1.json');
  assert.ok(codes(name).includes('ARWEAVE_NAME_NOT_ID'));
  const bad = run('ar://not.an.id');
  assert.equal(bad.valid, false);
  assert.ok(codes(bad).includes('ARWEAVE_INVALID'));
  const nonCanonical = run(`ar://${AR.slice(0, 42)}J`);
  assert.ok(codes(nonCanonical).includes('ARWEAVE_ID_NONCANONICAL'));
  assert.equal(run('https://arweave.net/graphql').kind, 'https');
  assert.equal(run(`ar:/${AR}`).canonical_uri, `ar://${AR}`);
});

// ---------------------------------------------------------------------------
// ERC-1155 {id}

test('{id}: decimal 314592 → …4cce0, in canonical, gateway and subdomain URLs', () => {
  const r = run(`ipfs://${V1}/{id}.json`, { token_id: '314592' });
  assert.equal(r.canonical_uri, `ipfs://${V1}/${HEX_314592}.json`);
  assert.equal(r.gateway_url, `https://ipfs.io/ipfs/${V1}/${HEX_314592}.json`);
  assert.equal(r.subdomain_gateway_url, `https://${V1}.ipfs.dweb.link/${HEX_314592}.json`);
  assert.equal(r.path, `/${HEX_314592}.json`);
  assert.equal(r.id_substitution.applied, true);
  assert.equal(r.id_substitution.token_id_hex, HEX_314592);
  assert.equal(r.id_substitution.template_uri, `ipfs://${V1}/{id}.json`);
  assert.ok(HEX_314592.endsWith('000000000004cce0'));
});

test('{id}: 0x-hex, 0, 2^256-1 (decimal and hex), leading zeros', () => {
  const uri = 'https://api.example.com/token/{id}.json';
  assert.equal(run(uri, { token_id: '0x4cce0' }).canonical_uri, `https://api.example.com/token/${HEX_314592}.json`);
  assert.equal(run(uri, { token_id: '0X4CCE0' }).id_substitution.token_id_hex, HEX_314592);
  assert.equal(run(uri, { token_id: '0' }).id_substitution.token_id_hex, '0'.repeat(64));
  const max = MAX_UINT256.toString(10);
  assert.equal(max, '115792089237316195423570985008687907853269984665640564039457584007913129639935');
  assert.equal(run(uri, { token_id: max }).canonical_uri, `https://api.example.com/token/${'f'.repeat(64)}.json`);
  assert.equal(run(uri, { token_id: '0x' + 'F'.repeat(64) }).id_substitution.token_id_hex, 'f'.repeat(64));
  assert.equal(run(uri, { token_id: '000314592' }).id_substitution.token_id_hex, HEX_314592);
  assert.equal(run(uri, { token_id: '0x' + '0'.repeat(70) + '4cce0' }).id_substitution.token_id_hex, HEX_314592);
  assert.equal(tokenIdHex64(1n), '0'.repeat(63) + '1');
  // Every occurrence, and the percent-encoded form.
  const two = run('ipfs://' + V0 + '/{id}/{id}.json', { token_id: '1' });
  assert.equal(two.canonical_uri, `ipfs://${V0}/${tokenIdHex64(1n)}/${tokenIdHex64(1n)}.json`);
  const enc = run('https://x.example/%7Bid%7D.json', { token_id: '1' });
  assert.equal(enc.canonical_uri, `https://x.example/${tokenIdHex64(1n)}.json`);
  assert.ok(codes(enc).includes('ID_PLACEHOLDER_PERCENT_ENCODED'));
});

test('{id}: more than 64 placeholders are not substituted', () => {
  const r = run('https://x.example/' + '{id}'.repeat(65), { token_id: '1' });
  assert.equal(r.id_substitution.applied, false);
  assert.ok(codes(r).includes('TOO_MANY_ID_PLACEHOLDERS'));
  assert.equal(run('https://x.example/' + '{id}'.repeat(64), { token_id: '1' }).id_substitution.applied, true);
});

test('{id} without token_id warns; token_id without {id} is reported as unused', () => {
  const r = run('https://api.example.com/{id}.json');
  assert.equal(r.canonical_uri, 'https://api.example.com/{id}.json');
  assert.ok(codes(r).includes('MISSING_TOKEN_ID'));
  assert.equal(r.id_substitution.placeholder_found, true);
  assert.equal(r.id_substitution.applied, false);
  const u = run(`ipfs://${V0}/1.json`, { token_id: '5' });
  assert.ok(codes(u).includes('TOKEN_ID_UNUSED'));
  assert.equal(u.canonical_uri, `ipfs://${V0}/1.json`);
});

test('check(): token_id above 2^256-1 is a 400 before payment; bad gateway port too', () => {
  const over = (MAX_UINT256 + 1n).toString(10);
  const p = checkNormalizerRequest({ uri: 'x', token_id: over });
  assert.equal(p?.code, 'invalid_request');
  assert.deepEqual(p?.details.map((d) => [d.path, d.rule]), [['/token_id', 'max_uint256']]);
  const hexOver = checkNormalizerRequest({ uri: 'x', token_id: '0x1' + '0'.repeat(64) });
  assert.equal(hexOver?.details[0].rule, 'max_uint256');
  assert.equal(checkNormalizerRequest({ uri: 'x', token_id: MAX_UINT256.toString(10) }), undefined);
  assert.equal(checkNormalizerRequest({ uri: 'x', token_id: '0x' + 'f'.repeat(64) }), undefined);
  assert.equal(checkNormalizerRequest({ uri: 'x', ipfs_gateway: 'https://ipfs.io:99999' })?.details[0].path, '/ipfs_gateway');
  assert.equal(checkNormalizerRequest({ uri: 'x', ipfs_gateway: 'https://ipfs.io' }), undefined);
  assert.equal(cap.check, checkNormalizerRequest);
});

// ---------------------------------------------------------------------------
// data: URIs

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

test('data: base64 JSON is decoded and parsed; on-chain and immutable', () => {
  const json = '{"name":"Näme #1","image":"data:image/svg+xml;base64,PHN2Zy8+"}';
  const r = run(`data:application/json;base64,${b64(json)}`);
  assert.equal(r.kind, 'data');
  assert.equal(r.on_chain, true);
  assert.equal(r.mutable, false);
  assert.equal(r.gateway_url, null);
  assert.equal(r.data?.encoding, 'base64');
  assert.equal(r.data?.text, json);
  assert.equal(r.data?.is_json, true);
  assert.deepEqual(r.data?.json, JSON.parse(json));
  assert.equal(r.data?.byte_length, Buffer.byteLength(json));
  assert.equal(r.valid, true);
});

test('data: the common ;utf8, raw JSON, percent-encoded JSON, charset parameter', () => {
  const raw = run('data:application/json;utf8,{"name":"Token #2","attributes":[]}');
  assert.deepEqual(raw.data?.json, { name: 'Token #2', attributes: [] });
  assert.ok(codes(raw).includes('DATA_UTF8_FLAG'));
  assert.equal(raw.data?.charset, 'utf-8');
  const pct = run('data:application/json,%7B%22name%22%3A%22caf%C3%A9%22%7D');
  assert.deepEqual(pct.data?.json, { name: 'café' });
  assert.equal(pct.data?.encoding, 'percent');
  const cs = run('data:application/json;charset=UTF-8,{"a":1}');
  assert.equal(cs.data?.charset, 'utf-8');
  assert.deepEqual(cs.data?.parameters, [{ name: 'charset', value: 'UTF-8' }]);
  const plain = run('data:,Hello%2C%20World!');
  assert.equal(plain.data?.media_type, 'text/plain');
  assert.equal(plain.data?.media_type_omitted, true);
  assert.equal(plain.data?.text, 'Hello, World!');
  assert.equal(plain.data?.is_json, false);
  const latin = run('data:text/plain;charset=iso-8859-1,caf%E9');
  assert.equal(latin.data?.text, 'café');
  const upper = run('DATA:Application/JSON;BASE64,' + b64('[1,2]'));
  assert.equal(upper.canonical_uri, 'data:Application/JSON;BASE64,' + b64('[1,2]'));
  assert.deepEqual(upper.data?.json, [1, 2]);
});

test('data: svg text, binary png, whitespace and url-safe base64', () => {
  const svg = run(`data:image/svg+xml;base64,${b64('<svg xmlns="http://www.w3.org/2000/svg"/>')}`);
  assert.equal(svg.data?.text, '<svg xmlns="http://www.w3.org/2000/svg"/>');
  const png = run('data:image/png;base64,iVBORw0KGgo=');
  assert.equal(png.data?.text, null);
  assert.equal(png.data?.byte_length, 8);
  assert.ok(codes(png).includes('DATA_BINARY_NOT_DECODED'));
  const ws = run('data:application/json;base64,eyJh\nIjox fQ==');
  assert.deepEqual(ws.data?.json, { a: 1 });
  assert.ok(codes(ws).includes('DATA_BASE64_WHITESPACE_REMOVED'));
  const url = run('data:application/json;base64,' + Buffer.from('{"a":"??>"}').toString('base64url'));
  assert.deepEqual(url.data?.json, { a: '??>' });
  assert.ok(codes(url).includes('DATA_BASE64_URL_ALPHABET'));
});

test('data: invalid base64, invalid JSON, missing comma, invalid UTF-8', () => {
  const badB64 = run('data:application/json;base64,eyJh*Ijox');
  assert.equal(badB64.valid, false);
  assert.equal(badB64.canonical_uri, 'data:application/json;base64,eyJh*Ijox');
  assert.equal(badB64.data?.byte_length, null);
  assert.ok(codes(badB64).includes('DATA_BASE64_INVALID'));
  const badJson = run('data:application/json;utf8,{"name": oops}');
  assert.equal(badJson.valid, true, 'the URI is fine; its content is not');
  assert.equal(badJson.data?.is_json, false);
  assert.equal(badJson.data?.json, null);
  assert.ok(codes(badJson).includes('DATA_JSON_INVALID'));
  const noComma = run('data:application/json;base64');
  assert.equal(noComma.valid, false);
  assert.equal(noComma.canonical_uri, null);
  assert.ok(codes(noComma).includes('DATA_URI_MISSING_COMMA'));
  const badUtf8 = run('data:text/plain;charset=utf-8;base64,/w==');
  assert.equal(badUtf8.data?.text, '\uFFFD');
  assert.ok(codes(badUtf8).includes('DATA_TEXT_INVALID'));
  const badPct = run('data:,100%');
  assert.equal(badPct.data?.text, '100%');
  assert.ok(codes(badPct).includes('DATA_PERCENT_ENCODING_INVALID'));
  const mismatch = run('data:text/plain,{"a":1}');
  assert.deepEqual(mismatch.data?.json, { a: 1 });
  assert.ok(codes(mismatch).includes('DATA_JSON_MEDIA_TYPE_MISMATCH'));
});

test('data: JSON nested deeper than MAX_DATA_JSON_DEPTH is kept as text, not parsed (it used to throw after payment)', () => {
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
  for (const uri of [
    'data:application/json,' + deep(4000),
    'data:application/json;base64,' + Buffer.from(deep(20000)).toString('base64'),
    'data:,' + '{"a":'.repeat(5000) + '1' + '}'.repeat(5000),
  ]) {
    const r = run(uri);
    assert.equal(r.valid, true, 'the URI is fine; its content is only too deep to return parsed');
    assert.equal(r.data?.is_json, false);
    assert.equal(r.data?.json, null);
    assert.ok(r.data?.text?.startsWith('[') || r.data?.text?.startsWith('{'));
    assert.ok(codes(r).includes('DATA_JSON_TOO_DEEP'));
    // Inside a deep call stack too, as when a gate or an MCP envelope serialises it.
    const nest = (k: number): string => (k === 0 ? JSON.stringify({ result: r }) : nest(k - 1));
    assert.equal(typeof nest(2000), 'string');
  }
  const atLimit = run('data:application/json,' + deep(MAX_DATA_JSON_DEPTH));
  assert.equal(atLimit.data?.is_json, true);
  assert.ok(!codes(atLimit).includes('DATA_JSON_TOO_DEEP'));
  const inString = run('data:application/json,' + encodeURIComponent(JSON.stringify({ svg: '['.repeat(5000) })));
  assert.equal(inString.data?.is_json, true, 'brackets inside strings are not nesting');
});

test('data: {id} in a percent-encoded data URI is substituted before decoding', () => {
  const r = run('data:application/json,{"image":"ipfs://x/{id}.png"}', { token_id: '1' });
  assert.deepEqual(r.data?.json, { image: `ipfs://x/${tokenIdHex64(1n)}.png` });
  const inside = run(`data:application/json;base64,${b64('{"image":"ipfs://x/{id}.png"}')}`);
  assert.ok(codes(inside).includes('DATA_CONTAINS_ID_PLACEHOLDER'));
});

// ---------------------------------------------------------------------------
// http(s)

test('http(s): only scheme and host lowercased; plain http flagged and never upgraded', () => {
  const r = run('HTTPS://API.Example.COM:8443/Path/To/Token.JSON?Q=A#Frag');
  assert.equal(r.canonical_uri, 'https://api.example.com:8443/Path/To/Token.JSON?Q=A#Frag');
  assert.equal(r.kind, 'https');
  assert.equal(r.mutable, true);
  assert.equal(r.gateway_url, r.canonical_uri);
  assert.deepEqual(r.http, { host: 'api.example.com', port: '8443', has_userinfo: false });
  assert.ok(!codes(r).includes('PLAIN_HTTP'));
  const h = run('http://Example.com/a');
  assert.equal(h.canonical_uri, 'http://example.com/a');
  assert.equal(h.kind, 'http');
  assert.ok(codes(h).includes('PLAIN_HTTP'));
  assert.ok(h.gateway_url!.startsWith('http://'));
  const cred = run('https://User:Pw@Host.example/x');
  assert.equal(cred.canonical_uri, 'https://User:Pw@host.example/x');
  assert.ok(codes(cred).includes('URL_HAS_CREDENTIALS'));
  assert.equal(run('https://[2001:DB8::1]/x').canonical_uri, 'https://[2001:db8::1]/x');
  assert.equal(run('https://').valid, false);
  assert.equal(run('https:example.com').valid, false);
  assert.equal(run('https://host:abc/').valid, false);
});

// ---------------------------------------------------------------------------
// Trimming, empty and unsupported

test('whitespace and NULs are trimmed with warnings; whitespace-only is a delivered invalid result', () => {
  const r = run(`\t ipfs://${V0}\u0000\u0000 \n`);
  assert.equal(r.canonical_uri, `ipfs://${V0}`);
  assert.ok(codes(r).includes('WHITESPACE_TRIMMED'));
  assert.ok(codes(r).includes('TRAILING_NUL_TRIMMED'));
  assert.equal(r.raw_uri, `\t ipfs://${V0}\u0000\u0000 \n`);
  const nul = run(`ipfs://${V0}` + '\u0000'.repeat(20));
  assert.deepEqual(codes(nul).filter((c) => c.endsWith('TRIMMED')), ['TRAILING_NUL_TRIMMED']);
  const ws = run('   \n\t ');
  assert.equal(ws.kind, 'unsupported');
  assert.equal(ws.valid, false);
  assert.equal(ws.canonical_uri, null);
  assert.equal(ws.mutable, null);
  assert.ok(codes(ws).includes('EMPTY_URI'));
  assert.ok(codes(ws).includes('WHITESPACE_TRIMMED'));
});

test('unsupported schemes and garbage are delivered results of kind unsupported', () => {
  for (const u of ['ftp://example.com/x.json', 'mailto:a@b.c', 'hello world', 'not-a-cid/1.json', '//ipfs.io/ipfs/x']) {
    const r = run(u);
    assert.equal(r.kind, 'unsupported', u);
    assert.equal(r.valid, false, u);
    assert.equal(r.canonical_uri, null, u);
    assert.ok(r.warnings.some((w) => w.severity === 'error'), u);
  }
  assert.match(run(AR).warnings[0].message, /ar:\/\//, 'a bare Arweave id gets a hint');
});

test('evidence and limitations are always present', () => {
  const r = run('x');
  assert.deepEqual(r.evidence, { network_fetches: 0, model_calls: 0, supplier_payments: 0 });
  assert.ok(r.limitations.length > 0);
});

// ---------------------------------------------------------------------------
// Schemas, examples, capability metadata

test('capability metadata', () => {
  assert.equal(cap.id, 'nft-metadata-uri-normalizer');
  assert.equal(cap.method, 'POST');
  assert.equal(cap.path, '/x402/v1/nft-metadata-uri-normalizer');
  assert.equal(cap.priceAtomic, '1000');
  assert.equal(cap.maxBodyBytes, 128 * 1024);
  assert.ok(cap.examples.length >= 3);
});

test('the input schema rejects what the contract forbids', () => {
  assert.ok(validateIn({ uri: 'ipfs://x' }));
  assert.ok(validateIn({ uri: 'ipfs://x', token_id: '0x4cce0', ipfs_gateway: 'https://dweb.link/' }));
  assert.ok(validateIn({ uri: 'ipfs://x', ipfs_gateway: 'https://localhost:8080' }));
  assert.equal(validateIn({}), false, 'uri required');
  assert.equal(validateIn({ uri: '' }), false, 'empty uri');
  assert.equal(validateIn({ uri: 5 }), false);
  assert.equal(validateIn({ uri: 'x', extra: 1 }), false, 'additionalProperties');
  assert.equal(validateIn({ uri: 'x'.repeat(65537) }), false, 'maxLength');
  assert.ok(validateIn({ uri: 'x'.repeat(65536) }));
  assert.equal(validateIn({ uri: 'x', token_id: '-1' }), false, 'negative');
  assert.equal(validateIn({ uri: 'x', token_id: '1.5' }), false);
  assert.equal(validateIn({ uri: 'x', token_id: '' }), false);
  assert.equal(validateIn({ uri: 'x', token_id: '0x' }), false);
  assert.equal(validateIn({ uri: 'x', token_id: 12 }), false, 'number, not string');
  assert.equal(validateIn({ uri: 'x', token_id: ' 1' }), false);
  assert.equal(validateIn({ uri: 'x', ipfs_gateway: 'http://ipfs.io' }), false, 'not https');
  assert.equal(validateIn({ uri: 'x', ipfs_gateway: 'https://ipfs.io/ipfs/' }), false, 'has a path');
  assert.equal(validateIn({ uri: 'x', ipfs_gateway: 'https://ipfs.io?x' }), false);
  assert.equal(validateIn({ uri: 'x', ipfs_gateway: 'ipfs.io' }), false);
});

test('examples are consistent with the handler and both schemas', () => {
  for (const ex of cap.examples) {
    assert.ok(validateIn(structuredClone(ex.input)), ex.summary);
    assert.equal(cap.check?.(ex.input), undefined, ex.summary);
    assert.deepEqual(cap.run(ex.input), ex.output, ex.summary);
    assert.ok(validateOut(ex.output), JSON.stringify(validateOut.errors));
    assert.equal(ex.output.valid, true, ex.summary);
  }
});

test('long adversarial inputs get a valid answer (their timings: npm run bench, adversarial inputs)', () => {
  for (const uri of adversarialUris()) {
    const r = cap.run({ uri, token_id: '5' });
    assert.ok(validateOut(r), `${uri.slice(0, 20)}…: ${JSON.stringify(validateOut.errors)?.slice(0, 300)}`);
  }
});

test('deterministic: same input, same output', () => {
  const a = cap.run({ uri: `https://x.example/ipfs/${V0}/{id}`, token_id: '7' });
  const b = cap.run({ uri: `https://x.example/ipfs/${V0}/{id}`, token_id: '7' });
  assert.deepEqual(a, b);
});

// ---------------------------------------------------------------------------
// Properties

const V0S = [V0, V0B, 'QmbWqxBEKC3P8tqsKc98xmWNzrzDtRLMiMPL8wBuTGsMnR'];
const V1S = [V1, 'bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi', 'bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku'];
const cidArb = fc.constantFrom(...V0S, ...V1S);
const pathArb = fc.stringMatching(/^(\/[A-Za-z0-9._~{}%-]{0,8}){0,3}(\?[A-Za-z0-9=&{}]{0,6})?(#[A-Za-z0-9]{0,4})?$/);
const ipfsFormArb = fc.tuple(
  cidArb,
  pathArb,
  fc.constantFrom(
    (c: string, p: string) => `ipfs://${c}${p}`,
    (c: string, p: string) => `ipfs://ipfs/${c}${p}`,
    (c: string, p: string) => `ipfs://ipfs/ipfs/${c}${p}`,
    (c: string, p: string) => `/ipfs/${c}${p}`,
    (c: string, p: string) => `ipfs/${c}${p}`,
    (c: string, p: string) => `/ipfs/ipfs/${c}${p}`,
    (c: string, p: string) => `${c}${p}`,
    (c: string, p: string) => `https://gw.example/ipfs/${c}${p}`,
    (c: string, p: string) => `https://gw.example/ipfs/ipfs/${c}${p}`,
    (c: string, p: string) => `http://gw.example:8080/ipfs/${c}${p}`,
    (c: string, p: string) => `dweb:/ipfs/${c}${p}`,
  ),
  fc.constantFrom('', ' ', '\n', '\u0000', '\u0000\u0000 '),
);
const tokenArb = fc.option(
  fc.oneof(
    fc.bigInt({ min: 0n, max: MAX_UINT256 }).map((n) => n.toString(10)),
    fc.bigInt({ min: 0n, max: MAX_UINT256 }).map((n) => '0x' + n.toString(16)),
  ),
  { nil: undefined },
);
const gatewayArb = fc.option(fc.constantFrom('https://ipfs.io', 'https://dweb.link/', 'https://Gateway.Pinata.cloud', 'https://localhost:8080'), {
  nil: undefined,
});
const anyUriArb = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({ maxLength: 80 }).map((s) => 'ipfs://' + s),
  fc.string({ maxLength: 80 }).map((s) => 'https://' + s),
  fc.string({ maxLength: 80 }).map((s) => 'data:' + s),
  fc.string({ maxLength: 80 }).map((s) => 'ar://' + s),
  fc.string({ maxLength: 80 }).map((s) => 'ipns://' + s),
  fc.tuple(cidArb, fc.string({ unit: 'binary', maxLength: 30 })).map(([c, s]) => c + s),
  fc.tuple(cidArb, fc.string({ maxLength: 20 })).map(([c, s]) => `https://${c}.ipfs.${s}`),
  fc.tuple(fc.string({ maxLength: 12 }), fc.string({ maxLength: 20 })).map(([a, s]) => `https://${a}.ipns.${s}`),
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  ipfsFormArb.map(([c, p, f, ws]) => f(c, p) + ws),
);

test('property: never throws on arbitrary strings, and the output always matches the schema', () => {
  fc.assert(
    fc.property(anyUriArb, tokenArb, (uri, token_id) => {
      const out = cap.run(token_id === undefined ? { uri } : { uri, token_id });
      assert.ok(validateOut(out), JSON.stringify(validateOut.errors));
      assert.equal(out.raw_uri, uri);
      assert.equal(out.valid, out.canonical_uri !== null && !out.warnings.some((w) => w.severity === 'error'));
    }),
    { numRuns: 3000 },
  );
});

test('property: idempotence — normalizing the canonical URI gives itself', () => {
  fc.assert(
    fc.property(anyUriArb, tokenArb, gatewayArb, (uri, token_id, ipfs_gateway) => {
      const req: NormalizerRequest = { uri };
      if (token_id !== undefined) req.token_id = token_id;
      if (ipfs_gateway !== undefined) req.ipfs_gateway = ipfs_gateway;
      const first = cap.run(req);
      if (first.canonical_uri === null) return;
      const second = cap.run({ ...req, uri: first.canonical_uri });
      assert.equal(second.canonical_uri, first.canonical_uri);
      assert.equal(second.kind, first.kind);
      assert.equal(second.gateway_url, first.gateway_url);
    }),
    { numRuns: 3000 },
  );
});

test('property: never yields /ipfs/ipfs/ from IPFS input forms; canonical never starts ipfs://ipfs/', () => {
  fc.assert(
    fc.property(ipfsFormArb, tokenArb, ([c, p, f, ws], token_id) => {
      const out = cap.run({ uri: f(c, p) + ws, token_id });
      assert.equal(out.kind, 'ipfs');
      assert.ok(out.canonical_uri !== null && !out.canonical_uri.startsWith('ipfs://ipfs/'));
      for (const v of [out.canonical_uri, out.gateway_url, out.subdomain_gateway_url]) {
        assert.ok(v !== null && !v.includes('/ipfs/ipfs/'), String(v));
      }
    }),
    { numRuns: 2000 },
  );
  fc.assert(
    fc.property(anyUriArb, (uri) => {
      const out = cap.run({ uri });
      if (out.canonical_uri !== null) assert.ok(!out.canonical_uri.startsWith('ipfs://ipfs/'));
      if (out.kind === 'ipfs' && out.gateway_url !== null) assert.ok(!out.gateway_url.startsWith('https://ipfs.io/ipfs/ipfs/'));
    }),
    { numRuns: 2000 },
  );
});

test('property: CIDv0 case is preserved in every output', () => {
  fc.assert(
    fc.property(ipfsFormArb.filter(([c]) => c.startsWith('Qm')), ([c, p, f, ws]) => {
      const out = cap.run({ uri: f(c, p) + ws });
      assert.equal(out.ipfs?.cid, c);
      assert.equal(out.ipfs?.cid_version, 0);
      assert.ok(out.canonical_uri?.includes(c));
      assert.ok(out.gateway_url?.includes(c));
      assert.ok(!out.canonical_uri?.includes(c.toLowerCase()));
    }),
    { numRuns: 1000 },
  );
});

test('property: {id} substitution is the 64-digit lowercase hex of the token id', () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: MAX_UINT256 }), fc.boolean(), (n, asHex) => {
      const token_id = asHex ? '0x' + n.toString(16) : n.toString(10);
      assert.equal(checkNormalizerRequest({ uri: 'x', token_id }), undefined);
      const out = cap.run({ uri: `ipfs://${V1}/{id}.json`, token_id });
      const hex = out.id_substitution.token_id_hex!;
      assert.match(hex, /^[0-9a-f]{64}$/);
      assert.equal(BigInt('0x' + hex), n);
      assert.equal(out.canonical_uri, `ipfs://${V1}/${hex}.json`);
    }),
    { numRuns: 500 },
  );
  fc.assert(
    fc.property(fc.bigInt({ min: MAX_UINT256 + 1n, max: MAX_UINT256 * 4n }), (n) => {
      assert.equal(checkNormalizerRequest({ uri: 'x', token_id: n.toString(10) })?.details[0].rule, 'max_uint256');
    }),
    { numRuns: 200 },
  );
});
