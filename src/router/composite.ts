/**
 * The composite resource `POST /x402/v1/outcome-router` as a catalog entry:
 * its input is a quote request, read into a plan by the router's own rules
 * (400/422 before any payment), its price is the plan's total (the same on
 * the 402 and on the paid retry, since both read the same body), and its
 * result is the whole plan executed for that one payment.
 *
 * Sold on a service with a worker pool, it runs through that pool (its step
 * executor, given when the service builds the entry, src/isolation): each heavy step
 * where its own route would run it, under the same budget (execute.ts), and a
 * large request body decoded and parsed there, its fingerprint computed there
 * for a paid call; only the planning itself stays on the event loop. An unpaid
 * 402 never computes the fingerprint and never runs a handler.
 */
import { randomUUID } from 'node:crypto';
import type { Capability } from '../catalog/capability.js';
import { makeInputReader } from '../catalog/input-reader.js';
import type { CommitmentSigner } from '../commitments/signer.js';
import { bytes32 } from '../commitments/formats.js';
import type { StepExecutor } from '../isolation/pool.js';
import { executePlan, executePlanOn } from './execute.js';
import { COMPOSITE_PATH, COMPOSITE_RESOURCE, type OutcomeRouter, type Plan } from './planner.js';
import { executionResultSchema } from './schemas.js';
import { UNSUPPORTED } from './unsupported.js';

const COMPOSITE_DESCRIPTION =
  'Outcome router composite execution: the whole plan that POST /v1/router/quote gives for this body, delivered for one payment of its total price.';

/** The router's refusals of a valid request that cannot be served as asked. */
export const ROUTER_REFUSALS = ['missing_inputs', 'no_matching_outcome', 'price_above_max', 'batch_too_large', 'constraint_unsatisfiable', ...UNSUPPORTED.map((u) => u.code)] as const;

const EXAMPLE_OBJECTIVE = { objective: 'Does #777777 text on #ffffff meet WCAG AA for normal text?' };

interface ProvenanceEntry {
  step: number;
  capability_id: string;
  route: string;
  input_sha256: string;
  output_sha256: string;
  commitment?: unknown;
}

/**
 * Each step's provenance signed by the operator (an EIP-712 Step over the
 * step, capability, route and the input and output hashes), so a step's
 * output can be shown to a third party on its own; the PAYMENT-RESPONSE
 * receipt binds the whole body, these signatures included, to the payment.
 */
async function withStepCommitments(result: Record<string, unknown>, signer: CommitmentSigner): Promise<Record<string, unknown>> {
  const evidence = result.evidence as { provenance: ProvenanceEntry[] };
  const provenance = await Promise.all(
    evidence.provenance.map(async (p) => ({
      ...p,
      commitment: await signer.step({
        executionId: String(result.execution_id),
        step: p.step,
        capabilityId: p.capability_id,
        route: p.route,
        inputSha256: bytes32(p.input_sha256),
        outputSha256: bytes32(p.output_sha256),
      }),
    })),
  );
  return { ...result, evidence: { ...evidence, provenance } };
}

export type CompositeEntry = Capability<Plan, Record<string, unknown>, Promise<Record<string, unknown>>>;

export async function compositeEntry(router: OutcomeRouter, now: () => number, signer?: CommitmentSigner, steps?: StepExecutor): Promise<CompositeEntry> {
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
  const finish = signer ? (result: Record<string, unknown>) => withStepCommitments(result, signer) : async (result: Record<string, unknown>) => result;
  /** With the service's pool: each heavy step where its own route would run it; the composed body possibly made there (a PreparedBody, serialized as the same JSON). */
  const run = async (plan: Plan) => {
    const env = { executionId: `exe_${randomUUID()}`, now };
    return (steps ? executePlanOn(plan, env, steps, finish) : finish(await executePlan(plan, env))) as Promise<Record<string, unknown>>;
  };
  /** A large body decoded and parsed on the pool (the steps an inline read takes before planning), its fingerprint computed there for a paid call. */
  const readBodyOffThread = async (contentType: string | undefined, body: Uint8Array, paid: boolean) => {
    const value = await steps!.parse(contentType, body, reader.limit);
    if (!value.ok) return { verdict: value };
    const verdict = reader.fromValue(value.input);
    if (!verdict.ok || !paid) return { verdict };
    const plan = verdict.input as Plan;
    // The plan's own fingerprint (the paid flow's, of the canonical request), computed on the pool; the plan
    // keeps it, so the flow binds the payment to it and `run` reports it without computing it again.
    plan.fingerprint = await steps!.fingerprint(COMPOSITE_RESOURCE, plan.canonical);
    return { verdict, fingerprint: plan.fingerprint };
  };
  const entry: CompositeEntry = {
    id: COMPOSITE_RESOURCE,
    method: 'POST',
    path: COMPOSITE_PATH,
    priceAtomic: String(min),
    priceOf: (plan) => String(plan.total),
    fingerprintOf: (plan) => plan.fingerprint,
    priceRange: { minAtomic: String(min), maxAtomic: String(max), note: 'The price is the quote\'s total_price.amount_atomic for the same body.' },
    extraRefusals: { '422': { description: 'Valid but not servable as asked (always 422, before any payment)', codes: ROUTER_REFUSALS } },
    title: 'Outcome router composite',
    summary: 'The outcome router\'s plan for your objective, run in one paid call: every step\'s result and its provenance, priced at the plan\'s total.',
    description: `${COMPOSITE_DESCRIPTION} Takes the quote request; the price is the plan's total (how_to_pay.composite.price of the quote), the same on the 402 and on the paid retry. Answers a router execution result.`,
    inputSchema: router.requestSchema(),
    toolInputSchema: router.requestSchema('canonical'),
    outputSchema: executionResultSchema,
    // The wire body (a quote request), not the plan it becomes; its real result with a fixed id and clock.
    examples: example.ok
      ? [{ summary: 'One contrast check, planned and executed for one payment', input: EXAMPLE_OBJECTIVE as unknown as Plan, output: await executePlan(example.input, { executionId: 'exe_example', now: () => 0 }) }]
      : [],
    readInput,
    run,
    ...(steps && { readBodyOffThread }),
    maxBodyBytes: router.bodyLimit,
  };
  const reader = makeInputReader(entry);
  return entry;
}
