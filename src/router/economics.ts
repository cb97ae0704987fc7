/**
 * The router's cost of goods, in one place: what delivering a plan costs the
 * operator, and the economics block quotes and executions carry.
 *
 * Two costs make it up:
 * - the goods: what the steps' descriptors say a call costs (suppliers; the
 *   service's own handlers cost 0);
 * - the settlements: X402_SETTLEMENT_COST_ATOMIC per settlement, in the
 *   asset's atomic units (a facilitator's fee, e.g. CDP's $0.001 past its
 *   free tier). A plan bought as quoted is one payment, hence one settlement,
 *   per step; the composite is one payment for the whole plan, and its steps
 *   run in process without settling, so one settlement.
 */

/** What a plan's delivery costs besides how it is paid for. */
export interface PlanCosts {
  /** The steps' cost of goods (descriptors' `cogsAtomic`), atomic units. */
  goodsCostAtomic: bigint;
  /** What one settlement costs the operator (X402_SETTLEMENT_COST_ATOMIC), atomic units. */
  settlementCostAtomic: bigint;
}

/** How the router sells a plan: one payment per step (the quote), or one for all steps (the composite). */
export type PaymentsPerPlan = 'one-per-step' | 'one';

/** Payments (hence settlements) a plan of `steps` steps is bought with. */
export function paymentsFor(steps: number, per: PaymentsPerPlan): number {
  return per === 'one' ? 1 : steps;
}

/** What `payments` settlements cost the operator. */
export function settlementCostAtomic(payments: number, perSettlementAtomic: bigint): bigint {
  return BigInt(payments) * perSettlementAtomic;
}

/** Cost of goods of a plan bought with `payments` payments: its goods plus its settlements. */
export function cogsAtomic(costs: PlanCosts, payments: number): bigint {
  return costs.goodsCostAtomic + settlementCostAtomic(payments, costs.settlementCostAtomic);
}

/** The economics block: the buyer's price, the cost of goods (settlements included), what is left, and what went to suppliers. */
export function economicsOf(price: bigint, cogs: bigint, supplierSpend: bigint) {
  const contribution = price - cogs;
  return {
    buyer_price_atomic: String(price),
    cogs_atomic: String(cogs),
    contribution_atomic: String(contribution),
    supplier_spend_atomic: String(supplierSpend),
    margin: price > 0n ? Math.round((Number(contribution) / Number(price)) * 10_000) / 10_000 : 0,
  };
}
