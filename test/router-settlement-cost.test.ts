/**
 * X402_SETTLEMENT_COST_ATOMIC through the real service on the devnet: the
 * quote route's plan and economics count one settlement per step, the paid
 * composite's count one for its one payment (and it settles exactly once), and
 * a plan whose price does not cover its settlements is refused with 422
 * negative_contribution before any 402 or settlement.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../src/config.js';
import { routerModule } from '../src/router/module.js';
import { balanceOf, payingFetch, postJson, startRig, type Rig } from './support/harness.js';
import { baseCatalog } from './support/router-fixtures.js';

const FIELD = (type: string) => [{ name: 'id', type, required: true, nullable: false }];
/** The compatibility checker: 3000 a call. */
const CHECKER = { goal: 'compatibility', source_fields: FIELD('integer'), target_fields: FIELD('number') };
/** One contrast check: 1000. */
const ONE_PAIR = { objective: 'contrast of #777777 on #ffffff' };
/** Two contrast checks: 2000, as two payments or one composite payment. */
const TWO_PAIRS = { objective: 'WCAG contrast of #000000 on #ffffff and #777777 on #ffffff' };

test('X402_SETTLEMENT_COST_ATOMIC: default 0, a whole number up to one USDC, else one line naming it', () => {
  assert.equal(loadConfig({}).settlementCostAtomic, 0);
  assert.equal(loadConfig({ X402_SETTLEMENT_COST_ATOMIC: '1000' }).settlementCostAtomic, 1000);
  for (const bad of ['-1', '0.001', '1e3', '$0.001', '1000001']) {
    assert.throws(
      () => loadConfig({ X402_SETTLEMENT_COST_ATOMIC: bad }),
      (e: unknown) => e instanceof ConfigError && e.variable === 'X402_SETTLEMENT_COST_ATOMIC' && !e.message.includes('\n'),
      bad,
    );
  }
});

describe('a settlement costing 1500 atomic units, composite on', () => {
  let rig: Rig;
  let base: string;
  before(async () => {
    rig = await startRig({ env: { OUTCOME_ROUTER_COMPOSITE: '1', X402_SETTLEMENT_COST_ATOMIC: '1500' }, service: { catalog: baseCatalog(), modules: [routerModule] } });
    base = rig.service.url;
  });
  after(async () => rig?.close());

  test('the quote counts the settlement as cost of goods: expected_cogs_atomic, cogs_atomic, contribution_atomic, margin', async () => {
    const res = await postJson(base + '/v1/router/quote', CHECKER);
    const q = (await res.json()) as any;
    assert.equal(res.status, 200, JSON.stringify(q));
    assert.equal(q.total_price.amount_atomic, '3000');
    assert.equal(q.plan.expected_cogs_atomic, '1500');
    assert.deepEqual(q.economics, { buyer_price_atomic: '3000', cogs_atomic: '1500', contribution_atomic: '1500', supplier_spend_atomic: '0', margin: 0.5 });
  });

  test('a price below the cost of its settlements is refused before any payment: quote and composite', async () => {
    const settles = rig.proxy.calls.settle;
    for (const [path, body] of [['/v1/router/quote', ONE_PAIR], ['/v1/router/quote', TWO_PAIRS], ['/x402/v1/outcome-router', ONE_PAIR]] as const) {
      const res = await postJson(base + path, body);
      const e = (await res.json()) as any;
      assert.equal(res.status, 422, `${path} ${JSON.stringify(e)}`);
      assert.equal(e.error.code, 'negative_contribution');
      assert.equal(res.headers.get('payment-required'), null);
    }
    assert.equal(rig.proxy.calls.settle, settles, 'nothing settled');
  });

  test('the composite is one payment, one settlement: its economics count one, so two checks for 2000 sell', async () => {
    const before = await balanceOf(rig.devnet, rig.devnet.payTo);
    const settles = rig.proxy.calls.settle;
    const res = await payingFetch(rig.devnet)(base + '/x402/v1/outcome-router', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(TWO_PAIRS) });
    const r = (await res.json()) as any;
    assert.equal(res.status, 200, JSON.stringify(r));
    assert.equal(rig.proxy.calls.settle - settles, 1, 'one settlement for the whole plan');
    assert.equal((await balanceOf(rig.devnet, rig.devnet.payTo)) - before, 2000n);
    assert.equal(r.plan.payments, 1);
    assert.equal(r.plan.expected_cogs_atomic, '1500');
    assert.deepEqual(r.economics, { buyer_price_atomic: '2000', cogs_atomic: '1500', contribution_atomic: '500', supplier_spend_atomic: '0', margin: 0.25 });
  });
});
