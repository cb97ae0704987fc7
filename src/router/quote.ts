/**
 * The quote body: a plan rendered for the buyer — the routes to call, the
 * native bodies to send, the prices and payee (the live resources' own, never
 * changed), the economics and how to pay. Everything except `quote_id` and
 * `created_at` is a function of the plan, hence of the request. A body too
 * large to echo is named instead (by-reference.ts): a template, and where in
 * the buyer's own request each value it leaves out is.
 */
import type { PaymentConfig } from '../config.js';
import type { CommitmentSigner } from '../commitments/signer.js';
import { SIGNED_OFFER_A2A_METADATA, SIGNED_OFFER_HEADER, SIGNED_OFFER_MCP_META } from '../commitments/formats.js';
import type { CanonicalDigest, JsonTemplate } from '../foundation/json-template.js';
import { HOW_TO_PAY } from '../payments/how-to-pay.js';
import { COMPOSITE_PATH, type Plan, type Route } from './planner.js';
import { cogsAtomic, economicsOf } from './economics.js';
import type { QuoteDigests, QuoteReferences } from './by-reference.js';

export const ROUTER_LIMITATIONS: readonly string[] = [
  'The router plans only onto this service\'s own deterministic handlers: it fetches no URLs, calls no models and pays no suppliers.',
  'Objective wording is read with fixed rules, not a language model. When in doubt, name the capability id or its route and send its native inputs.',
  'A quote reserves nothing: the prices and the payee it names are the live resources\' own. When the service signs (a signer in /.well-known/x402), each step\'s signed_offer holds its price for that native body until the offer\'s validUntil.',
  'Each step\'s result carries that capability\'s own limitations.',
];

type Payment = Pick<PaymentConfig, 'network' | 'payTo' | 'asset'>;

export interface QuoteEnv {
  baseUrl: string;
  payment: Payment;
  compositeEnabled: boolean;
  quoteId: string;
  createdAt: string;
}

export function priceOf(amount: bigint | string, payment: Payment) {
  return {
    amount_atomic: String(amount),
    asset: payment.asset.address,
    asset_symbol: payment.asset.symbol,
    decimals: payment.asset.decimals,
    network: payment.network,
    pay_to: payment.payTo,
    scheme: 'exact' as const,
  };
}

export function routeOf(path: string, baseUrl: string) {
  return { method: 'POST' as const, path, url: baseUrl + path };
}

function outcomeOf(plan: Plan): { kind: 'single' | 'batch' | 'composed'; capability_ids: string[]; description: string } {
  const ids = plan.routes.map((r) => r.cap.id);
  const n = plan.steps.length;
  if (plan.routes.length > 1) {
    return { kind: 'composed', capability_ids: ids, description: `${n} steps over ${ids.length} capabilities: ${plan.routes.map((r) => `${countOf(plan, r)} × ${r.cap.title}`).join(' + ')}.` };
  }
  const r = plan.routes[0]!;
  if (n > 1) return { kind: 'batch', capability_ids: ids, description: `A batch of ${n} items on ${r.cap.path}: ${r.d.outcome}` };
  return { kind: 'single', capability_ids: ids, description: r.d.outcome };
}

function countOf(plan: Plan, r: Route): number {
  return plan.steps.filter((s) => s.route === r).length;
}

/** The plan as bought with `payments` payments: its expected cost of goods counts that many settlements. */
export function planSummary(plan: Plan, payments: number) {
  const per = plan.reliabilities;
  const reliability = payments === 1 ? Math.min(...per) : per.reduce((p, r) => p * r, 1);
  return {
    suppliers: plan.routes.map((r) => r.cap.id),
    expected_cogs_atomic: String(cogsAtomic(plan, payments)),
    expected_latency_ms: plan.expectedLatencyMs,
    expected_reliability: Math.round(reliability * 10_000) / 10_000,
    evidence_level: plan.evidenceLevel,
    payments,
  };
}

/** What a quote names instead of writing out, and the digests it states (by-reference.ts); absent: every body written out. */
export interface QuoteNaming {
  refs: QuoteReferences;
  digests: QuoteDigests;
}

/** A body given by reference, as the buyer reads it: the template, each reference's place and source, the body's own digest. */
function byReference(naming: QuoteNaming, t: JsonTemplate | undefined, digest: CanonicalDigest | undefined) {
  if (!t || !digest) return undefined;
  return {
    template: t.template,
    references: t.placements.map((p) => ({ at: p.at, from: naming.refs.inputs[p.source]!.from })),
    bytes: digest.bytes,
    sha256: digest.sha256,
  };
}

const BUILD_BY_REFERENCE =
  'A native_body of null holds a value you sent that is too large to echo: build that body from native_body_by_reference, its template with each reference\'s `at` (a JSON pointer into the body, a null in the template) set to the value at its `from` (a JSON pointer into the request you sent to this quote, exactly as you sent it); the body\'s canonical JSON (RFC 8785) then has its `bytes` and `sha256`, and referenced_inputs gives each value\'s own.';

export function quoteBody(plan: Plan, env: QuoteEnv, naming?: QuoteNaming) {
  const { payment, baseUrl } = env;
  const n = plan.steps.length;
  const steps = plan.steps.map((s, i) => {
    const named = naming && byReference(naming, naming.refs.steps[i], naming.digests.steps[i]);
    return {
      step: s.step,
      capability_id: s.route.cap.id,
      title: s.route.cap.title,
      source: s.source,
      execute_route: routeOf(s.route.cap.path, baseUrl),
      native_body: named ? null : s.body,
      ...(named && { native_body_by_reference: named }),
      price: priceOf(s.route.cap.priceAtomic, payment),
      evidence_level: (s.route.d.evidence.includes('sourced') ? 'sourced' : 'deterministic') as 'sourced' | 'deterministic',
    };
  });
  const canonicalNamed = naming && byReference(naming, naming.refs.canonical, naming.digests.canonical);
  const oneRoute = plan.routes.length === 1 ? routeOf(plan.routes[0]!.cap.path, baseUrl) : null;
  const r = plan.parsed.request;
  const instructions = [
    'For each step, in order: POST its native_body as application/json to its execute_route.url.',
    `Its 402's accepts[0] asks for exactly that step's price.amount_atomic of ${payment.asset.symbol} on ${payment.network}, paid to ${payment.payTo}; you pay with your own wallet.`,
    HOW_TO_PAY,
  ];
  if (steps.some((s) => s.native_body === null)) instructions.splice(1, 0, BUILD_BY_REFERENCE);
  if (n > 1) instructions.push(`This plan is ${n} separate payments, one per step, made one after another on the routes above. A step that is refused or fails is not charged and does not affect the others.`);
  if (r.preferred_protocol === 'mcp') instructions.push('The MCP endpoint never pays: its tools hand this same 402 challenge back to you, and your wallet pays.');
  const how_to_pay: Record<string, unknown> = { protocol: 'x402', x402_version: 2, scheme: 'exact', payments: n, instructions };
  if (env.compositeEnabled) {
    const execute_route = routeOf(COMPOSITE_PATH, baseUrl);
    const price = priceOf(plan.total, payment);
    how_to_pay.composite = canonicalNamed ? { execute_route, body: null, body_by_reference: canonicalNamed, price } : { execute_route, body: plan.canonical, price };
    instructions.push(
      canonicalNamed
        ? `Or make one payment of ${plan.total} for the whole plan: POST the request you sent to this quote, as you sent it, to ${baseUrl + COMPOSITE_PATH} (it plans the same), or the canonical body how_to_pay.composite.body_by_reference builds the same way, and pay its 402 the same way; the answer is a router execution result holding every step's native output.`
        : `Or make one payment of ${plan.total} for the whole plan: POST how_to_pay.composite.body to ${baseUrl + COMPOSITE_PATH} and pay its 402 the same way; the answer is a router execution result holding every step's native output.`,
    );
  }
  return {
    quote_id: env.quoteId,
    created_at: env.createdAt,
    status: 'QUOTED' as const,
    objective: r.objective,
    canonical_request: canonicalNamed ? null : plan.canonical,
    ...(canonicalNamed && { canonical_request_by_reference: canonicalNamed }),
    request_fingerprint: plan.fingerprint,
    ...(naming && naming.refs.inputs.length > 0 && { referenced_inputs: naming.refs.inputs.map((x, i) => ({ from: x.from, ...naming.digests.inputs[i]! })) }),
    outcome: outcomeOf(plan),
    interpretation: {
      objective_field: plan.parsed.objectiveField,
      folded_fields: plan.parsed.folded,
      renamed_fields: plan.parsed.renamed,
      matched: plan.matched,
      assumptions: plan.assumptions,
      unused_inputs: plan.unusedInputs,
      unused_inputs_explained: plan.unusedExplained,
    },
    steps,
    execute_route: oneRoute,
    native_body: n === 1 ? steps[0]!.native_body : null,
    batch_size: n,
    composed: plan.routes.length > 1,
    total_price: { ...priceOf(plan.total, payment), payments: n },
    plan: planSummary(plan, n),
    // As quoted: one payment, hence one settlement, per step.
    economics: economicsOf(plan.total, cogsAtomic(plan, n), plan.goodsCostAtomic),
    constraints: {
      max_price: r.max_price ?? null,
      freshness: r.freshness,
      latency: r.latency,
      evidence: r.evidence,
      preferred_protocol: r.preferred_protocol,
      notes: plan.constraintNotes,
    },
    required_output: plan.requiredOutput,
    how_to_pay,
    buyer_metadata: {
      received: plan.parsed.buyerMetadata.received,
      secret_keys_stripped: plan.parsed.buyerMetadata.secretKeysStripped,
      keys_kept: plan.parsed.buyerMetadata.keysKept,
    },
    limitations: [...ROUTER_LIMITATIONS],
  };
}

export type QuoteBody = ReturnType<typeof quoteBody>;

/** How long a quote's signed offers hold their price, at least; validUntil is rounded up to the next minute so identical quotes share one signed offer. */
const QUOTE_OFFER_VALIDITY_SECONDS = 600;

/**
 * The quote with a signed offer per step (and for the composite, when
 * enabled): the x402 offer-receipt offer for the step's route and price, bound
 * to the SHA-256 of the canonical native body (written out or built by
 * reference: `digests` holds every step's and the canonical request's, made
 * with signing asked for). Paying that route with that body and the offer in
 * X-Signed-Offer before validUntil is charged the signed amount
 * (src/http/paid-route.ts, priceFor in src/payments/paid-flow.ts).
 */
export async function signQuote(body: QuoteBody, signer: CommitmentSigner, nowMs: number, digests: QuoteDigests): Promise<QuoteBody> {
  const validUntil = Math.ceil((nowMs / 1000 + QUOTE_OFFER_VALIDITY_SECONDS) / 60) * 60;
  const offerFor = (url: string, price: ReturnType<typeof priceOf>, digest: CanonicalDigest | undefined) => {
    if (!digest) throw new Error('signQuote needs the digest of every body it signs (quoteDigests with signing)');
    return signer.offer({ resourceUrl: url, scheme: price.scheme, network: price.network, asset: price.asset, payTo: price.pay_to, amount: price.amount_atomic, validUntil, bodySha256: digest.sha256 });
  };
  const steps = await Promise.all(body.steps.map(async (s, i) => ({ ...s, signed_offer: await offerFor(s.execute_route.url, s.price, digests.steps[i]) })));
  const how_to_pay = { ...body.how_to_pay };
  const composite = how_to_pay.composite as { execute_route: { url: string }; price: ReturnType<typeof priceOf> } | undefined;
  if (composite) how_to_pay.composite = { ...composite, signed_offer: await offerFor(composite.execute_route.url, composite.price, digests.canonical) };
  const instructions = [
    ...(body.how_to_pay.instructions as string[]),
    `Each signed_offer holds its price until its validUntil: send it base64-encoded (JSON) in the ${SIGNED_OFFER_HEADER} header with its native body (over MCP: the object in the tool call's _meta["${SIGNED_OFFER_MCP_META}"]; over A2A: the object in metadata "${SIGNED_OFFER_A2A_METADATA}" of the asking and the paying message), and the 402 asks for exactly the signed amount. Verify it against the signer in /.well-known/x402.`,
  ];
  // Only the built canonical body hashes to what the composite's offer binds; the request as sent plans the same but hashes otherwise.
  if (composite && 'body_by_reference' in composite) {
    instructions.push('The composite\'s signed_offer binds the canonical body how_to_pay.composite.body_by_reference builds (its sha256), not the request as you sent it.');
  }
  how_to_pay.instructions = instructions;
  return { ...body, steps, how_to_pay };
}
