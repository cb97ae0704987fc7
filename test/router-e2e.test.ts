/**
 * The outcome router end to end on the devnet, paid with the official x402
 * client: quote → pay the quoted route → the native result; a batch of three
 * colour pairs → three settlements; the composite resource with the switch on
 * (one payment of the plan's total, a DELIVERED result) and absent with it off.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson, sha256Hex } from '../src/foundation/canonical-json.js';
import { routerModule } from '../src/router/module.js';
import {
  balanceOf, decodePaymentRequiredHeader, decodePaymentResponseHeader, payingFetch, postJson, startRig, transferLogs, type Rig,
} from './support/harness.js';
import { baseCatalog } from './support/router-fixtures.js';

const CID = 'QmZHKZDavkvNfA9gSAg7HALv8jF7BJaKjUc9U2LSuvUySB';

async function quote(base: string, body: unknown): Promise<any> {
  const res = await postJson(base + '/v1/router/quote', body);
  const q = await res.json();
  assert.equal(res.status, 200, JSON.stringify(q));
  return q;
}

function payStep(rig: Rig, step: any) {
  return payingFetch(rig.devnet)(step.execute_route.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(step.native_body) });
}

describe('outcome router on the devnet, composite switch on', () => {
  let rig: Rig;
  let base: string;
  before(async () => {
    rig = await startRig({ env: { OUTCOME_ROUTER_COMPOSITE: '1' }, service: { catalog: baseCatalog(), modules: [routerModule] } });
    base = rig.service.url;
  });
  after(async () => rig?.close());
  const paid = () => balanceOf(rig.devnet, rig.devnet.payTo);
  const capability = (id: string) => rig.service.catalog.find((c) => c.id === id)!;

  test('quote → pay the quoted route with @x402/fetch → the native result, at the quoted price', async () => {
    const q = await quote(base, { objective: `Normalize the NFT metadata URI ipfs://ipfs/${CID}` });
    assert.equal(q.steps.length, 1);
    const step = q.steps[0];
    const before = await paid();
    const res = await payStep(rig, step);
    assert.equal(res.status, 200);
    const native = await res.json();
    assert.deepEqual(native, JSON.parse(JSON.stringify(capability(step.capability_id).run(step.native_body))));
    assert.equal(native.canonical_uri, `ipfs://${CID}`);
    const receipt = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    assert.equal(receipt.success, true);
    assert.equal((await paid()) - before, BigInt(q.total_price.amount_atomic));
    assert.equal(q.total_price.amount_atomic, capability(step.capability_id).priceAtomic);
  });

  test('the 402 of a quoted route asks exactly the quoted price and payee', async () => {
    const q = await quote(base, { goal: 'compatibility', source_fields: [{ name: 'id', type: 'integer', required: true, nullable: false }], target_fields: [{ name: 'id', type: 'number', required: true, nullable: false }] });
    const res = await postJson(q.steps[0].execute_route.url, q.steps[0].native_body);
    assert.equal(res.status, 402);
    const accepts = decodePaymentRequiredHeader(res.headers.get('payment-required')!).accepts[0]!;
    assert.equal(accepts.amount, q.steps[0].price.amount_atomic);
    assert.equal(accepts.payTo.toLowerCase(), q.steps[0].price.pay_to.toLowerCase());
    assert.equal(accepts.asset.toLowerCase(), q.steps[0].price.asset.toLowerCase());
    assert.equal(accepts.network, q.steps[0].price.network);
  });

  test('a batch of three colour pairs is three settlements on the same route: the payee gains 3000', async () => {
    const q = await quote(base, { objective: 'WCAG contrast of #000000 on #ffffff, #777777 on #ffffff and #ffffff on #0078d7' });
    assert.equal(q.batch_size, 3);
    assert.equal(q.outcome.kind, 'batch');
    assert.deepEqual(q.execute_route.path, '/x402/v1/accessibility-contrast-calculator');
    const before = await paid();
    const txs: string[] = [];
    const ratios: number[] = [];
    for (const step of q.steps) {
      const res = await payStep(rig, step);
      assert.equal(res.status, 200);
      ratios.push(((await res.json()) as any).contrast_ratio);
      txs.push(decodePaymentResponseHeader(res.headers.get('payment-response')!).transaction);
    }
    assert.equal((await paid()) - before, 3000n);
    assert.equal(new Set(txs).size, 3, 'three distinct settlements');
    const logs = await transferLogs(rig.devnet, { to: rig.devnet.payTo });
    for (const tx of txs) assert.ok(logs.some((l) => l.txHash === tx && l.value === 1000n));
    assert.equal(ratios[0], 21);
    assert.equal(ratios[1], 4.478089453577214);
    assert.equal(ratios[2], 4.498861479739532);
  });

  test('composite: one payment of the plan\'s total, the same price on the 402 and the paid retry, a DELIVERED result', async () => {
    const request = { objective: `Check contrast of #000000 on #ffffff and #777777 on #ffffff, and normalize ipfs://ipfs/${CID}`, max_price: '3000' };
    const q = await quote(base, request);
    assert.equal(q.total_price.amount_atomic, '3000');
    assert.equal(q.how_to_pay.composite.execute_route.path, '/x402/v1/outcome-router');

    const unpaid = await postJson(base + '/x402/v1/outcome-router', request);
    assert.equal(unpaid.status, 402);
    const challenge = decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!);
    assert.equal(challenge.accepts[0]!.amount, '3000');
    assert.equal(challenge.resource.url, base + '/x402/v1/outcome-router');

    const before = await paid();
    const settlesBefore = rig.proxy.calls.settle;
    const res = await payingFetch(rig.devnet)(base + '/x402/v1/outcome-router', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
    const r = (await res.json()) as any;
    assert.equal(res.status, 200, JSON.stringify(r));
    assert.equal((await paid()) - before, 3000n, 'paid once, the total');
    assert.equal(rig.proxy.calls.settle - settlesBefore, 1, 'one settlement');
    assert.equal(decodePaymentResponseHeader(res.headers.get('payment-response')!).success, true);

    assert.equal(r.status, 'DELIVERED');
    assert.match(r.execution_id, /^exe_/);
    assert.equal(r.request_fingerprint, q.request_fingerprint);
    assert.equal(r.outcome, request.objective);
    assert.deepEqual(r.plan.suppliers, q.plan.suppliers);
    assert.equal(r.plan.expected_cogs_atomic, '0');
    assert.equal(r.value_add.not_a_pure_proxy, true);
    assert.equal(r.result.batch_size, 3);
    assert.equal(r.result.composed, true);
    assert.deepEqual(r.result.results.map((x: any) => x.capability_id), q.steps.map((s: any) => s.capability_id));
    for (const [i, step] of q.steps.entries()) {
      const cap = capability(step.capability_id);
      // The output is the capability's native response for the quoted body.
      assert.deepEqual(r.result.results[i].output, JSON.parse(JSON.stringify(cap.run(step.native_body))));
    }
    assert.equal(r.evidence.network_fetches, 0);
    assert.equal(r.evidence.model_calls, 0);
    assert.equal(r.evidence.supplier_payments, 0);
    assert.equal(r.evidence.handler_invocations, 3);
    assert.equal(r.evidence.output_sha256, sha256Hex(canonicalJson(r.result)));
    assert.deepEqual(r.evidence.contradictions, []);
    assert.ok(!Number.isNaN(Date.parse(r.evidence.generated_at)));
    assert.equal(r.evidence.provenance.length, 3);
    assert.deepEqual(r.economics, { buyer_price_atomic: '3000', cogs_atomic: '0', contribution_atomic: '3000', supplier_spend_atomic: '0', margin: 1 });
    assert.equal(typeof r.latency_ms, 'number');
    assert.ok(r.limitations.length > 0);
  });

  test('composite: an unsupported or over-budget request is refused before any 402 or payment', async () => {
    const settles = rig.proxy.calls.settle;
    const verifies = rig.proxy.calls.verify;
    const shot = await postJson(base + '/x402/v1/outcome-router', { objective: 'take a screenshot of my site' });
    assert.equal(shot.status, 422);
    assert.equal(((await shot.json()) as any).error.code, 'screenshot_unsupported');
    const over = await postJson(base + '/x402/v1/outcome-router', { objective: 'contrast #000000 on #ffffff', max_price: '999' });
    assert.equal(over.status, 422);
    assert.equal(((await over.json()) as any).error.code, 'price_above_max');
    assert.equal(rig.proxy.calls.settle, settles);
    assert.equal(rig.proxy.calls.verify, verifies);
  });

  test('the composite is listed in the contract when the switch is on', async () => {
    const contract = (await (await fetch(base + '/v1/router')).json()) as any;
    assert.equal(contract.endpoints.composite.url, base + '/x402/v1/outcome-router');
    assert.ok(contract.schemas.execution_result);
  });
});

describe('outcome router, composite switch off (the default)', () => {
  let rig: Rig;
  let base: string;
  before(async () => {
    rig = await startRig({ service: { catalog: baseCatalog(), modules: [routerModule] } });
    base = rig.service.url;
  });
  after(async () => rig?.close());

  test('/x402/v1/outcome-router answers 404 and appears in no listing', async () => {
    const res = await postJson(base + '/x402/v1/outcome-router', { objective: 'contrast #000000 on #ffffff' });
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as any).error.code, 'not_found');
    assert.equal((await fetch(base + '/x402/v1/outcome-router')).status, 404);
    const contract = await (await fetch(base + '/v1/router')).text();
    assert.ok(!contract.includes('outcome-router'));
    const q = await quote(base, { objective: 'contrast #000000 on #ffffff' });
    assert.equal(q.how_to_pay.composite, undefined);
    assert.ok(!JSON.stringify(q).includes('outcome-router'));
  });

  test('quoting still works and the quoted route is payable', async () => {
    const q = await quote(base, { objective: 'contrast', fg: '#000000', bg: '#ffffff' });
    const before = await balanceOf(rig.devnet, rig.devnet.payTo);
    const res = await payStep(rig, q.steps[0]);
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as any).contrast_ratio, 21);
    assert.equal((await balanceOf(rig.devnet, rig.devnet.payTo)) - before, 1000n);
  });
});
