/**
 * Attack (issue 21, item 1: "heavy parsing is off the event loop"): a
 * legitimate large message on a free surface — the extractor's 2 MiB page as
 * one JSON string argument of an MCP tools/call, of an A2A SendMessage data
 * part, or of a router quote — was UTF-8 decoded, value-scanned and
 * JSON.parsed on the event loop that answers /healthz, 402s and deliveries
 * for everyone. Such a message is now read on the worker pool (the `parse`
 * job the composite already uses, from the size the paid routes read off the
 * event loop), with exactly the inline verdict: the same value, the same
 * 400 / JSON-RPC error for invalid UTF-8, too deep, too many values, not JSON.
 *
 * Proved by the pool's counter (each such message is one body read by a
 * worker) and by answering the same messages again with the pool closed
 * (every surface then reads inline): the answers are byte-identical, up to the
 * ids and clocks each answer draws afresh.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parseJsonBody, type JsonLimits } from '../src/catalog/json-input.js';
import { messageBudget } from '../src/catalog/body-budget.js';
import { ISOLATE_MIN_INPUT_CHARS, sharedHandlerPool } from '../src/isolation/pool.js';
import { INLINE_EXECUTOR } from '../src/payments/paid-flow.js';
import { startRig, type Rig } from './support/harness.js';

const MiB = 1024 * 1024;
const utf8 = new TextEncoder();
const EXTRACTOR = 'catalog-offer-evidence-extractor';
const PAGE = `<html><head><title>Offer</title></head><body>${'<p>Widget, in stock, 19.99 EUR</p>'.repeat(Math.floor((2 * MiB) / 36))}</body></html>`;
const pad = (n: number) => 'x'.repeat(n);

/** Bodies over the pool's threshold: each kind of verdict parseJsonBody gives, and values a structured clone could alter. */
function corpus(): Array<[string, Uint8Array]> {
  const text = (s: string): [Uint8Array] => [utf8.encode(s)];
  const bad = utf8.encode(JSON.stringify({ html: pad(40_000) }));
  bad[20] = 0xff; // not UTF-8
  const cut = utf8.encode(JSON.stringify({ html: `${pad(40_000)}é` }));
  const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8.encode(JSON.stringify({ html: pad(30_000) }))]);
  return [
    ['valid: the extractor page as one string', ...text(JSON.stringify({ jsonrpc: '2.0', id: 1, params: { arguments: { html: PAGE, base_url: 'https://shop.example/p/1' } } }))],
    ['valid, parsed before its depth is read (under 64 Ki chars)', ...text(JSON.stringify({ a: [[[1, 2, { b: 'c' }]]], s: pad(30_000) }))],
    ['valid: __proto__ member, -0, a lone surrogate escape, big and small numbers', ...text(`{"__proto__":{"polluted":true},"z":-0,"s":"\\ud800${pad(20_000)}","n":[1e308,-1e-308,12345678901234567890]}`)],
    ['valid: a leading BOM', bom],
    ['invalid UTF-8', bad],
    ['invalid UTF-8: a sequence cut at the end', cut.slice(0, cut.length - 3)],
    ['too deep (after 20 KB)', ...text(`{"s":"${pad(20_000)}","d":${'['.repeat(65)}${']'.repeat(65)}}`)],
    ['too deep and not JSON (under 64 Ki chars)', ...text(`${'['.repeat(70)}"${pad(20_000)}`)],
    ['a million levels', ...text('['.repeat(MiB))],
    ['too many values: numbers', ...text(`[${'7,'.repeat(60_000)}7]`)],
    ['too many values: objects, whitespace-padded', ...text(`[${' {} ,\n'.repeat(50_000)}{}]`)],
    ['not JSON: cut short', ...text(JSON.stringify({ html: pad(40_000) }).slice(0, -2))],
    ['not JSON: trailing junk', ...text(`${JSON.stringify({ html: pad(40_000) })} x`)],
    ['whitespace only', ...text(' \n'.repeat(20_000))],
    ['exactly the threshold', ...text(`"${pad(ISOLATE_MIN_INPUT_CHARS - 2)}"`)],
  ];
}

/** The answer's text with what each call draws afresh (ids, clocks, signatures over them) blanked. */
function stable(text: string): string {
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
    // A quote's signed offers hold their price to the next whole minute after ten minutes, signed over that time.
    .replace(/"validUntil":\d+/g, '"validUntil":<time>')
    .replace(/"signature":"0x[0-9a-fA-F]+"/g, '"signature":"<signature>"')
    // Every 402 carries a sign-in message of its own (sign-in-with-x).
    .replace(/(\\*"nonce\\*":\\*")[0-9a-f]{32}/g, '$1<nonce>');
}

describe('free surfaces: a large legitimate message is parsed on the worker pool, with the inline verdict', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig({ env: { HANDLER_BUDGET_MS: '120000' } });
  });
  after(async () => {
    await rig?.close();
  });

  test('the executor\'s parseMessage on the pool gives parseJsonBody\'s verdict for every kind of body', { timeout: 120_000 }, async () => {
    const pool = sharedHandlerPool()!;
    const limits: JsonLimits = { maxValues: messageBudget(rig.service.catalog, 20).values };
    for (const [what, bytes] of corpus()) {
      assert.ok(bytes.byteLength >= ISOLATE_MIN_INPUT_CHARS, what);
      const inline = parseJsonBody(bytes, limits);
      const reads = pool.bodiesRead;
      const pooled = await rig.service.flow.executor.parseMessage(bytes, limits);
      assert.equal(pool.bodiesRead - reads, 1, `${what}: read by a worker`);
      assert.deepStrictEqual(pooled, inline, what);
      if (inline.ok && pooled.ok) assert.equal(JSON.stringify(pooled.value), JSON.stringify(inline.value), what);
    }
    // Below the threshold, or for a service without a pool, the message is read inline.
    const reads = pool.bodiesRead;
    assert.deepStrictEqual(await rig.service.flow.executor.parseMessage(utf8.encode('{"a":1}'), limits), { ok: true, value: { a: 1 } });
    assert.deepStrictEqual(await INLINE_EXECUTOR.parseMessage(corpus()[0]![1], limits), parseJsonBody(corpus()[0]![1], limits));
    assert.equal(pool.bodiesRead, reads);
  });

  test('MCP, A2A (v1.0, v0.3) and the router quote: each large message is one read on the pool; with the pool closed, the same answers inline', { timeout: 300_000 }, async () => {
    const url = rig.service.url;
    const args = { html: PAGE, base_url: 'https://shop.example/p/1' };
    const mcp = (body: string) => ({ path: '/mcp', headers: { accept: 'application/json, text/event-stream' }, body });
    const a2a = (body: string, v1 = true) => ({ path: '/a2a', headers: v1 ? { 'A2A-Version': '1.0' } : ({} as Record<string, string>), body });
    const quote = (body: string) => ({ path: '/v1/router/quote', headers: {}, body });
    const invalidUtf8 = (s: string) => {
      const b = utf8.encode(s);
      b[b.indexOf(0x78)] = 0xc0; // the first 'x' of the padding: an overlong sequence
      return b;
    };
    const deep = `${'['.repeat(65)}${']'.repeat(65)}`;
    const many = `[${'1,'.repeat(60_000)}1]`;
    const cases: Array<[string, { path: string; headers: Record<string, string>; body: string | Uint8Array }]> = [
      ['MCP tools/call, the page as its argument', mcp(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: EXTRACTOR, arguments: args } }))],
      ['MCP: invalid UTF-8', { ...mcp(''), body: invalidUtf8(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: EXTRACTOR, arguments: { html: pad(30_000) } } })) }],
      ['MCP: too deep', mcp(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"${EXTRACTOR}","arguments":{"html":"${pad(30_000)}","d":${deep}}}}`)],
      ['MCP: too many values', mcp(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"${EXTRACTOR}","arguments":{"html":"x","d":${many}}}}`)],
      ['MCP: not JSON', mcp(`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"${EXTRACTOR}","arguments":{"html":"${pad(30_000)}"}}`)],
      ['A2A SendMessage, the page in a data part', a2a(JSON.stringify({ jsonrpc: '2.0', id: 'r1', method: 'SendMessage', params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ data: args }], metadata: { skill: EXTRACTOR } } } }))],
      ['A2A v0.3 message/send, the page in a data part', a2a(JSON.stringify({ jsonrpc: '2.0', id: 'r2', method: 'message/send', params: { message: { kind: 'message', messageId: 'm2', role: 'user', parts: [{ kind: 'data', data: args }], metadata: { skill: EXTRACTOR } } } }), false)],
      ['A2A: invalid UTF-8', { ...a2a(''), body: invalidUtf8(JSON.stringify({ jsonrpc: '2.0', id: 'r3', method: 'SendMessage', params: { message: { messageId: 'm3', parts: [{ data: { html: pad(30_000) } }] } } })) }],
      ['A2A: too deep', a2a(`{"jsonrpc":"2.0","id":"r4","method":"SendMessage","params":{"message":{"messageId":"m4","parts":[{"data":{"html":"${pad(30_000)}","d":${deep}}}]}}}`)],
      ['A2A: too many values', a2a(`{"jsonrpc":"2.0","id":"r5","method":"SendMessage","params":{"message":{"messageId":"m5","parts":[{"data":{"d":${many}}}]}}}`)],
      ['router quote, the page as its input', quote(JSON.stringify({ objective: 'Extract the product offers from this page', inputs: args }))],
      ['router quote: invalid UTF-8', { ...quote(''), body: invalidUtf8(JSON.stringify({ objective: 'extract the offers', inputs: { html: pad(30_000) } })) }],
      ['router quote: too deep', quote(`{"objective":"extract the offers","inputs":{"html":"${pad(30_000)}","d":${deep}}}`)],
      ['router quote: too many values', quote(`{"objective":"extract the offers","inputs":{"html":"x","d":${many}}}`)],
      ['router quote: not JSON', quote(`{"objective":"extract the offers","inputs":{"html":"${pad(30_000)}"}`)],
    ];
    const send = async ({ path, headers, body }: (typeof cases)[number][1]) => {
      const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : Buffer.from(body) });
      return `${res.status} ${await res.text()}`;
    };

    const pool = sharedHandlerPool()!;
    const pooled: string[] = [];
    for (const [what, c] of cases) {
      const reads = pool.bodiesRead;
      pooled.push(await send(c));
      assert.equal(pool.bodiesRead - reads, 1, `${what}: the message was decoded, scanned and parsed by a worker`);
    }
    const has = (i: number, ...parts: string[]) => assert.ok(pooled[i]!.startsWith('200 ') && parts.every((p) => pooled[i]!.includes(p)), `${cases[i]![0]}: ${pooled[i]!.slice(0, 300)}`);
    has(0, '"isError":true', 'x402Version'); // the MCP call is answered with its payment requirement
    has(5, 'TASK_STATE_INPUT_REQUIRED'); // the A2A task waits for payment
    has(6, 'input-required');
    has(10, '"status":"QUOTED"'); // the quote is made
    for (const i of [1, 2, 3, 4, 7, 8, 9, 11, 12, 13, 14]) assert.match(pooled[i]!, /invalid_json/, cases[i]![0]);

    // Without a pool every surface reads inline: the same answers.
    await pool.close();
    const reads = pool.bodiesRead;
    for (const [i, [what, c]] of cases.entries()) {
      const [a, b] = [stable(pooled[i]!), stable(await send(c))];
      let at = 0;
      while (at < a.length && a[at] === b[at]) at++;
      assert.ok(a === b, `${what}: the answers differ at ${at}: ${JSON.stringify(a.slice(at - 80, at + 80))} vs ${JSON.stringify(b.slice(at - 80, at + 80))}`);
    }
    assert.equal(pool.bodiesRead, reads, 'nothing was read by a worker');
  });
});
