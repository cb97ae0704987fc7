/**
 * The router's cost of goods counts what settling costs the operator
 * (X402_SETTLEMENT_COST_ATOMIC): one settlement per payment, so per step of a
 * quote and once for the composite; a plan whose price does not cover it is
 * refused like any other negative contribution. Cost 0 changes nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CATALOG } from '../capabilities/index.js';
import { cogsAtomic, economicsOf, paymentsFor, settlementCostAtomic } from './economics.js';
import { executePlan } from './execute.js';
import { OutcomeRouter, type RouterOptions } from './planner.js';
import { planSummary, quoteBody } from './quote.js';

const payment = {
  network: 'eip155:31337',
  payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' as const,
  asset: { address: '0x5FbDB2315678afecb367f032d93F642f64180aa3' as const, name: 'USD Coin', version: '2', decimals: 6, symbol: 'USDC' },
};
const THREE_PAIRS = { objective: '#000000 on #ffffff, #777777 on #ffffff and #ffffff on #0078d7' };
const ONE_PAIR = { objective: 'contrast of #777777 on #ffffff' };

function plan(value: unknown, opts: RouterOptions) {
  const planned = new OutcomeRouter(CATALOG, payment, opts).quote(value);
  assert.ok(planned.ok, planned.ok ? '' : planned.error.message);
  return planned.value;
}

function refusal(value: unknown, opts: RouterOptions) {
  const planned = new OutcomeRouter(CATALOG, payment, opts).quote(value);
  assert.ok(!planned.ok, 'refused');
  return planned.error;
}

const quoteOf = (p: ReturnType<typeof plan>) => quoteBody(p, { baseUrl: 'http://x', payment, compositeEnabled: true, quoteId: 'q', createdAt: '1970-01-01T00:00:00.000Z' });

test('economics: goods plus one settlement per payment; contribution and margin follow', () => {
  assert.equal(paymentsFor(3, 'one-per-step'), 3);
  assert.equal(paymentsFor(3, 'one'), 1);
  assert.equal(settlementCostAtomic(3, 1000n), 3000n);
  assert.equal(cogsAtomic({ goodsCostAtomic: 500n, settlementCostAtomic: 1000n }, 2), 2500n);
  assert.equal(cogsAtomic({ goodsCostAtomic: 0n, settlementCostAtomic: 0n }, 20), 0n);
  assert.deepEqual(economicsOf(3000n, 1000n, 0n), { buyer_price_atomic: '3000', cogs_atomic: '1000', contribution_atomic: '2000', supplier_spend_atomic: '0', margin: 0.6667 });
  assert.deepEqual(economicsOf(1000n, 1000n, 0n), { buyer_price_atomic: '1000', cogs_atomic: '1000', contribution_atomic: '0', supplier_spend_atomic: '0', margin: 0 });
});

test('a quote of three steps counts three settlements; cost 0 (the default) counts none', () => {
  const costed = quoteOf(plan(THREE_PAIRS, { settlementCostAtomic: 300n }));
  assert.equal(costed.plan.payments, 3);
  assert.equal(costed.plan.expected_cogs_atomic, '900');
  assert.deepEqual(costed.economics, { buyer_price_atomic: '3000', cogs_atomic: '900', contribution_atomic: '2100', supplier_spend_atomic: '0', margin: 0.7 });

  const free = quoteOf(plan(THREE_PAIRS, {}));
  assert.equal(free.plan.expected_cogs_atomic, '0');
  assert.deepEqual(free.economics, { buyer_price_atomic: '3000', cogs_atomic: '0', contribution_atomic: '3000', supplier_spend_atomic: '0', margin: 1 });
});

test('the composite execution counts one settlement for its one payment, whatever the number of steps', async () => {
  const p = plan(THREE_PAIRS, { settlementCostAtomic: 300n, paymentsPerPlan: 'one' });
  const r = (await executePlan(p, { executionId: 'exe_test', now: () => 0 })) as any;
  assert.equal(r.plan.payments, 1);
  assert.equal(r.plan.expected_cogs_atomic, '300');
  assert.deepEqual(r.economics, { buyer_price_atomic: '3000', cogs_atomic: '300', contribution_atomic: '2700', supplier_spend_atomic: '0', margin: 0.9 });
  assert.equal(planSummary(p, 3).expected_cogs_atomic, '900');
});

test('a price below the settlement cost is refused (negative_contribution), before any quote', () => {
  // One contrast check costs 1000; a settlement of 1001 loses money on it.
  const e = refusal(ONE_PAIR, { settlementCostAtomic: 1001n });
  assert.equal(e.code, 'negative_contribution');
  assert.match(e.message, /cost 1001 atomic units to deliver \(0 of goods and 1 settlement at 1001\) for a price of 1000/);
  // Exactly covered is not a loss.
  assert.equal(quoteOf(plan(ONE_PAIR, { settlementCostAtomic: 1000n })).economics.contribution_atomic, '0');
  // Three payments of 1000 at 1500 a settlement lose money; one composite payment of 3000 does not.
  assert.equal(refusal(THREE_PAIRS, { settlementCostAtomic: 1500n }).code, 'negative_contribution');
  assert.equal(plan(THREE_PAIRS, { settlementCostAtomic: 1500n, paymentsPerPlan: 'one' }).total, 3000n);
  // But a composite whose whole price is below one settlement is refused too.
  assert.equal(refusal(ONE_PAIR, { settlementCostAtomic: 1001n, paymentsPerPlan: 'one' }).code, 'negative_contribution');
});
