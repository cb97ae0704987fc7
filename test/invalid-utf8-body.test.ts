/**
 * Attack: invalid UTF-8 inside a request body. It used to be replaced with
 * U+FFFD, validated and charged. Now every surface decodes bodies as strict
 * UTF-8: JSON bodies get 400 invalid_json (rule utf-8), a raw text/html body
 * 400 invalid_request (rule utf-8) and a declared non-UTF-8 charset 415 —
 * all before any payment step.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { signFor, startRig, type Rig } from './support/harness.js';

const TOKEN = 'test-admin-token-0123456789abcdef';
const NFT = '/x402/v1/nft-metadata-uri-normalizer';
const EXTRACTOR = '/x402/v1/catalog-offer-evidence-extractor';
const URI = 'ipfs://QmZHKZDavkvNfA9gSAg7HALv8jF7BJaKjUc9U2LSuvUySB/';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Malformed sequences: lone continuation, invalid lead, overlong "/", UTF-16 surrogate, truncated at the end. */
const BAD: Array<[string, number[]]> = [
  ['lone continuation byte', [0x80]],
  ['0xFF', [0xff, 0xfe]],
  ['overlong encoding', [0xc0, 0xaf]],
  ['encoded surrogate', [0xed, 0xa0, 0x80]],
  ['truncated sequence', [0xe2, 0x82]],
];

const bytes = (...parts: Array<string | number[]>) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));

describe('invalid UTF-8 in a body is a 400 before any payment step', () => {
  let rig: Rig;
  let base: string;
  before(async () => {
    rig = await startRig({ env: { ADMIN_TOKEN: TOKEN } });
    base = rig.service.url;
  });
  after(async () => rig?.close());

  const post = (path: string, body: Buffer, headers: Record<string, string> = {}) =>
    fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: new Uint8Array(body) });

  test('paid route, JSON body, valid payment attached: 400 invalid_json and the facilitator is never asked', async () => {
    const { header } = await signFor(base + NFT, { uri: URI + 'a.json' }, rig.devnet);
    const calls = { ...rig.proxy.calls };
    for (const [what, bad] of BAD) {
      const res = await post(NFT, bytes('{"uri":"' + URI, bad, 'a.json"}'), { 'PAYMENT-SIGNATURE': header });
      const body = (await res.json()) as Json;
      assert.equal(res.status, 400, `${what}: ${JSON.stringify(body)}`);
      assert.equal(body.error.code, 'invalid_json', what);
      assert.deepEqual(body.error.details, [{ path: '', rule: 'utf-8' }], what);
    }
    assert.equal(rig.proxy.calls.verify, calls.verify);
    assert.equal(rig.proxy.calls.settle, calls.settle);
  });

  test('valid UTF-8 (multi-byte characters, a leading BOM) is still read', async () => {
    const ok = await post(NFT, bytes('{"uri":"' + URI + 'caf\u00e9-\u{1F600}.json"}'));
    assert.equal(ok.status, 402);
    const bom = await post(NFT, bytes([0xef, 0xbb, 0xbf], JSON.stringify({ uri: URI })));
    assert.equal(bom.status, 402);
  });

  test('raw text/html on the extractor: strict UTF-8; another declared charset is 415', async () => {
    const html = '<html><head><script type="application/ld+json">{"@type":"Product","name":"Caf\u00e9"}</script></head></html>';
    const ok = await post(EXTRACTOR, bytes(html), { 'content-type': 'text/html; charset=utf-8' });
    assert.equal(ok.status, 402);
    for (const [what, bad] of BAD) {
      const res = await post(EXTRACTOR, bytes('<html><body>', bad, '</body></html>'), { 'content-type': 'text/html' });
      const body = (await res.json()) as Json;
      assert.equal(res.status, 400, what);
      assert.equal(body.error.code, 'invalid_request', what);
      assert.deepEqual(body.error.details, [{ path: '', rule: 'utf-8' }], what);
    }
    const latin1 = await post(EXTRACTOR, Buffer.from('<html>Caf\u00e9</html>', 'latin1'), { 'content-type': 'text/html; charset=ISO-8859-1' });
    assert.equal(latin1.status, 415);
    assert.deepEqual(((await latin1.json()) as Json).error.details.map((d: Json) => d.rule), ['charset']);
    const notHtml = await post(EXTRACTOR, bytes('a', [0xff]), { 'content-type': 'text/plain; charset=latin1' });
    assert.equal(notHtml.status, 415);
    assert.deepEqual(((await notHtml.json()) as Json).error.details.map((d: Json) => d.rule), ['content-type']);
  });

  test('router quote', async () => {
    for (const [what, bad] of BAD) {
      const res = await post('/v1/router/quote', bytes('{"objective":"contrast of #777777 on #ffffff ', bad, '"}'));
      const body = (await res.json()) as Json;
      assert.equal(res.status, 400, what);
      assert.equal(body.error.code, 'invalid_json', what);
      assert.deepEqual(body.error.details, [{ path: '', rule: 'utf-8' }], what);
    }
  });

  test('admin API: items and NDJSON import', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    for (const path of ['/admin/v1/items', '/admin/v1/census', '/admin/v1/import']) {
      const res = await post(path, bytes('{"headline":"', [0xff], '"}'), auth);
      const body = (await res.json()) as Json;
      assert.equal(res.status, 400, path);
      assert.equal(body.error.code, 'invalid_json', path);
      assert.deepEqual(body.error.details, [{ path: '', rule: 'utf-8' }], path);
    }
  });

  test('MCP: JSON-RPC parse error -32700 carrying invalid_json', async () => {
    const msg = (bad: number[]) =>
      bytes('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nft-metadata-uri-normalizer","arguments":{"uri":"' + URI, bad, '"}}}');
    for (const [what, bad] of BAD) {
      const res = await post('/mcp', msg(bad), { accept: 'application/json, text/event-stream' });
      const body = (await res.json()) as Json;
      assert.equal(res.status, 400, what);
      assert.equal(body.error.code, -32700, what);
      assert.equal(body.error.data.error.code, 'invalid_json', what);
      assert.deepEqual(body.error.data.error.details, [{ path: '', rule: 'utf-8' }], what);
    }
  });
});
