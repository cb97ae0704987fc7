/**
 * The composite resource `POST /x402/v1/outcome-router` as a catalog entry:
 * its input is a quote request, read into a plan by the router's own rules
 * (400/422 before any payment), its price is the plan's total (the same on
 * the 402 and on the paid retry, since both read the same body), and its
 * result is the whole plan executed for that one payment.
 */
import { randomUUID } from 'node:crypto';
import type { Capability } from '../catalog/capability.js';
import { executePlan } from './execute.js';
import { COMPOSITE_PATH, COMPOSITE_RESOURCE, type OutcomeRouter, type Plan } from './planner.js';
import { executionResultSchema } from './schemas.js';
import { UNSUPPORTED } from './unsupported.js';

export const COMPOSITE_DESCRIPTION =
  'Outcome router composite execution: the whole plan that POST /v1/router/quote gives for this body, delivered for one payment of its total price.';

/** The router's refusals of a valid request that cannot be served as asked. */
export const ROUTER_REFUSALS = ['missing_inputs', 'no_matching_outcome', 'price_above_max', 'batch_too_large', 'constraint_unsatisfiable', ...UNSUPPORTED.map((u) => u.code)] as const;

const EXAMPLE_OBJECTIVE = { objective: 'Does #777777 text on #ffffff meet WCAG AA for normal text?' };

export async function compositeEntry(router: OutcomeRouter, now: () => number): Promise<Capability<Plan, Record<string, unknown>, Promise<Record<string, unknown>>>> {
  const prices = router.routes.map((r) => BigInt(r.cap.priceAtomic));
  const min = prices.reduce((a, b) => (b < a ? b : a));
  const max = prices.reduce((a, b) => (b > a ? b : a)) * BigInt(router.maxSteps);
  const readInput = (value: unknown) => {
    const parsed = router.readValue(value);
    const planned = parsed.ok ? router.plan(parsed.value) : parsed;
    if (!planned.ok) return { ok: false as const, code: planned.error.code, message: planned.error.message, details: planned.error.details };
    return { ok: true as const, input: planned.value };
  };
  const example = readInput(EXAMPLE_OBJECTIVE);
  return {
    id: COMPOSITE_RESOURCE,
    method: 'POST',
    path: COMPOSITE_PATH,
    priceAtomic: String(min),
    priceOf: (plan) => String(plan.total),
    fingerprintOf: (plan) => plan.fingerprint,
    priceRange: { minAtomic: String(min), maxAtomic: String(max), note: 'The price is the quote\'s total_price.amount_atomic for the same body.' },
    extraRefusals: { '422': { description: 'Valid but not servable as asked (always 422, before any payment)', codes: ROUTER_REFUSALS } },
    title: 'Outcome router composite',
    description: `${COMPOSITE_DESCRIPTION} Takes the quote request; the price is the plan's total (how_to_pay.composite.price of the quote), the same on the 402 and on the paid retry. Answers a router execution result.`,
    inputSchema: router.requestSchema(),
    outputSchema: executionResultSchema,
    // The wire body (a quote request), not the plan it becomes; its real result with a fixed id and clock.
    examples: example.ok
      ? [{ summary: 'One contrast check, planned and executed for one payment', input: EXAMPLE_OBJECTIVE as unknown as Plan, output: await executePlan(example.input, { executionId: 'exe_example', now: () => 0 }) }]
      : [],
    readInput,
    run: (plan) => executePlan(plan, { executionId: `exe_${randomUUID()}`, now }),
    maxBodyBytes: router.bodyLimit,
  };
}
