/**
 * Attack (issue 21, item 3): with OUTCOME_ROUTER_COMPOSITE=1, a paid 2 MiB
 * extraction bought through /x402/v1/outcome-router ran its handler (and
 * hashed and serialized its megabytes of output) on the event loop, with no
 * budget: /healthz stalled for seconds, and each unpaid 402 parsed and
 * fingerprinted the 2 MiB body there too. Every paid step now runs where its
 * own route would run it (the worker pool, under HANDLER_BUDGET_MS), and a
 * large composite body is read on the pool.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { get as httpGet } from 'node:http';
import { LARGE_INPUTS } from '../bench/inputs.js';
import { CATALOG } from '../src/capabilities/index.js';
import { sharedHandlerPool } from '../src/isolation/pool.js';
import { canonicalJson, sha256Hex } from '../src/foundation/canonical-json.js';
import { balanceOf, decodePaymentRequiredHeader, postJson, signFor, startRig, type Rig } from './support/harness.js';

const EXTRACTOR = CATALOG.find((c) => c.id === 'catalog-offer-evidence-extractor')!;
const COMPOSITE = '/x402/v1/outcome-router';

/** A quote request for one extraction of a ~2 MiB page; `n` makes each body a new request. */
function request(n: number) {
  const page = LARGE_INPUTS[EXTRACTOR.id]!(EXTRACTOR)[0]!.input as { html: string; base_url: string };
  return { objective: 'Extract the product offers from this page', inputs: { ...page, base_url: `${page.base_url}?n=${n}` } };
}

/** GET /healthz on a fresh connection: its status. */
function healthz(base: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpGet(base + '/healthz', { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
}

describe('composite: a heavy step bought through the outcome router', () => {
  let rig: Rig;
  before(async () => {
    // A budget that a 2 MiB extraction meets even on a loaded 2-core CI machine (the next suite tests the budget).
    rig = await startRig({ env: { OUTCOME_ROUTER_COMPOSITE: '1', HANDLER_BUDGET_MS: '120000' } });
  });
  after(async () => {
    await rig?.close();
  });

  test('runs on a worker while the event loop answers /healthz; the delivery is the inline result, paid once', { timeout: 120_000 }, async () => {
    const url = rig.service.url + COMPOSITE;
    const body = request(1);
    const { header, paymentRequired } = await signFor(url, body, rig.devnet);
    assert.equal(paymentRequired.accepts[0]!.amount, EXTRACTOR.priceAtomic, 'the 402 asks the plan total');
    const pool = sharedHandlerPool()!;
    const stepsBefore = pool.stepsRun;
    const payTo = rig.devnet.payTo;
    const paidBefore = await balanceOf(rig.devnet, payTo);

    let done = false;
    const paid = postJson(url, body, { 'PAYMENT-SIGNATURE': header }).finally(() => (done = true));
    // Probes answered while the extraction was running in a worker: impossible if it runs on the event loop.
    let answeredDuringStep = 0;
    let sawStep = false;
    while (!done) {
      if (pool.inFlight().some((t) => t.kind === 'step' && t.id === EXTRACTOR.id)) {
        sawStep = true;
        assert.equal(await healthz(rig.service.url), 200);
        if (pool.inFlight().some((t) => t.kind === 'step' && t.id === EXTRACTOR.id)) answeredDuringStep++;
      }
      await new Promise((r) => setTimeout(r, 2));
    }
    const res = await paid;
    const text = await res.text();
    assert.equal(res.status, 200, text.slice(0, 300));
    assert.ok(sawStep, 'the extraction step ran on the worker pool');
    assert.ok(answeredDuringStep >= 1, '/healthz answered while the step ran');
    assert.equal(pool.stepsRun - stepsBefore, 1);

    const r = JSON.parse(text) as { status: string; result: { results: Array<{ output: unknown }> }; evidence: { output_sha256: string; handler_invocations: number; network_fetches: number } };
    assert.equal(r.status, 'DELIVERED');
    // The step's output is byte for byte its own route's answer, and the evidence hash is of the canonical result.
    assert.equal(JSON.stringify(r.result.results[0]!.output), JSON.stringify(EXTRACTOR.run(body.inputs)));
    assert.equal(r.evidence.output_sha256, sha256Hex(canonicalJson(r.result)));
    assert.deepEqual([r.evidence.handler_invocations, r.evidence.network_fetches], [1, 0]);
    assert.equal((await balanceOf(rig.devnet, payTo)) - paidBefore, BigInt(EXTRACTOR.priceAtomic), 'paid once, the total');
  });

  test('its unpaid 402 reads the 2 MiB body on the pool and runs no handler', { timeout: 60_000 }, async () => {
    const pool = sharedHandlerPool()!;
    const [reads, steps, runs] = [pool.bodiesRead, pool.stepsRun, pool.completed];
    const res = await postJson(rig.service.url + COMPOSITE, request(2));
    assert.equal(res.status, 402);
    assert.equal(decodePaymentRequiredHeader(res.headers.get('payment-required')!).accepts[0]!.amount, EXTRACTOR.priceAtomic);
    assert.equal(pool.bodiesRead - reads, 1, 'the body was decoded and parsed on the pool');
    assert.deepEqual([pool.stepsRun - steps, pool.completed - runs], [0, 0], 'pricing the plan ran nothing');
  });
});

describe('composite: a heavy step over HANDLER_BUDGET_MS', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig({ env: { OUTCOME_ROUTER_COMPOSITE: '1', HANDLER_BUDGET_MS: '20' } });
  });
  after(async () => {
    await rig?.close();
  });

  test('is stopped: 503 handler_over_budget, settle never sent, nothing charged', { timeout: 60_000 }, async () => {
    const url = rig.service.url + COMPOSITE;
    const body = request(3);
    const { header } = await signFor(url, body, rig.devnet);
    const [payTo, buyer] = [rig.devnet.payTo, rig.devnet.buyer.address];
    const [payToBefore, buyerBefore] = [await balanceOf(rig.devnet, payTo), await balanceOf(rig.devnet, buyer)];
    const settles = rig.proxy.calls.settle;
    const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    const text = await res.text();
    assert.equal(res.status, 503, text.slice(0, 300));
    const err = JSON.parse(text) as { error: { code: string; message: string } };
    assert.equal(err.error.code, 'handler_over_budget');
    assert.equal(rig.proxy.calls.settle, settles, 'settle never sent');
    assert.equal(await balanceOf(rig.devnet, payTo), payToBefore);
    assert.equal(await balanceOf(rig.devnet, buyer), buyerBefore);

    // A small plan still runs (inline, as its own route would) and is sold.
    const small = { objective: 'contrast of #777777 on #ffffff' };
    const signed = await signFor(url, small, rig.devnet);
    const ok = await postJson(url, small, { 'PAYMENT-SIGNATURE': signed.header });
    assert.equal(ok.status, 200, await ok.clone().text());
  });
});
