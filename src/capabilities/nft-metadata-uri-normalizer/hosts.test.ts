/**
 * Host names (RFC 1035/1123) and DNSLink names on subdomain gateways.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import ajv2020 from 'ajv/dist/2020.js';
import { nftMetadataUriNormalizer as cap } from './index.js';
import type { NormalizerRequest, NormalizerResponse } from './normalize.js';
import { dnsLabelProblem, dnsNameProblem } from './dns.js';

const Ajv2020 = ajv2020.default;
const validateOut = new Ajv2020({ strict: false, allErrors: true }).compile(cap.outputSchema);

function run(uri: string, extra: Omit<NormalizerRequest, 'uri'> = {}): NormalizerResponse {
  const out = cap.run({ uri, ...extra });
  assert.ok(validateOut(out), `output schema: ${JSON.stringify(validateOut.errors)} for ${uri}`);
  return out;
}

const codes = (r: NormalizerResponse) => r.warnings.map((w) => w.code);

test('issue 14: an inlined DNSLink label with a trailing hyphen is an invalid host, not ipns://invalid.hostname.', () => {
  const r = run('http://invalid-hostname-.ipns.dweb.link');
  assert.equal(r.valid, false);
  assert.equal(r.canonical_uri, null);
  assert.equal(r.kind, 'http');
  assert.equal(r.ipns, null);
  const err = r.warnings.find((w) => w.code === 'INVALID_HOST');
  assert.equal(err?.severity, 'error');
  assert.match(err!.message, /invalid-hostname-/);
  assert.match(err!.message, /ends with a hyphen/);
});

test('hosts that break RFC 1123 are refused with INVALID_HOST', () => {
  const bad = [
    'https://-lead.ipns.dweb.link/',
    'https://docs-.ipfs-io.ipns.dweb.link/',
    `https://${'a'.repeat(64)}.example.com/`,
    `https://${Array.from({ length: 64 }, () => 'abc').join('.')}/`, // 255 characters
    'https://a..b.example/',
    'https://.example.com/',
    'https://bücher.example/',
    'https://ex%41mple.com/',
    'https://exa!mple.com/',
  ];
  for (const uri of bad) {
    const r = run(uri);
    assert.equal(r.valid, false, uri);
    assert.equal(r.canonical_uri, null, uri);
    assert.ok(codes(r).includes('INVALID_HOST'), `${uri}: ${codes(r)}`);
  }
  assert.match(run('https://bücher.example/').warnings[0].message, /xn--/);
});

test('valid hosts are unaffected: digits, inner hyphens, 63-character labels, 253 characters, IP literals, a root dot', () => {
  const name253 = [...Array.from({ length: 3 }, () => 'a'.repeat(63)), 'b'.repeat(61)].join('.');
  assert.equal(name253.length, 253);
  for (const uri of [
    'https://3com.example/x',
    'https://a-b--c.example/x',
    `https://${'a'.repeat(63)}.example/x`,
    `https://${name253}/x`,
    'http://127.0.0.1:8080/x',
    'https://[2001:db8::1]/x',
    'https://example.com./x',
    'https://localhost/x',
  ]) {
    const r = run(uri);
    assert.equal(r.valid, true, `${uri}: ${JSON.stringify(r.warnings)}`);
    assert.ok(!codes(r).includes('INVALID_HOST'), uri);
  }
});

test('"_" in a host is kept with a warning (ArNS undernames use it) and never read as a gateway name', () => {
  const r = run('https://dapp_ardrive.arweave.net/index.html');
  assert.equal(r.valid, true);
  assert.equal(r.canonical_uri, 'https://dapp_ardrive.arweave.net/index.html');
  assert.ok(codes(r).includes('HOST_UNDERSCORE'));
  const g = run('https://docs_ipfs.io.ipns.dweb.link/');
  assert.equal(g.kind, 'https');
  assert.ok(codes(g).includes('IPNS_SUBDOMAIN_INVALID_NAME'));
});

test('issue 14: a DNSLink name that is not inlined, under a known subdomain gateway, is ipns://', () => {
  const r = run('http://docs.ipfs.io.ipns.dweb.link');
  assert.equal(r.kind, 'ipns');
  assert.equal(r.canonical_uri, 'ipns://docs.ipfs.io');
  assert.equal(r.valid, true);
  assert.equal(r.ipns?.name_type, 'dnslink');
  assert.equal(r.gateway_url, 'https://ipfs.io/ipns/docs.ipfs.io');
  assert.equal(r.subdomain_gateway_url, 'https://docs-ipfs-io.ipns.dweb.link/');
  assert.ok(codes(r).includes('GATEWAY_URL_CANONICALIZED'));
  assert.ok(codes(r).includes('SUBDOMAIN_DNSLINK_NOT_INLINED'));
  const withPath = run('https://Docs.IPFS.io.IPNS.dweb.link/concepts/Index.html?x=1#top');
  assert.equal(withPath.canonical_uri, 'ipns://docs.ipfs.io/concepts/Index.html?x=1#top');
  // Other known gateways, and the caller's own ipfs_gateway.
  assert.equal(run('https://en.wikipedia-on-ipfs.org.ipns.w3s.link/wiki/').canonical_uri, 'ipns://en.wikipedia-on-ipfs.org/wiki/');
  const own = run('https://docs.ipfs.io.ipns.gw.example.org/', { ipfs_gateway: 'https://gw.example.org' });
  assert.equal(own.canonical_uri, 'ipns://docs.ipfs.io/');
  assert.equal(own.subdomain_gateway_url, 'https://docs-ipfs-io.ipns.gw.example.org/');
});

test('inlined DNSLink labels keep working ("-" is ".", "--" is "-")', () => {
  assert.equal(run('http://docs-ipfs-io.ipns.dweb.link').canonical_uri, 'ipns://docs.ipfs.io');
  assert.equal(run('https://en-wikipedia--on--ipfs-org.ipns.dweb.link/wiki/').canonical_uri, 'ipns://en.wikipedia-on-ipfs.org/wiki/');
  // Any host works for the one-label form, as before.
  assert.equal(run('https://docs-ipfs-io.ipns.gateway.example/').canonical_uri, 'ipns://docs.ipfs.io/');
  assert.ok(!codes(run('http://docs-ipfs-io.ipns.dweb.link')).includes('SUBDOMAIN_DNSLINK_NOT_INLINED'));
});

test('ambiguous or broken DNSLink forms stay http(s)', () => {
  // Unknown gateway: where its host begins cannot be told.
  const unknown = run('https://docs.ipfs.io.ipns.example.com/');
  assert.equal(unknown.kind, 'https');
  assert.equal(unknown.canonical_uri, 'https://docs.ipfs.io.ipns.example.com/');
  // One label, no dot after decoding: not a DNSLink name.
  const one = run('https://docs.ipns.dweb.link/');
  assert.equal(one.kind, 'https');
  assert.ok(codes(one).includes('IPNS_SUBDOMAIN_INVALID_NAME'));
  // "a---b" decodes to "a-.b", whose first label ends with a hyphen.
  const broken = run('https://a---b.ipns.dweb.link/');
  assert.equal(broken.kind, 'https');
  assert.ok(codes(broken).includes('IPNS_SUBDOMAIN_INVALID_NAME'));
  // Several labels in front of ".ipfs." are never a CID.
  const multi = run('https://docs.ipfs.io.ipfs.dweb.link/');
  assert.equal(multi.kind, 'https');
  assert.ok(codes(multi).includes('IPFS_SUBDOMAIN_INVALID_CID'));
  // An ordinary host with an "ipfs" label is still just a host.
  assert.deepEqual(run('https://docs.ipfs.tech/concepts/').warnings, []);
});

test('ipns:// DNSLink names follow the same host-name rules', () => {
  assert.equal(run('ipns://docs.ipfs.io').valid, true);
  assert.equal(run('ipns://docs.ipfs.io.').valid, true, 'a root dot is allowed');
  for (const name of ['bad-.example.com', '-bad.example.com', 'under_score.example.com', `${'a'.repeat(64)}.example.com`, 'a..b']) {
    const r = run(`ipns://${name}`);
    assert.equal(r.valid, false, name);
    assert.ok(codes(r).includes('IPNS_NAME_INVALID'), name);
  }
  assert.match(run('ipns://bad-.example.com').warnings.find((w) => w.code === 'IPNS_NAME_INVALID')!.message, /hyphen/);
});

test('dnsLabelProblem / dnsNameProblem', () => {
  assert.equal(dnsLabelProblem('a'), undefined);
  assert.equal(dnsLabelProblem('0'), undefined);
  assert.equal(dnsLabelProblem('a-0'), undefined);
  assert.equal(dnsLabelProblem('a'.repeat(63)), undefined);
  assert.match(dnsLabelProblem('a'.repeat(64))!, /longer than 63/);
  assert.match(dnsLabelProblem('')!, /empty/);
  assert.match(dnsLabelProblem('-a')!, /starts with a hyphen/);
  assert.match(dnsLabelProblem('a-')!, /ends with a hyphen/);
  assert.match(dnsLabelProblem('a_b')!, /other than letters/);
  assert.equal(dnsNameProblem('example.com'), undefined);
  assert.equal(dnsNameProblem('example.com.'), undefined);
  assert.match(dnsNameProblem('example', 2)!, /at least 2/);
  assert.match(dnsNameProblem('a.'.repeat(127) + 'a')!, /longer than 253/);
  assert.equal(dnsNameProblem('a.'.repeat(126) + 'a'), undefined, '253 characters');
});
