/**
 * Who a request counts against in every per-client limit and budget: one key
 * per host, so a host cannot multiply its budgets by rotating the addresses
 * of its own prefix (issue 41, row 5). Driven through the function every
 * limiter calls, with the forms a socket or a trusted proxy reports.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prng } from '../../test/support/prng.js';
import { clientKeyOf } from './forwarded.js';

/** The key of a request whose trusted proxy appended `hop` to X-Forwarded-For. */
const viaProxy = (hop: string) => clientKeyOf(undefined, `198.51.100.200, ${hop}`, true);
/** The key of a request whose socket peer is `remoteAddress` (the Hono env @hono/node-server hands the app). */
const bySocket = (remoteAddress: string) => clientKeyOf({ incoming: { socket: { remoteAddress } } }, undefined, false);

function sameKey(forms: string[], keyOf: (s: string) => string = viaProxy): void {
  const keys = forms.map(keyOf);
  for (let i = 1; i < forms.length; i++) assert.equal(keys[i], keys[0], `${forms[i]} and ${forms[0]} are one client (keys ${keys[i]} and ${keys[0]})`);
}

function distinctKeys(forms: string[], keyOf: (s: string) => string = viaProxy): void {
  const keys = forms.map(keyOf);
  assert.equal(new Set(keys).size, forms.length, `${forms.join(' | ')} are different clients, got keys ${keys.join(' | ')}`);
}

test('the whole of 127.0.0.0/8 and ::1 are one host: one key, as the socket or as the proxy reports them', () => {
  const forms = ['127.0.0.1', '127.0.0.2', '127.0.0.6', '127.0.0.10', '127.255.255.254', '::ffff:127.0.0.3', '::FFFF:7f00:5', '::1', '0:0:0:0:0:0:0:1', '[::1]:8080', '127.0.0.4:50000'];
  sameKey(forms);
  sameKey(forms.filter((f) => !f.includes('[') && !/\.\d+:\d+$/.test(f)), bySocket);
  assert.equal(viaProxy('127.0.0.9'), bySocket('::ffff:127.0.0.2'), 'the same host through the proxy or on the socket');
});

test('an IPv4 address is keyed by its whole /32 (NAT: one address is often many users), however it is written', () => {
  sameKey(['203.0.113.9', '::ffff:203.0.113.9', '::ffff:cb00:7109', '0:0:0:0:0:ffff:cb00:7109', '[::ffff:203.0.113.9]:443', '203.0.113.9:61000', '64:ff9b::203.0.113.9']);
  sameKey(['203.0.113.9', '::ffff:203.0.113.9'], bySocket);
  distinctKeys(['203.0.113.9', '203.0.113.10', '203.0.112.9', '10.0.0.1', '10.0.0.2', '127.0.0.1']);
  distinctKeys(['::ffff:203.0.113.9', '::ffff:203.0.113.10']);
});

test('an IPv6 address is keyed by its /64, compressed, expanded, upper case, bracketed or with a port', () => {
  sameKey([
    '2001:db8:1:2::1',
    '2001:db8:1:2::ffff',
    '2001:0db8:0001:0002:0000:0000:0000:0007',
    '2001:DB8:1:2:AAAA:BBBB:CCCC:DDDD',
    '2001:db8:1:2:ffff:ffff:ffff:ffff',
    '2001:db8:1:2::',
    '[2001:db8:1:2::5]',
    '[2001:db8:1:2::5]:8443',
    '2001:db8:1:2::1.2.3.4',
  ]);
  sameKey(['2001:db8:1:2::1', '2001:db8:1:2:9::9'], bySocket);
  distinctKeys(['2001:db8:1:2::1', '2001:db8:1:3::1', '2001:db8:2:2::1', '2001:db9:1:2::1', '2001:db8::1', '::2']);
  // An IPv6 /64 whose leading bits spell an IPv4 address is not that IPv4 client.
  assert.notEqual(viaProxy('cb00:7109::1'), viaProxy('203.0.113.9'));
});

test('any address of a /64, in any spelling, has the /64\'s key; a change in the first 64 bits is another client', () => {
  const random = prng(41);
  const group = () => Math.floor(random() * 0x10000);
  const expanded = (g: number[]) => g.map((x) => x.toString(16).padStart(4, '0')).join(':');
  // The RFC 5952 form: the longest run of zero groups (two or more) becomes `::`.
  const compressed = (g: number[]) => {
    let [at, len] = [-1, 1];
    for (let i = 0; i < 8; i++) {
      let j = i;
      while (j < 8 && g[j] === 0) j++;
      if (j - i > len) [at, len] = [i, j - i];
    }
    const hex = g.map((x) => x.toString(16));
    return at < 0 ? hex.join(':') : `${hex.slice(0, at).join(':')}::${hex.slice(at + len).join(':')}`;
  };
  for (let n = 0; n < 300; n++) {
    // Global unicast (2000::/3), some groups zero so that `::` appears.
    const prefix = [0x2000 | (group() & 0x1fff), group(), random() < 0.3 ? 0 : group(), random() < 0.3 ? 0 : group()];
    const host = () => [0, 0, 0, 0].map(() => (random() < 0.4 ? 0 : group()));
    const a = [...prefix, ...host()];
    const b = [...prefix, ...host()];
    sameKey([compressed(a), expanded(a), expanded(a).toUpperCase(), `[${compressed(a)}]:443`, compressed(b), `${compressed(b)}%eth0`]);
    const other = [...prefix];
    other[Math.floor(random() * 4)]! ^= 1 << Math.floor(random() * 16);
    distinctKeys([compressed(a), compressed([...other, ...host()])]);
  }
});

test('keys are short and say what they stand for', () => {
  assert.equal(viaProxy('2001:0db8:0001:0002:0003:0004:0005:0006'), '2001:db8:1:2::/64');
  assert.equal(viaProxy('::ffff:203.0.113.9'), '203.0.113.9');
  assert.equal(viaProxy('127.0.0.2'), viaProxy('::1'));
});

test('a zone id names an interface, not a host: link-local addresses are keyed like any other /64', () => {
  sameKey(['fe80::1%eth0', 'fe80::2%eth1', 'fe80::abcd', 'fe80::1%25lo', '[fe80::1%eth0]:80']);
  sameKey(['fe80::1%eth0', 'fe80::2'], bySocket);
  assert.notEqual(viaProxy('fe80::1%eth0'), viaProxy('fe80:0:0:1::1'));
});

test('garbage is one client, never one budget per spelling, and never a long key', () => {
  const garbage = ['not-an-ip', '999.1.1.1', '1.2.3', '01.2.3.4', '1.2.3.4.5', '[::1', '::1]', '2001:db8:::1', '2001:db8::1::2', 'fe80::1%', '1.2.3.4:99999', '1.2.3.4:', ':80', 'unknown', 'x'.repeat(10_000), '[203.0.113.9]', '203.0.113.9:80:80', 'ffff::ffff::'];
  sameKey(garbage);
  for (const g of garbage) assert.ok(viaProxy(g).length <= 64, `the key of ${g.slice(0, 20)}… is short`);
  for (const real of ['127.0.0.1', '203.0.113.9', '2001:db8:1:2::1']) assert.notEqual(viaProxy('not-an-ip'), viaProxy(real), `garbage is not ${real}`);
});

test('without TRUST_PROXY the socket decides; with it, the last hop (the one our proxy appended), else the socket', () => {
  const socket = { incoming: { socket: { remoteAddress: '::ffff:192.0.2.1' } } };
  assert.equal(clientKeyOf(socket, '2001:db8:1:2::1', false), clientKeyOf(socket, undefined, false));
  assert.equal(clientKeyOf(socket, '2001:db8:1:2::1', false), viaProxy('192.0.2.1'));
  assert.equal(clientKeyOf(socket, '10.9.9.9, 2001:db8:1:2::1', true), viaProxy('2001:db8:1:2::77'));
  assert.equal(clientKeyOf(socket, '2001:db8:1:2::1, 10.9.9.9', true), viaProxy('10.9.9.9'));
  assert.equal(clientKeyOf(socket, '', true), clientKeyOf(socket, undefined, false), 'an empty header: the socket');
  assert.equal(clientKeyOf(socket, '10.9.9.9,  ', true), clientKeyOf(socket, undefined, false), 'an empty last hop: the socket');
});
