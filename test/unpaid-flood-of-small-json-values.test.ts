/**
 * Attack (issue 21, item 1): an unpaid message made of millions of small JSON
 * values (`[{},{},…]`, arrays, strings, numbers, nested, whitespace-padded)
 * sent to A2A, MCP and the router quote. JSON.parse built every value on the
 * event loop and the SDKs walked, cloned and stored them (a rejected A2A task
 * kept its whole input): seconds of stall and gigabytes per message.
 *
 * Now each surface takes at most its largest legitimate message (the largest
 * catalog entry body plus an envelope; 4 MiB is 413) and counts JSON values
 * by a scan before parsing: over the budget is 400 invalid_json, rule
 * max-values (MCP: JSON-RPC -32602 with the request's id; A2A: -32700) —
 * decided before the SDK, the planner or the task store see the message, and
 * before any payment step (a payment attached to a paid route is never
 * verified). The one legitimately large argument, the extractor's page as a
 * single JSON string, still goes through every surface.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { messageBudget } from '../src/catalog/body-budget.js';
import { postJson, signFor, startRig, type Rig } from './support/harness.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const EXTRACTOR = '/x402/v1/catalog-offer-evidence-extractor';
const MiB = 1024 * 1024;

/** A JSON value of about `bytes` bytes made of many small values of one shape. */
function flood(shape: string, bytes: number): string {
  const unit: Record<string, string> = { objects: '{},', arrays: '[],', strings: '"a",', numbers: '7,', nested: '[[{}],[[]]],', padded: ' { } ,\n', members: '' };
  if (shape === 'members') {
    const parts: string[] = [];
    let size = 2;
    for (let i = 0; size < bytes; i++) {
      const m = `"m${i}":${i},`;
      parts.push(m);
      size += m.length;
    }
    return '{' + parts.join('') + '"end":0}';
  }
  return '[' + unit[shape]!.repeat(Math.floor(bytes / unit[shape]!.length)) + '0]';
}
const SHAPES = ['objects', 'arrays', 'strings', 'numbers', 'nested', 'padded', 'members'];

/** Each surface's message around `data` (the argument a skill or tool would take). */
const surfaces = {
  a2a: {
    path: '/a2a',
    headers: { 'A2A-Version': '1.0' },
    wrap: (data: string) =>
      `{"jsonrpc":"2.0","id":"r1","method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"data":{"html":"<p>x</p>","x":${data}}}],"metadata":{"skill":"catalog-offer-evidence-extractor"}}}}`,
  },
  'a2a v0.3': {
    path: '/a2a',
    headers: {},
    wrap: (data: string) =>
      `{"jsonrpc":"2.0","id":"r1","method":"message/send","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"data","data":{"html":"<p>x</p>","x":${data}}}],"metadata":{"skill":"catalog-offer-evidence-extractor"}}}}`,
  },
  mcp: {
    path: '/mcp',
    headers: { accept: 'application/json, text/event-stream' },
    wrap: (data: string) => `{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"catalog-offer-evidence-extractor","arguments":{"html":"<p>x</p>","x":${data}}}}`,
  },
  'router quote': { path: '/v1/router/quote', headers: {}, wrap: (data: string) => `{"objective":"extract the offers of this page","inputs":{"html":"<p>x</p>","x":${data}}}` },
} as const;

function assertMaxValues(surface: string, status: number, body: Json, what: string) {
  const err = surface === 'router quote' ? body : body.error?.data;
  assert.equal(err?.error?.code, 'invalid_json', `${what}: ${JSON.stringify(body).slice(0, 300)}`);
  assert.deepEqual(err.error.details.map((d: Json) => d.rule), ['max-values'], what);
  if (surface === 'mcp') {
    assert.equal(status, 200, what);
    assert.equal(body.error.code, -32602, what);
    assert.equal(body.id, 41, `${what}: the answer names the call`);
  } else if (surface.startsWith('a2a')) {
    assert.equal(status, 400, what);
    assert.equal(body.error.code, -32700, what);
    assert.equal(body.result, undefined, `${what}: no task was made`);
  } else {
    assert.equal(status, 400, what);
  }
}

describe('an unpaid flood of small JSON values is refused by its count, before parsing, on every surface', () => {
  let rig: Rig;
  let base: string;
  let limit: number;
  before(async () => {
    rig = await startRig();
    base = rig.service.url;
    limit = messageBudget(rig.service.catalog).bytes;
  });
  after(async () => rig?.close());

  const send = (s: (typeof surfaces)[keyof typeof surfaces], body: string) =>
    fetch(base + s.path, { method: 'POST', headers: { 'content-type': 'application/json', ...s.headers }, body }).then(async (r) => ({ status: r.status, body: (await r.json()) as Json }));

  for (const [name, s] of Object.entries(surfaces)) {
    test(`${name}: every shape, just under the surface's byte limit, is 400 invalid_json max-values`, async () => {
      for (const shape of SHAPES) {
        const body = s.wrap(flood(shape, limit - 2048));
        assert.ok(body.length <= limit, 'the message is within the byte limit');
        const r = await send(s, body);
        assertMaxValues(name, r.status, r.body, `${name} ${shape}`);
      }
    });

    test(`${name}: 4 MiB is 413 (the surface takes its largest legitimate message, not 4 MiB)`, async () => {
      const r = await send(s, s.wrap(flood('objects', 4 * MiB - 4096)));
      assert.equal(r.status, 413);
      assert.equal((r.body.error?.data ?? r.body).error.code, 'payload_too_large');
    });
  }

  test('a paid route with a valid payment attached: the flood is max-values and the facilitator is never asked', async () => {
    const page = { html: '<p>x</p>' };
    const sig = (await signFor(base + EXTRACTOR, page, rig.devnet)).header;
    const calls = { ...rig.proxy.calls };
    for (const shape of SHAPES) {
      const res = await postJson(base + EXTRACTOR, `{"html":"<p>x</p>","x":${flood(shape, 2 * MiB)}}`, { 'PAYMENT-SIGNATURE': sig });
      const body = (await res.json()) as Json;
      assert.equal(res.status, 400, shape);
      assert.deepEqual([body.error.code, body.error.details[0].rule], ['invalid_json', 'max-values'], shape);
    }
    assert.equal(rig.proxy.calls.verify, calls.verify, 'the facilitator was asked to verify');
    assert.equal(rig.proxy.calls.settle, calls.settle, 'the facilitator was asked to settle');
  });

  test("the one large legitimate argument — the extractor's 2 MiB page as one JSON string — still passes every surface", async () => {
    const html = '<html><body>' + '<div class="offer">Widget "A" &amp; [1,2,3] {a:b}</div>\n'.repeat(40_000).slice(0, 2 * MiB - 64) + '</body></html>';
    const args = { html, base_url: 'https://shop.example/p/1' };
    const mcp = await send(surfaces.mcp, JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'catalog-offer-evidence-extractor', arguments: args } }));
    assert.equal(mcp.status, 200);
    assert.equal(mcp.body.result?.structuredContent?.x402Version, 2, `MCP answers with the payment requirement: ${JSON.stringify(mcp.body).slice(0, 300)}`);
    const a2a = await send(
      surfaces.a2a,
      JSON.stringify({ jsonrpc: '2.0', id: 'r2', method: 'SendMessage', params: { message: { messageId: 'm2', role: 'ROLE_USER', parts: [{ data: args }], metadata: { skill: 'catalog-offer-evidence-extractor' } } } }),
    );
    assert.equal(a2a.status, 200);
    assert.equal(a2a.body.result?.task?.status?.state, 'TASK_STATE_INPUT_REQUIRED', `A2A asks for payment: ${JSON.stringify(a2a.body).slice(0, 300)}`);
    const quote = await send(surfaces['router quote'], JSON.stringify({ objective: 'extract the offers of this page', inputs: args }));
    assert.equal(quote.status, 200, JSON.stringify(quote.body).slice(0, 300));
    const res = await postJson(base + EXTRACTOR, args);
    assert.equal(res.status, 402);
  });
});
