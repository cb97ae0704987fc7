/**
 * The planner, one phase at a time: reading a body (limits, media type,
 * aliases, folding, conflicts, secrets), then each step of `plan` that can
 * refuse (refused categories, items, missing and invalid inputs, the step
 * bound, constraints, economics, the buyer's budget) and what a plan carries
 * (canonical request, fingerprint, unused inputs, coverage). In process, on
 * the service's own catalog; the wording in ten languages is
 * planner-multilingual.test.ts, the HTTP answers router-quote.test.ts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CATALOG } from '../capabilities/index.js';
import { OutcomeRouter, RouterRefusal, type Outcome, type Plan } from './planner.js';
import { routerTestPayment } from '../../test/support/router-fixtures.js';

const router = new OutcomeRouter(CATALOG, routerTestPayment);
const CONTRAST = 'accessibility-contrast-calculator';
const BW = { foreground: '#333333', background: '#ffffff' };

function planned(value: unknown, r: OutcomeRouter = router): Plan {
  const out = r.quote(value);
  assert.ok(out.ok, out.ok ? '' : `${out.error.code}: ${out.error.message}`);
  return out.value;
}

function refused(out: Outcome<unknown>, code: string): { message: string; details: Array<{ path: string; rule: string }> } {
  assert.equal(out.ok, false, 'expected a refusal');
  if (out.ok) throw new Error('unreachable');
  assert.equal(out.error.code, code, out.error.message);
  return { message: out.error.message, details: out.error.details as Array<{ path: string; rule: string }> };
}

describe('reading a body', () => {
  test('a body over the limit is payload_too_large before it is parsed', () => {
    refused(router.readBody('application/json', 'x'.repeat(router.bodyLimit + 1)), 'payload_too_large');
  });

  test('only JSON media types are read; an empty or malformed body is invalid_json', () => {
    assert.equal(refused(router.readBody('text/plain', '{}'), 'unsupported_media_type').details[0]!.rule, 'content-type');
    assert.ok(router.readBody('application/vnd.api+json; charset=utf-8', JSON.stringify({ objective: 'contrast', inputs: BW })).ok);
    assert.ok(router.readBody(undefined, JSON.stringify({ objective: 'contrast', inputs: BW })).ok);
    assert.equal(refused(router.readBody('application/json', '  '), 'invalid_json').details[0]!.rule, 'required');
    assert.equal(refused(router.readBody('application/json', '{"objective":'), 'invalid_json').details[0]!.rule, 'json');
  });

  test('the objective is required once, under any one of its aliases', () => {
    assert.equal(refused(router.readValue({ inputs: BW }), 'invalid_request').details[0]!.path, '/objective');
    const twice = refused(router.readValue({ goal: 'contrast', task: 'contrast' }), 'invalid_request');
    assert.deepEqual(twice.details.map((d) => [d.path, d.rule]), [['/task', 'alias_conflict']]);
    const parsed = router.readValue({ task: 'check the contrast', inputs: BW });
    assert.ok(parsed.ok);
    assert.equal(parsed.value.objectiveField, 'task');
    assert.equal(parsed.value.request.objective, 'check the contrast');
  });

  test('top-level inputs are folded into inputs and aliases renamed; a field given twice with another value is refused', () => {
    const parsed = router.readValue({ objective: 'contrast', fg: '#333333', background: '#ffffff' });
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.value.request.inputs, BW);
    assert.deepEqual(parsed.value.folded, ['background', 'fg']);
    assert.deepEqual(parsed.value.renamed, ['fg → foreground']);
    // The same value twice is one value; another value is a conflict.
    assert.ok(router.readValue({ objective: 'contrast', foreground: '#333333', inputs: BW }).ok);
    const conflict = refused(router.readValue({ objective: 'contrast', foreground: '#000000', inputs: BW }), 'invalid_request');
    assert.deepEqual(conflict.details.map((d) => [d.path, d.rule]), [['/foreground', 'conflicts_with_inputs']]);
  });

  test("secrets in buyer_metadata are gone before validation, and the caller's value is left as it was", () => {
    const value = { objective: 'contrast', inputs: BW, buyer_metadata: { api_key: 'sk-live-0123456789', team: 'design' } };
    const before = JSON.stringify(value);
    const parsed = router.readValue(value);
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.value.buyerMetadata, { received: true, secretKeysStripped: 1, keysKept: 1 });
    assert.equal(JSON.stringify(value), before);
    assert.ok(!JSON.stringify(parsed.value).includes('sk-live'));
  });
});

describe('planning', () => {
  test('a named outcome plans one step whose body is the native body, priced at its catalog price', () => {
    const plan = planned({ objective: 'Check the contrast of #333 on #fff' });
    assert.deepEqual(plan.steps.map((s) => [s.step, s.route.cap.id]), [[1, CONTRAST]]);
    assert.equal(plan.steps[0]!.body.foreground, '#333333');
    assert.equal(plan.total, BigInt(CATALOG.find((c) => c.id === CONTRAST)!.priceAtomic));
    assert.ok(plan.matched[0]!.signals.length > 0);
  });

  test('the canonical request keeps only constraints that differ from their defaults, and the fingerprint binds it', () => {
    const a = planned({ objective: 'contrast', inputs: BW });
    const b = planned({ inputs: { background: '#ffffff', foreground: '#333333' }, objective: 'contrast', latency: 'any', evidence: 'any' });
    assert.deepEqual(a.canonical, { objective: 'contrast', inputs: BW });
    assert.equal(a.fingerprint, b.fingerprint, 'key order and default constraints do not change what is paid for');
    assert.match(a.fingerprint, /^[0-9a-f]{64}$/);
    const c = planned({ objective: 'contrast', inputs: BW, freshness: 'current_public' });
    assert.equal(c.canonical.freshness, 'current_public');
    assert.notEqual(c.fingerprint, a.fingerprint);
  });

  test('a refused category is refused with its reason whatever else the request asks', () => {
    const out = router.quote({ objective: 'Refund my last payment and check the contrast of #000 on #fff' });
    refused(out, 'refund_unsupported');
    assert.ok(!out.ok && out.error instanceof RouterRefusal && out.error.reason.length > 0);
  });

  test('nothing named and nothing recognised in the inputs is no_matching_outcome', () => {
    refused(router.quote({ objective: 'write me a poem about autumn' }), 'no_matching_outcome');
  });

  test('a URL to fetch instead of content is refused as URL fetching', () => {
    refused(router.quote({ objective: 'Extract the offers from https://shop.example/product' }), 'url_fetch_unsupported');
  });

  test('inputs.items: each item is one step, named by capability_id or recognised by its fields; an unknown one is refused', () => {
    const plan = planned({ objective: 'check these', inputs: { items: [{ capability_id: CONTRAST, ...BW }, { foreground: '#000000', background: '#ffffff' }] } });
    assert.deepEqual(plan.steps.map((s) => [s.route.cap.id, s.source]), [[CONTRAST, '/inputs/items/0'], [CONTRAST, '/inputs/items/1']]);
    assert.equal(plan.total, 2n * BigInt(CATALOG.find((c) => c.id === CONTRAST)!.priceAtomic));
    refused(router.quote({ objective: 'check these', inputs: { items: 'not a list' } }), 'invalid_inputs');
    const unknown = refused(router.quote({ objective: 'check these', inputs: { items: [{ capability_id: 'nope' }] } }), 'no_matching_outcome');
    assert.deepEqual(unknown.details.map((d) => [d.path, d.rule]), [['/inputs/items/0/capability_id', 'enum']]);
    const unrecognised = refused(router.quote({ objective: 'check these', inputs: { items: [{ colour: 'red' }] } }), 'no_matching_outcome');
    assert.equal(unrecognised.details[0]!.rule, 'unrecognized_item');
  });

  test('more steps than the bound is batch_too_large', () => {
    const small = new OutcomeRouter(CATALOG, routerTestPayment, { maxSteps: 2 });
    const items = [1, 2, 3].map(() => ({ capability_id: CONTRAST, ...BW }));
    assert.equal(refused(small.quote({ objective: 'check these', inputs: { items } }), 'batch_too_large').details[0]!.rule, 'maxItems');
    assert.equal(planned({ objective: 'check these', inputs: { items: items.slice(0, 2) } }, small).steps.length, 2);
  });

  test('a named outcome without its inputs is missing_inputs; inputs its paid route would refuse are invalid_inputs', () => {
    refused(router.quote({ objective: 'Are these two field contracts compatible?' }), 'missing_inputs');
    const invalid = refused(router.quote({ objective: 'contrast', inputs: { foreground: 42, background: '#ffffff' } }), 'invalid_inputs');
    assert.ok(invalid.details.length > 0);
  });

  test('an unmeetable evidence constraint is refused; a met one is noted', () => {
    refused(router.quote({ objective: 'contrast', inputs: BW, evidence: 'sourced' }), 'constraint_unsatisfiable');
    const plan = planned({ objective: 'contrast', inputs: BW, freshness: 'current_public' });
    assert.ok(plan.constraintNotes.some((n) => n.includes('nothing is served from a cache')));
  });

  test("the buyer's max_price is a bound: above it the plan is refused, at it the plan is quoted", () => {
    const price = CATALOG.find((c) => c.id === CONTRAST)!.priceAtomic;
    assert.equal(refused(router.quote({ objective: 'contrast', inputs: BW, max_price: String(BigInt(price) - 1n) }), 'price_above_max').details[0]!.path, '/max_price');
    assert.equal(planned({ objective: 'contrast', inputs: BW, max_price: price }).total, BigInt(price));
  });

  test('a plan whose settlements cost more than its price is refused as a negative contribution', () => {
    const price = BigInt(CATALOG.find((c) => c.id === CONTRAST)!.priceAtomic);
    const costly = new OutcomeRouter(CATALOG, routerTestPayment, { settlementCostAtomic: price + 1n });
    refused(costly.quote({ objective: 'contrast', inputs: BW }), 'negative_contribution');
    assert.equal(planned({ objective: 'contrast', inputs: BW }, new OutcomeRouter(CATALOG, routerTestPayment, { settlementCostAtomic: price })).total, price);
  });

  test('inputs no step reads are listed with the reason, and change nothing in the price', () => {
    const plan = planned({ objective: 'contrast', inputs: { ...BW, mood: 'calm' } });
    assert.deepEqual(plan.unusedInputs, ['mood']);
    assert.match(plan.unusedExplained[0]!.reason, /not an input of any supported outcome/);
    assert.equal(plan.total, planned({ objective: 'contrast', inputs: BW }).total);
  });

  test('required_output is split into what the planned outcomes return and what they do not', () => {
    const plan = planned({ objective: 'contrast', inputs: BW, required_output: { contrast_ratio: true, weather: true } });
    assert.deepEqual(plan.requiredOutput, { covered: ['contrast_ratio'], not_covered: ['weather'] });
    assert.equal(planned({ objective: 'contrast', inputs: BW }).requiredOutput, null);
  });
});
