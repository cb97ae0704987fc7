/**
 * Composite execution: run a plan's steps through the very handlers (and the
 * very input validation) of their paid routes, and package a router execution
 * result.
 *
 * The evidence counts are measured, not written down: the steps run inside an
 * AsyncLocalStorage scope holding an `ExecutionMeter`, and Node's diagnostics
 * channels report every outbound HTTP request (fetch/undici and node:http)
 * made in that scope. Model calls and supplier payments could only happen
 * through a supplier step, the one place that would count them — no plan has
 * one (the planner refuses suppliers off the allowlist, which is empty).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import diagnostics from 'node:diagnostics_channel';
import { canonicalJson, sha256Hex } from '../payments/canonical-json.js';
import type { Plan, PlannedStep } from './planner.js';
import { economicsOf, planSummary, ROUTER_LIMITATIONS } from './quote.js';

export class ExecutionMeter {
  networkFetches = 0;
  modelCalls = 0;
  supplierPayments = 0;
  supplierSpendAtomic = 0n;
  handlerInvocations = 0;
}

const scope = new AsyncLocalStorage<ExecutionMeter>();
let listening = false;

/** Count outbound HTTP requests made by whatever runs inside `measure`. */
function listen(): void {
  if (listening) return;
  listening = true;
  const count = () => {
    const meter = scope.getStore();
    if (meter) meter.networkFetches++;
  };
  diagnostics.subscribe('undici:request:create', count);
  diagnostics.subscribe('http.client.request.start', count);
}

/** Run fn with `meter` counting the outbound requests it makes. */
export function measure<T>(meter: ExecutionMeter, fn: () => Promise<T>): Promise<T> {
  listen();
  return scope.run(meter, fn);
}

interface StepOutput {
  step: PlannedStep;
  input: unknown;
  output: unknown;
  inputSha: string;
  outputSha: string;
}

/** One step, exactly as its paid route would run it: the same validation (with defaults), the same handler. */
async function runStep(step: PlannedStep, meter: ExecutionMeter): Promise<StepOutput> {
  const parsed = step.route.reader.fromValue(structuredClone(step.body));
  if (!parsed.ok) throw new Error(`step ${step.step} (${step.route.cap.id}) does not validate`);
  meter.handlerInvocations++;
  // The bytes the paid route would send, read back: the native response exactly.
  const output: unknown = JSON.parse(JSON.stringify(await step.route.cap.run(parsed.input)));
  return { step, input: parsed.input, output, inputSha: sha256Hex(canonicalJson(parsed.input)), outputSha: sha256Hex(canonicalJson(output)) };
}

export interface ExecutionEnv {
  executionId: string;
  now: () => number;
}

export async function executePlan(plan: Plan, env: ExecutionEnv): Promise<Record<string, unknown>> {
  const meter = new ExecutionMeter();
  const started = performance.now();
  const outputs = await measure(meter, async () => {
    const out: StepOutput[] = [];
    for (const step of plan.steps) out.push(await runStep(step, meter));
    return out;
  });
  const latency = Math.round((performance.now() - started) * 100) / 100;

  const result = {
    results: outputs.map((o) => ({ step: o.step.step, capability_id: o.step.route.cap.id, output: o.output })),
    batch_size: plan.steps.length,
    composed: plan.routes.length > 1,
  };

  // The same handler on the same input must give the same output; say so if it ever did not.
  const contradictions: Array<Record<string, unknown>> = [];
  const byInput = new Map<string, StepOutput[]>();
  for (const o of outputs) {
    const key = `${o.step.route.cap.id}|${o.inputSha}`;
    byInput.set(key, [...(byInput.get(key) ?? []), o]);
  }
  for (const group of byInput.values()) {
    if (new Set(group.map((g) => g.outputSha)).size > 1) {
      contradictions.push({ capability_id: group[0]!.step.route.cap.id, steps: group.map((g) => g.step.step), reason: 'the same input gave different outputs' });
    }
  }

  const operations = ['Classified the objective and inputs into ' + plan.routes.map((r) => r.cap.id).join(' + ')];
  if (plan.parsed.folded.length) operations.push(`Folded top-level fields into inputs: ${plan.parsed.folded.join(', ')}`);
  if (plan.parsed.renamed.length) operations.push(`Renamed aliases: ${plan.parsed.renamed.join(', ')}`);
  if (plan.steps.some((s) => s.source === '/objective')) operations.push('Read native inputs from the objective\'s text');
  operations.push('Validated every native body against its capability\'s input schema before payment');
  if (plan.steps.length > 1) operations.push(`Ran ${plan.steps.length} steps under one payment`);
  operations.push('Hashed every input and output (SHA-256 of canonical JSON) for provenance');

  const limitations = [...ROUTER_LIMITATIONS];
  if (plan.parsed.buyerMetadata.secretKeysStripped) limitations.push(`${plan.parsed.buyerMetadata.secretKeysStripped} secret-like buyer_metadata key(s) were stripped and not used.`);

  return {
    status: 'DELIVERED',
    execution_id: env.executionId,
    request_fingerprint: plan.fingerprint,
    outcome: plan.parsed.request.objective,
    plan: planSummary(plan, 1),
    value_add: { operations, not_a_pure_proxy: true },
    result,
    evidence: {
      level: plan.evidenceLevel,
      provenance: outputs.map((o) => ({
        step: o.step.step,
        capability_id: o.step.route.cap.id,
        route: `${o.step.route.cap.method} ${o.step.route.cap.path}`,
        handler: 'in-process',
        input_sha256: o.inputSha,
        output_sha256: o.outputSha,
      })),
      network_fetches: meter.networkFetches,
      model_calls: meter.modelCalls,
      supplier_payments: meter.supplierPayments,
      handler_invocations: meter.handlerInvocations,
      output_sha256: sha256Hex(canonicalJson(result)),
      contradictions,
      generated_at: new Date(env.now()).toISOString(),
    },
    economics: economicsOf(plan.total, meter.supplierSpendAtomic, meter.supplierSpendAtomic),
    latency_ms: latency,
    limitations,
  };
}
