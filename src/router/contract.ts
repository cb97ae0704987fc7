/**
 * GET /v1/router: the router contract, generated from the catalog — the job,
 * the aliases, the schemas, every supported outcome with an example quote
 * computed by the real planner, every refused category, the rules and the
 * error codes.
 */
import type { PaymentConfig } from '../config.js';
import { statusOf, type ErrorCode } from '../errors.js';
import { COMPOSITE_PATH, CONTRACT_PATH, QUOTE_PATH, type OutcomeRouter } from './planner.js';
import { priceOf, quoteBody, routeOf } from './quote.js';
import { ECHO_LIMIT_CHARS, executionResultSchema, MEMBER_NAME_MAX_CHARS, NAMED_MEMBERS_MAX, OBJECTIVE_FIELDS, quoteResponseSchema, routerErrorSchema } from './schemas.js';
import { refusedInputKeys, UNSUPPORTED } from './unsupported.js';

const CONTRACT_VERSION = '1';

const ERROR_MEANINGS: Array<[ErrorCode, string]> = [
  ['invalid_json', 'The body is not JSON.'],
  ['invalid_request', 'The request breaks the quote request schema (extra property, enum, objective length, max_price pattern, objective given twice, a field given twice with different values).'],
  ['unsupported_media_type', 'Send application/json.'],
  ['payload_too_large', 'The body is larger than the router accepts.'],
  ['invalid_inputs', 'The inputs do not make a valid native body for the chosen capability (details point into the request).'],
  ['missing_inputs', 'The outcome is supported but inputs it needs are missing; details name each one.'],
  ['no_matching_outcome', 'No supported outcome matches the objective and inputs.'],
  ['price_above_max', 'The plan\'s total is above max_price.'],
  ['batch_too_large', 'More steps than one quote takes.'],
  ['constraint_unsatisfiable', 'The evidence or latency asked for cannot be met.'],
  ...UNSUPPORTED.map((u): [ErrorCode, string] => [u.code, `Refused category ${u.category}.`]),
];

export interface ContractEnv {
  baseUrl: string;
  payment: Pick<PaymentConfig, 'network' | 'payTo' | 'asset'>;
  compositeEnabled: boolean;
}

export function buildContract(router: OutcomeRouter, env: ContractEnv): Record<string, unknown> {
  const { baseUrl, payment } = env;
  const supported = router.routes.map((route) => {
    const example = route.d.example?.(route.cap);
    let exampleQuote: Record<string, unknown> | null = null;
    if (example) {
      const request = { objective: example.objective, ...(example.inputs && Object.keys(example.inputs).length ? { inputs: example.inputs } : {}) };
      const planned = router.quote(request);
      if (planned.ok) {
        const q = quoteBody(planned.value, { baseUrl, payment, compositeEnabled: env.compositeEnabled, quoteId: 'example', createdAt: '1970-01-01T00:00:00.000Z' });
        exampleQuote = {
          request,
          response: { outcome: q.outcome, steps: q.steps, batch_size: q.batch_size, composed: q.composed, total_price: q.total_price, interpretation: q.interpretation },
        };
      }
    }
    return {
      id: route.cap.id,
      capability_id: route.cap.id,
      title: route.cap.title,
      description: route.d.outcome,
      route: routeOf(route.cap.path, baseUrl),
      method: route.cap.method,
      price: priceOf(route.cap.priceAtomic, payment),
      required_inputs: route.d.requiredInputs,
      optional_inputs: route.d.optionalInputs ?? [],
      batch: route.d.batch ?? null,
      names: route.names,
      evidence: route.d.evidence,
      example_quote: exampleQuote,
    };
  });

  const endpoints: Record<string, unknown> = {
    contract: { method: 'GET', path: CONTRACT_PATH, url: baseUrl + CONTRACT_PATH, price: 'free' },
    quote: { method: 'POST', path: QUOTE_PATH, url: baseUrl + QUOTE_PATH, price: 'free' },
  };
  const rules = [
    'The quote is free, synchronous and deterministic: the same request gets the same quote (only quote_id and created_at differ).',
    'The router never changes a price or the payee: each step costs exactly what its live resource costs, paid to the same address.',
    'A batch of N items is N steps on the same route: N sequential payments, each for that route\'s own price.',
    'Invalid, unsupported, over-budget or incomplete requests are rejected by the quote, before any payment. There is no refund rail, so rejection before payment is the only protection.',
    'No URL is ever fetched: a source_url, or any URL given as something to fetch, is refused. Send the content itself.',
    'The MCP endpoint does not pay: it hands the 402 challenge back to the caller. The service signs nothing and holds no buyer keys.',
    'Only the service\'s own handlers deliver: no supplier, model or third-party API is paid or called.',
    'buyer_metadata takes non-secret hints only; secret-like keys are stripped on arrival, never logged and never persisted.',
    'Refusals come from what is asked — the objective\'s words and the top-level keys of inputs — never from keys nested inside data (an EIP-712 domain, a metadata object). Every refusal carries error.reason, one sentence; every unused input is explained in interpretation.unused_inputs_explained.',
    `A quote answers in proportion to what it says, not to what was sent: a body whose JSON would exceed ${ECHO_LIMIT_CHARS} characters names its largest values you sent by their JSON pointer in your request, with their size and SHA-256 (referenced_inputs), and comes as a template to build from your own request (native_body_by_reference, canonical_request_by_reference); inputs and required_output hold at most ${NAMED_MEMBERS_MAX} members, with names of at most ${MEMBER_NAME_MAX_CHARS} characters.`,
  ];
  if (env.compositeEnabled) {
    endpoints.composite = { method: 'POST', path: COMPOSITE_PATH, url: baseUrl + COMPOSITE_PATH, price: 'the total of the plan for the request body (one payment)' };
    rules.push(`${COMPOSITE_PATH} takes the same request as the quote, costs the plan's total in one payment (the same price on the 402 and on the paid retry) and answers a router execution result holding every step's native output.`);
  }

  return {
    name: 'Outcome router',
    contract_version: CONTRACT_VERSION,
    job:
      'Say what you want done — in words, by product name, capability id or route — and send the facts it needs. The router answers, free and at once, with the already-live paid resource that delivers it: the route to call, the exact native body to send, its unchanged price and payee, and how to pay. Batches become sequential payments on the same route; several outcomes in one request become a composition of steps. Anything it cannot deliver (URL fetching, browsing, screenshots, domain lookups, signing, refunds, an MCP payer, outside suppliers, loss-making jobs, a plan above your max_price or with inputs missing) is refused before you pay anything.',
    endpoints,
    aliases: {
      objective: [...OBJECTIVE_FIELDS],
      // Every field accepted at the top level and moved into inputs (refused keys too, so they get their precise 422).
      folded_fields: [...router.foldable.keys()].sort(),
      refused_input_keys: refusedInputKeys(router.declaredKeys),
      field_aliases: Object.fromEntries([...router.aliases.entries()].sort(([a], [b]) => (a < b ? -1 : 1))),
      colours_in_objective:
        'When inputs.foreground and inputs.background are absent, colours written in the objective are the contrast inputs: "A on B" pairs (on, over, sobre, sur, auf, su, op, 上, 위…), consecutive pairs ("A/B, C/D"), or several foregrounds on one background ("A, B and C on D"). A colour is #RRGGBB, #RGB, rgb()/rgba() or hsl()/hsla() with an opaque alpha, or a CSS named colour ("white text on navy"); in objectives and in inputs they are normalised to the native #rrggbb (the paid route itself accepts only #RRGGBB).',
      languages:
        'Objective wording is read, without any model, in English, Spanish, Portuguese, French, German, Italian, Dutch, Chinese, Japanese and Korean (accents and letter case ignored). With no wording, the inputs name the outcome (html with JSON-LD, source_fields + target_fields, an ipfs:// / ar:// / data: uri, a cursor, colour pairs); inputs that clearly carry a second outcome are composed with the one the objective names.',
    },
    schemas: {
      quote_request: router.requestSchema(),
      quote_response: quoteResponseSchema,
      error: routerErrorSchema,
      ...(env.compositeEnabled ? { execution_result: executionResultSchema } : {}),
    },
    supported_outcomes: supported,
    compositions: {
      description:
        'Any combination of the supported outcomes in one request, when the inputs for each are present: each item becomes a step on its own route, in catalog order. composed is true when the steps use more than one capability. A request that names an outcome whose inputs are missing is rejected with missing_inputs rather than served in part.',
      max_steps: router.maxSteps,
    },
    unsupported_outcomes: UNSUPPORTED.map((u) => ({ category: u.category, code: u.code, status: statusOf(u.code), reason: u.reason })),
    rules,
    errors: ERROR_MEANINGS.map(([code, meaning]) => ({ code, status: statusOf(code), meaning })),
  };
}
