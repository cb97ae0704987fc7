/**
 * Attack: JSON bodies nested thousands of levels deep. Every surface (paid
 * routes, the router quote and composite, the admin API, MCP) refuses them
 * with 400 invalid_json (rule max-depth) — on MCP a JSON-RPC -32602 error —
 * before any payment step: with a valid payment attached, the facilitator is
 * never asked. Nesting up to MAX_JSON_DEPTH still works.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_JSON_DEPTH } from '../src/catalog/json-input.js';
import { BLACK_ON_WHITE, CONTRAST, postJson, signFor, startRig, type Rig } from './support/harness.js';

const TOKEN = 'test-admin-token-0123456789abcdef';
const NFT = '/x402/v1/nft-metadata-uri-normalizer';
const COMPOSITE = '/x402/v1/outcome-router';
const QUOTE = '/v1/router/quote';
const OBJECTIVE = 'contrast of #777777 on #ffffff';

const arrays = (n: number) => '['.repeat(n) + ']'.repeat(n);
/** `{"a":{"a":…1…}}`, n levels. */
const objects = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

function assertMaxDepth(status: number, body: Json, what: string) {
  assert.equal(status, 400, `${what}: ${JSON.stringify(body).slice(0, 300)}`);
  assert.equal(body.error.code, 'invalid_json', what);
  assert.deepEqual(body.error.details.map((d: Json) => d.rule), ['max-depth'], what);
}

describe('deeply nested JSON is a 400 before any payment step, on every surface', () => {
  let rig: Rig;
  let base: string;
  before(async () => {
    rig = await startRig({ env: { ADMIN_TOKEN: TOKEN, OUTCOME_ROUTER_COMPOSITE: '1' } });
    base = rig.service.url;
  });
  after(async () => rig?.close());

  const unchangedFacilitator = async (fn: () => Promise<void>) => {
    const calls = { ...rig.proxy.calls };
    await fn();
    assert.equal(rig.proxy.calls.verify, calls.verify, 'the facilitator was asked to verify');
    assert.equal(rig.proxy.calls.settle, calls.settle, 'the facilitator was asked to settle');
  };

  test('paid routes, with a valid payment attached', async () => {
    const nft = { uri: 'ipfs://QmZHKZDavkvNfA9gSAg7HALv8jF7BJaKjUc9U2LSuvUySB' };
    const nftSig = (await signFor(base + NFT, nft, rig.devnet)).header;
    const contrastSig = (await signFor(base + CONTRAST, BLACK_ON_WHITE, rig.devnet)).header;
    await unchangedFacilitator(async () => {
      const cases: Array<[string, string, string]> = [
        [NFT, `{"uri":${arrays(20000)}}`, nftSig],
        [NFT, `{"uri":"x","extra":${objects(5000)}}`, nftSig],
        [NFT, arrays(20000), nftSig],
        // The contrast route takes 4 KiB: 1000 levels fit.
        [CONTRAST, `{"foreground":${arrays(1000)},"background":"#ffffff"}`, contrastSig],
        [CONTRAST, `{"foreground":"#000000","background":"#ffffff","large_text":false,"x":${objects(MAX_JSON_DEPTH)}}`, contrastSig],
      ];
      for (const [path, body, sig] of cases) {
        const res = await postJson(base + path, body, { 'PAYMENT-SIGNATURE': sig });
        assertMaxDepth(res.status, await res.json(), `${path} ${body.slice(0, 40)}`);
      }
    });
  });

  test('router quote: free-form inputs and buyer_metadata', async () => {
    for (const body of [`{"objective":"x","inputs":${arrays(20000)}}`, `{"objective":"x","buyer_metadata":${objects(20000)}}`, arrays(100000)]) {
      const res = await postJson(base + QUOTE, body);
      assertMaxDepth(res.status, await res.json(), body.slice(0, 40));
    }
  });

  test('exactly MAX_JSON_DEPTH levels are accepted; one more is refused', async () => {
    // The body object is level 1 and buyer_metadata's value level 2.
    const at = (levels: number) => `{"objective":${JSON.stringify(OBJECTIVE)},"buyer_metadata":${objects(levels - 1)}}`;
    const ok = await postJson(base + QUOTE, at(MAX_JSON_DEPTH));
    assert.equal(ok.status, 200, await ok.clone().text());
    const tooDeep = await postJson(base + QUOTE, at(MAX_JSON_DEPTH + 1));
    assertMaxDepth(tooDeep.status, await tooDeep.json(), 'one level too deep');
  });

  test('router composite (paid), with a valid payment attached', async () => {
    const { header } = await signFor(base + COMPOSITE, { objective: OBJECTIVE }, rig.devnet);
    await unchangedFacilitator(async () => {
      const res = await postJson(base + COMPOSITE, `{"objective":${JSON.stringify(OBJECTIVE)},"inputs":${arrays(20000)}}`, { 'PAYMENT-SIGNATURE': header });
      assertMaxDepth(res.status, await res.json(), 'composite');
    });
  });

  test('admin API: items, corrections, census; import rejects the deep line and keeps the others', async () => {
    const admin = (path: string, body: string) => fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }, body });
    for (const [path, body] of [
      ['/admin/v1/items', `{"objective":"x","inputs":${arrays(20000)}}`],
      ['/admin/v1/items', arrays(20000)],
      ['/admin/v1/items/x/corrections', `{"title":${objects(20000)}}`],
      ['/admin/v1/items/x/retraction', `{"reason":${arrays(20000)}}`],
      ['/admin/v1/census', `{"kind":"census","data":${arrays(20000)}}`],
    ]) {
      const res = await admin(path, body);
      assertMaxDepth(res.status, await res.json(), path);
    }
    const res = await admin('/admin/v1/import', ['{"kind":"nonsense"}', `{"kind":"item","x":${arrays(20000)}}`, '', 'not json'].join('\n'));
    assert.equal(res.status, 200);
    const report = (await res.json()) as Json;
    assert.equal(report.lines, 3);
    assert.deepEqual(report.rejected.map((r: Json) => r.line), [1, 2, 4], 'each bad line is reported on its own');
    const deep = report.rejected.find((r: Json) => r.line === 2);
    assert.equal(deep.code, 'invalid_json');
    assert.deepEqual(deep.details.map((d: Json) => d.rule), ['max-depth']);
  });

  describe('MCP', () => {
    const rpc = (body: string) =>
      fetch(base + '/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body });
    const call = (id: number, name: string, args: string, meta = '') =>
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":${args}${meta ? `,"_meta":${meta}` : ''}}}`;

    test('a paid tool with deep arguments and a payment: -32602 for that id, the facilitator never asked', async () => {
      const { payload } = await signFor(base + NFT, { uri: 'ar://rgW4h3ffQQzOD8ynnwdl3_YlHxtssqV3aXOregPr7yI' }, rig.devnet);
      await unchangedFacilitator(async () => {
        for (const args of [`{"uri":${arrays(20000)}}`, `{"uri":"x","y":${objects(5000)}}`]) {
          const res = await rpc(call(41, 'nft-metadata-uri-normalizer', args, JSON.stringify({ 'x402/payment': payload })));
          const body = (await res.json()) as Json;
          assert.equal(res.status, 200, JSON.stringify(body).slice(0, 300));
          assert.equal(body.id, 41);
          assert.equal(body.error.code, -32602);
          assert.equal(body.error.data.error.code, 'invalid_json');
          assert.deepEqual(body.error.data.error.details.map((d: Json) => d.rule), ['max-depth']);
        }
      });
    });

    test('a free tool (router-quote) with deep arguments: -32602, never -32603', async () => {
      const res = await rpc(call(7, 'router-quote', `{"objective":"x","inputs":${arrays(20000)}}`));
      const body = (await res.json()) as Json;
      assert.equal(body.id, 7);
      assert.equal(body.error.code, -32602);
    });

    test('deep messages without a single id: HTTP 400, -32602, id null', async () => {
      for (const msg of [`[${call(1, 'router-quote', arrays(20000))}]`, `{"jsonrpc":"2.0","method":"notifications/x","params":${arrays(20000)}}`, arrays(100000)]) {
        const res = await rpc(msg);
        const body = (await res.json()) as Json;
        assert.equal(res.status, 400);
        assert.equal(body.id, null);
        assert.equal(body.error.code, -32602);
      }
    });

    test('an ordinary call still works through the shared reader', async () => {
      const res = await rpc(call(3, 'accessibility-contrast-calculator', JSON.stringify(BLACK_ON_WHITE)));
      const body = (await res.json()) as Json;
      assert.equal(body.id, 3);
      assert.equal(body.result.isError, true);
      assert.equal(body.result.structuredContent.x402Version, 2);
    });
  });
});
