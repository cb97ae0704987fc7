/**
 * Attack (issue 41, row 2: "free router quote repeats the page"): POST
 * /v1/router/quote with the extractor's 2 MiB JSON-LD page answered 9.7 MB —
 * the page in the step's native body, the top-level native body, the
 * canonical request and the composite body — after a third to half a second of
 * event-loop time each (hashing it for the fingerprint and the signed offers,
 * serializing and writing megabytes); four at once, all within the
 * per-address limit, held /healthz for seconds. A quote now answers in
 * proportion to what it says: a caller-supplied value over the echo limit is
 * named by its JSON pointer in the request as sent, its size and its SHA-256,
 * each body that holds it comes as a template plus where to copy it from
 * (with the body's own size and SHA-256, which its signed offer binds), and
 * the hashing runs on the worker pool.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { LARGE_INPUTS } from '../bench/inputs.js';
import { newAjv } from '../src/catalog/ajv.js';
import { makeInputReader } from '../src/catalog/input-reader.js';
import { CATALOG } from '../src/capabilities/index.js';
import { verifyQuoteOffer } from '../src/commitments/verify.js';
import { canonicalJson, requestFingerprint, sha256Hex } from '../src/foundation/canonical-json.js';
import { sharedHandlerPool } from '../src/isolation/pool.js';
import { SIGNED_OFFER_HEADER } from '../src/http/paid-route.js';
import { quoteResponseSchema } from '../src/router/schemas.js';
import { decodePaymentResponseHeader, payingFetch, postJson, startRig, transferLogs, type Rig } from './support/harness.js';

const KEY = generatePrivateKey();
const SIGNER = privateKeyToAccount(KEY).address;
const EXTRACTOR = CATALOG.find((c) => c.id === 'catalog-offer-evidence-extractor')!;
const CHECKER = CATALOG.find((c) => c.id === 'data-compatibility-checker')!;
const COMPOSITE = '/x402/v1/outcome-router';
const QUOTE = '/v1/router/quote';

/** The bench's 2 MiB catalog page (thousands of JSON-LD product scripts), with its base_url. */
const PAGE = LARGE_INPUTS[EXTRACTOR.id]!(EXTRACTOR)[0]!.input as { html: string; base_url: string };

/** A Product JSON-LD page of about `chars` characters, `mark` in every offer's SKU. */
function jsonLdPage(chars: number, mark: string): string {
  const offers: string[] = [];
  for (let i = 0, n = 200; n < chars; i++) {
    const offer = `{"@type":"Offer","sku":"${mark}-${i}","price":"${(10 + (i % 90)).toFixed(2)}","priceCurrency":"EUR"}`;
    offers.push(offer);
    n += offer.length + 1;
  }
  return `<html><head><script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Anvil","offers":[${offers.join(',')}]}</script></head><body></body></html>`;
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64');
const tokens = (pointer: string) => pointer.split('/').slice(1).map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
const at = (doc: unknown, pointer: string): unknown => tokens(pointer).reduce<any>((v, k) => v[k], doc);

/** What an agent does with a `…_by_reference`: the template, with each reference's value copied from the request it sent. */
function build(ref: { template: unknown; references: Array<{ at: string; from: string }> }, sent: unknown): any {
  const body = structuredClone(ref.template) as any;
  for (const r of ref.references) {
    const keys = tokens(r.at);
    const last = keys.pop()!;
    const parent = keys.reduce<any>((v, k) => v[k], body);
    assert.equal(parent[last], null, `${r.at} is a placeholder in the template`);
    parent[last] = at(sent, r.from);
  }
  return body;
}

const digestOf = (v: unknown) => ({ bytes: Buffer.byteLength(canonicalJson(v)), sha256: sha256Hex(canonicalJson(v)) });

async function quoteText(base: string, body: unknown): Promise<{ q: any; bytes: number; text: string }> {
  const res = await postJson(base + QUOTE, body);
  const text = await res.text();
  assert.equal(res.status, 200, text.slice(0, 500));
  return { q: JSON.parse(text), bytes: Buffer.byteLength(text), text };
}

describe('router quote of a 2 MiB JSON-LD page', () => {
  let rig: Rig;
  let base: string;
  const validQuote = newAjv().compile<any>(quoteResponseSchema);

  before(async () => {
    // A budget a 2 MiB extraction meets on a loaded 2-core machine (the payments below run it).
    rig = await startRig({ env: { X402_SIGNING_KEY: KEY, OUTCOME_ROUTER_COMPOSITE: '1', HANDLER_BUDGET_MS: '120000' } });
    base = rig.service.url;
  });
  after(async () => {
    await rig?.close();
  });

  test('the page is named by pointer, size and SHA-256, not echoed: a small answer that still says how to build and verify every body', { timeout: 60_000 }, async (t) => {
    const request = { objective: 'Extract the Product JSON-LD offers from this page', inputs: PAGE };
    const sent = Buffer.byteLength(JSON.stringify(request));
    assert.ok(PAGE.html.length >= 2_000_000 && PAGE.html.includes('application/ld+json'));
    const { q, bytes, text } = await quoteText(base, request);
    t.diagnostic(`request ${sent} bytes → answer ${bytes} bytes`);
    assert.ok(bytes < 32 * 1024, `the answer is ${bytes} bytes`);
    assert.ok(bytes * 100 < sent, `the answer (${bytes} bytes) is a small fraction of the request (${sent})`);
    const sku = /SKU-1\d{5}/.exec(PAGE.html)![0];
    assert.ok(!text.includes(sku), 'no part of the page is echoed');
    assert.ok(validQuote(q), JSON.stringify(validQuote.errors));

    assert.deepEqual(q.referenced_inputs, [{ from: '/inputs/html', ...digestOf(PAGE.html) }]);
    const step = q.steps[0];
    assert.equal(step.capability_id, EXTRACTOR.id);
    assert.equal(step.native_body, null);
    assert.equal(q.native_body, null);
    const native = build(step.native_body_by_reference, request);
    assert.deepEqual(native, { html: PAGE.html, base_url: PAGE.base_url });
    assert.ok(makeInputReader(EXTRACTOR).fromValue(structuredClone(native)).ok, 'the built body is valid for its route');
    assert.deepEqual({ bytes: step.native_body_by_reference.bytes, sha256: step.native_body_by_reference.sha256 }, digestOf(native));
    const nowSeconds = Math.floor(Date.now() / 1000);
    assert.deepEqual(await verifyQuoteOffer(step.signed_offer, { signer: SIGNER, body: native, resourceUrl: step.execute_route.url, nowSeconds }), { ok: true, offer: step.signed_offer.offer.payload });

    // The canonical request and the composite body: the same template, the fingerprint and the offer over the built body.
    assert.equal(q.canonical_request, null);
    const canonical = build(q.canonical_request_by_reference, request);
    assert.deepEqual(canonical, request);
    assert.deepEqual({ bytes: q.canonical_request_by_reference.bytes, sha256: q.canonical_request_by_reference.sha256 }, digestOf(canonical));
    assert.equal(q.request_fingerprint, requestFingerprint('outcome-router', canonical));
    const composite = q.how_to_pay.composite;
    assert.equal(composite.body, null);
    assert.deepEqual(composite.body_by_reference, q.canonical_request_by_reference);
    assert.equal((await verifyQuoteOffer(composite.signed_offer, { signer: SIGNER, body: canonical, resourceUrl: base + COMPOSITE, nowSeconds })).ok, true);
    assert.ok(q.how_to_pay.instructions.some((i: string) => /native_body_by_reference/.test(i) && /request you sent/.test(i)), 'the instructions say how to build the body');
  });

  test('the built body is paid at the signed price; the composite takes the request exactly as sent', { timeout: 180_000 }, async () => {
    const request = { objective: 'Extract the product offers from this page', inputs: { ...PAGE, base_url: `${PAGE.base_url}?paid=1` } };
    const { q } = await quoteText(base, request);
    const step = q.steps[0];
    const native = build(step.native_body_by_reference, request);
    const res = await payingFetch(rig.devnet)(step.execute_route.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [SIGNED_OFFER_HEADER]: b64(step.signed_offer) },
      body: JSON.stringify(native),
    });
    assert.equal(res.status, 200, (await res.clone().text()).slice(0, 300));
    assert.deepEqual(await res.json(), JSON.parse(JSON.stringify(EXTRACTOR.run(native))));
    const settled = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    const logs = await transferLogs(rig.devnet, { from: rig.devnet.buyer.address });
    assert.equal(logs.find((l) => l.txHash === settled.transaction)!.value, BigInt(step.signed_offer.offer.payload.amount));

    const paid = await payingFetch(rig.devnet)(base + COMPOSITE, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
    const r = (await paid.json()) as any;
    assert.equal(paid.status, 200, JSON.stringify(r).slice(0, 300));
    assert.equal(r.status, 'DELIVERED');
    assert.equal(r.request_fingerprint, q.request_fingerprint);
    assert.equal(r.result.results[0].capability_id, EXTRACTOR.id);
  });

  test('the answer does not grow with what was sent: a 64 KiB and a 2 MiB page get answers of the same size, give or take their digits', { timeout: 60_000 }, async (t) => {
    const objective = 'Extract the Product JSON-LD offers from this page';
    const small = await quoteText(base, { objective, inputs: { html: jsonLdPage(64 * 1024, 'SMALL'), base_url: PAGE.base_url } });
    const large = await quoteText(base, { objective, inputs: PAGE });
    t.diagnostic(`64 KiB page → ${small.bytes} bytes; 2 MiB page → ${large.bytes} bytes`);
    assert.ok(Math.abs(large.bytes - small.bytes) <= 16, `${small.bytes} vs ${large.bytes}`);
  });

  test('a large value is named where the caller put it: folded, aliased, in a batch, in items, unused, a long field list', { timeout: 60_000 }, async () => {
    const P = (mark: string) => jsonLdPage(100 * 1024, mark);
    // The checker's limits: at most 100 fields, names of at most 64 characters.
    const field = (i: number) => ({ name: `field_${i}_${'x'.repeat(50)}`, type: 'string', required: i % 2 === 0, nullable: false });
    const fields = Array.from({ length: 100 }, (_, i) => field(i));
    const rows: Array<{ name: string; request: Record<string, unknown>; marks: string[]; steps: Array<string[]>; canonical: string[] }> = [
      { name: 'html at the top level', request: { objective: 'json-ld offers', html: P('TOP') }, marks: ['TOP-1'], steps: [['/html']], canonical: ['/html'] },
      { name: 'an alias of html', request: { objective: 'json-ld offers', inputs: { page_html: P('ALIAS') } }, marks: ['ALIAS-1'], steps: [['/inputs/page_html']], canonical: ['/inputs/page_html'] },
      {
        name: 'a batch of two pages',
        request: { objective: 'extract offers', inputs: { pages: [P('PAGE0'), { html: P('PAGE1'), base_url: 'https://a.example/' }] } },
        marks: ['PAGE0-1', 'PAGE1-1'],
        steps: [['/inputs/pages/0'], ['/inputs/pages/1/html']],
        canonical: ['/inputs/pages'],
      },
      { name: 'items', request: { objective: 'do these', inputs: { items: [{ capability_id: EXTRACTOR.id, html: P('ITEM') }, { fg: '#000000', bg: '#ffffff' }] } }, marks: ['ITEM-1'], steps: [[], ['/inputs/items/0/html']], canonical: ['/inputs/items'] },
      { name: 'an unused input beside a small plan', request: { objective: 'contrast #000000 on #ffffff', inputs: { notes: P('UNUSED') } }, marks: ['UNUSED-1'], steps: [[]], canonical: ['/inputs/notes'] },
      { name: 'long field lists', request: { objective: 'compatibility', source_fields: fields, target_fields: fields }, marks: ['field_99_'], steps: [['/source_fields', '/target_fields']], canonical: ['/source_fields', '/target_fields'] },
    ];
    for (const row of rows) {
      const { q, bytes, text } = await quoteText(base, row.request);
      assert.ok(validQuote(q), `${row.name}: ${JSON.stringify(validQuote.errors)}`);
      assert.ok(bytes < 32 * 1024, `${row.name}: ${bytes} bytes`);
      for (const mark of row.marks) assert.ok(!text.includes(mark), `${row.name}: ${mark} is not echoed`);
      const named = new Set(q.referenced_inputs.map((r: any) => r.from));
      for (const r of q.referenced_inputs) assert.deepEqual(r, { from: r.from, ...digestOf(at(row.request, r.from)) }, row.name);
      assert.equal(q.steps.length, row.steps.length, row.name);
      for (const [i, step] of q.steps.entries()) {
        const cap = CATALOG.find((c) => c.id === step.capability_id)!;
        const expected = row.steps[i]!;
        if (expected.length === 0) {
          assert.equal(step.native_body_by_reference, undefined, `${row.name}: a small body is written out`);
          assert.ok(makeInputReader(cap).fromValue(structuredClone(step.native_body)).ok);
          continue;
        }
        assert.equal(step.native_body, null, row.name);
        const ref = step.native_body_by_reference;
        assert.deepEqual(ref.references.map((r: any) => r.from).sort(), [...expected].sort(), row.name);
        for (const r of ref.references) assert.ok(named.has(r.from), `${row.name}: ${r.from} is listed in referenced_inputs`);
        const native = build(ref, row.request);
        assert.ok(makeInputReader(cap).fromValue(structuredClone(native)).ok, `${row.name}: the built body is valid`);
        assert.deepEqual({ bytes: ref.bytes, sha256: ref.sha256 }, digestOf(native), row.name);
        assert.equal((await verifyQuoteOffer(step.signed_offer, { signer: SIGNER, body: native, nowSeconds: Math.floor(Date.now() / 1000) })).ok, true, row.name);
      }
      assert.equal(q.canonical_request, null, row.name);
      assert.deepEqual(q.canonical_request_by_reference.references.map((r: any) => r.from).sort(), [...row.canonical].sort(), row.name);
      const canonical = build(q.canonical_request_by_reference, row.request);
      assert.equal(q.request_fingerprint, requestFingerprint('outcome-router', canonical), row.name);
      // The composite plans the request as sent the same way: its 402 asks the quoted total.
      const unpaid = await postJson(base + COMPOSITE, row.request);
      assert.equal(unpaid.status, 402, row.name);
    }
    assert.ok(JSON.stringify(rows[5]!.request).length < CHECKER.maxBodyBytes!, 'the field lists fit the checker\'s own body limit');
  });

  test('over MCP the tool\'s arguments are the request: the same bounded quote, named by pointers into them', { timeout: 60_000 }, async () => {
    const args = { objective: 'Extract the Product JSON-LD offers from this page', inputs: PAGE };
    const res = await postJson(base + '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'router-quote', arguments: args } }, { accept: 'application/json, text/event-stream' });
    const text = await res.text();
    assert.equal(res.status, 200);
    assert.ok(Buffer.byteLength(text) < 64 * 1024, `${Buffer.byteLength(text)} bytes`);
    const q = JSON.parse(JSON.parse(text).result.content[0].text);
    assert.deepEqual(q.referenced_inputs, [{ from: '/inputs/html', ...digestOf(PAGE.html) }]);
    assert.deepEqual(build(q.steps[0].native_body_by_reference, args), { html: PAGE.html, base_url: PAGE.base_url });
  });

  test('inputs and required_output hold at most 100 members with names of at most 128 characters (a quote names each one): 400 otherwise', async () => {
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`fact_${i}`, i]));
    const rows: Array<[string, Record<string, unknown>, string, string]> = [
      ['101 inputs', { objective: 'contrast #000000 on #ffffff', inputs: many }, '/inputs', 'maxProperties'],
      ['a 129-character input name', { objective: 'contrast #000000 on #ffffff', inputs: { ['k'.repeat(129)]: 1 } }, '/inputs', 'maxLength'],
      ['a 2 MiB input name', { objective: 'contrast #000000 on #ffffff', inputs: { ['k'.repeat(2 * 1024 * 1024)]: 1 } }, '/inputs', 'maxLength'],
      ['101 required outputs', { objective: 'contrast #000000 on #ffffff', required_output: many }, '/required_output', 'maxProperties'],
    ];
    for (const [name, request, path, rule] of rows) {
      const res = await postJson(base + QUOTE, request);
      const text = await res.text();
      assert.equal(res.status, 400, `${name}: ${text.slice(0, 300)}`);
      assert.ok(text.length < 2048, `${name}: the refusal is small`);
      const e = JSON.parse(text).error;
      assert.equal(e.code, 'invalid_request', name);
      assert.ok(e.details.some((d: any) => d.path === path && d.rule === rule), `${name}: ${JSON.stringify(e.details)}`);
      assert.equal((await postJson(base + COMPOSITE, request)).status, 400, `${name}: the composite refuses it too`);
    }
    const at100 = await quoteText(base, { objective: 'contrast #000000 on #ffffff', inputs: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}_${'n'.repeat(120)}`, 'v'.repeat(20_000)])) });
    assert.equal(at100.q.interpretation.unused_inputs.length, 100);
    assert.ok(at100.bytes < 256 * 1024, `100 unused inputs of 20 KB: ${at100.bytes} bytes`);
    assert.ok(!at100.text.includes('v'.repeat(300)), 'their values are named, not echoed');
  });

  test('a small quote is unchanged: every body written out, nothing referenced', async () => {
    const html = jsonLdPage(1024, 'TINY');
    const { q } = await quoteText(base, { objective: 'json-ld offers', inputs: { html } });
    assert.deepEqual(q.steps[0].native_body, { html });
    assert.deepEqual(q.native_body, { html });
    assert.deepEqual(q.canonical_request, { objective: 'json-ld offers', inputs: { html } });
    assert.deepEqual(q.how_to_pay.composite.body, q.canonical_request);
    for (const k of ['referenced_inputs', 'canonical_request_by_reference']) assert.ok(!(k in q), k);
    assert.ok(!('native_body_by_reference' in q.steps[0]));
    assert.ok(!('body_by_reference' in q.how_to_pay.composite));
  });

  test('four concurrent 2 MiB quotes: their hashing runs on the worker pool while /healthz answers', { timeout: 120_000 }, async (t) => {
    const pool = sharedHandlerPool()!;
    let done = 0;
    const quotes = [1, 2, 3, 4].map((n) =>
      quoteText(base, { objective: 'Extract the product offers from this page', inputs: { ...PAGE, base_url: `${PAGE.base_url}?n=${n}` } }).finally(() => done++),
    );
    const latencies: number[] = [];
    let sawDigest = false;
    let answeredDuringDigest = 0;
    while (done < quotes.length) {
      const hashing = pool.inFlight().some((task) => task.kind === 'digest');
      sawDigest ||= hashing;
      const t0 = performance.now();
      const res = await fetch(base + '/healthz');
      await res.arrayBuffer();
      latencies.push(performance.now() - t0);
      assert.equal(res.status, 200);
      if (hashing && pool.inFlight().some((task) => task.kind === 'digest')) answeredDuringDigest++;
      await new Promise((r) => setTimeout(r, 2));
    }
    for (const { bytes } of await Promise.all(quotes)) assert.ok(bytes < 32 * 1024);
    assert.ok(sawDigest, 'the quotes were hashed on the worker pool');
    assert.ok(answeredDuringDigest >= 1, '/healthz answered while a quote was being hashed');
    latencies.sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(1);
    t.diagnostic(`/healthz under four concurrent 2 MiB quotes: n=${latencies.length} p50 ${pct(0.5)} ms p99 ${pct(0.99)} ms max ${pct(1)} ms`);
  });
});
