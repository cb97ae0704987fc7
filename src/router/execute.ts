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
 *
 * Where a step runs: where its own paid route would run it. With an executor
 * (the worker pool of the service selling the composite, handed over per call,
 * src/isolation), a step of an entry marked `isolate` whose input is large (or
 * whose plan carries large inputs for such entries) is validated and run in a
 * worker under HANDLER_BUDGET_MS, and its output, megabytes for a 2 MiB page,
 * never comes back to the event loop as a value: the worker returns its bytes
 * and hashes, and the composed body is assembled and hashed there too
 * (`compose`). A step over its budget fails the call with handler_over_budget
 * before settlement, as on its own route. Outbound requests a worker counts
 * for its step are added to the evidence like the others.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import { canonicalJson, sha256Hex } from '../foundation/canonical-json.js';
import { ISOLATE_MIN_INPUT_CHARS, PreparedBody, stringCharsAtLeast, type StepExecutor, type StepRun } from '../isolation/pool.js';
import type { Plan, PlannedStep } from './planner.js';
import { planSummary, ROUTER_LIMITATIONS } from './quote.js';
import { economicsOf, settlementCostAtomic } from './economics.js';

class ExecutionMeter {
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
function measure<T>(meter: ExecutionMeter, fn: () => Promise<T>): Promise<T> {
  listen();
  return scope.run(meter, fn);
}

interface StepOutput {
  step: PlannedStep;
  /** The output as a value (a step run on the event loop), or its bytes from a worker. */
  output?: unknown;
  pooled?: StepRun;
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
  return { step, output, inputSha: sha256Hex(canonicalJson(parsed.input)), outputSha: sha256Hex(canonicalJson(output)) };
}

export interface ExecutionEnv {
  executionId: string;
  now: () => number;
}

/** The steps in order, each where it runs (see the header). */
async function runSteps(plan: Plan, meter: ExecutionMeter, executor?: StepExecutor): Promise<StepOutput[]> {
  // Many steps each under the threshold can still make a large plan: then every step of an isolated kind moves.
  const heavy = executor !== undefined && stringCharsAtLeast(plan.steps.filter((s) => executor.offloadable(s.route.cap)).map((s) => s.body), ISOLATE_MIN_INPUT_CHARS);
  const out: StepOutput[] = [];
  for (const step of plan.steps) {
    if (executor?.offloads(step.route.cap, step.body, heavy)) {
      meter.handlerInvocations++;
      const pooled = await executor.step(step.route.cap, step.body);
      meter.networkFetches += pooled.networkFetches;
      out.push({ step, pooled, inputSha: pooled.inputSha, outputSha: pooled.outputSha });
    } else {
      out.push(await runStep(step, meter));
    }
  }
  return out;
}

/** Run a plan on the event loop (examples, tests, a service without a pool): the execution result. */
export async function executePlan(plan: Plan, env: ExecutionEnv): Promise<Record<string, unknown>> {
  const meter = new ExecutionMeter();
  const started = performance.now();
  const outputs = await measure(meter, () => runSteps(plan, meter));
  return packaged(plan, env, meter, outputs, started, (o) => o.output);
}

/**
 * Run a plan with its heavy steps on `executor`. When every step ran on the
 * event loop, the result as a value (after `finish`); otherwise a
 * PreparedBody composed on the pool, byte for byte JSON.stringify of the same
 * result: its outputs stand in as unguessable slot strings while the small
 * envelope is built, signed (`finish`) and serialized here, and the worker
 * puts each output's bytes into its slot and hashes the result.
 */
export async function executePlanOn(
  plan: Plan,
  env: ExecutionEnv,
  executor: StepExecutor,
  finish: (result: Record<string, unknown>) => Promise<Record<string, unknown>> = async (r) => r,
): Promise<Record<string, unknown> | PreparedBody> {
  const meter = new ExecutionMeter();
  const started = performance.now();
  const outputs = await measure(meter, () => runSteps(plan, meter, executor));
  if (!outputs.some((o) => o.pooled)) return finish(packaged(plan, env, meter, outputs, started, (o) => o.output));
  // A slot is a string no request can contain: it is drawn after the request was read.
  const nonce = randomUUID();
  const slot = (i: number | 'digest') => `slot:${nonce}:${i}`;
  const result = await finish(packaged(plan, env, meter, outputs, started, (o, i) => (o.pooled ? slot(i) : o.output), slot('digest')));
  const pattern = new RegExp(`"slot:${nonce}:([0-9]+|digest)"`, 'g');
  const fill = (text: string, part: (i: number) => Uint8Array, digest?: null): Array<string | Uint8Array | null> => {
    const parts: Array<string | Uint8Array | null> = [];
    let at = 0;
    for (const m of text.matchAll(pattern)) {
      parts.push(text.slice(at, m.index));
      if (m[1] === 'digest') {
        if (digest === undefined) throw new Error('a digest slot inside the result it hashes');
        parts.push(digest);
      } else parts.push(part(Number(m[1])));
      at = m.index! + m[0].length;
    }
    parts.push(text.slice(at));
    return parts;
  };
  const hashParts = fill(canonicalJson(result.result), (i) => outputs[i]!.pooled!.canonical) as Array<string | Uint8Array>;
  const bodyParts = fill(JSON.stringify(result), (i) => outputs[i]!.pooled!.bytes, null);
  const body = await executor.compose(hashParts, bodyParts);
  return new PreparedBody(body.body, body.bytes, body.sha256);
}

/** The execution result around the steps' outputs (`outputOf`) and, unless given, the hash of its canonical `result`. */
function packaged(
  plan: Plan,
  env: ExecutionEnv,
  meter: ExecutionMeter,
  outputs: StepOutput[],
  started: number,
  outputOf: (o: StepOutput, i: number) => unknown,
  outputSha256?: string,
): Record<string, unknown> {
  const latency = Math.round((performance.now() - started) * 100) / 100;
  const result = {
    results: outputs.map((o, i) => ({ step: o.step.step, capability_id: o.step.route.cap.id, output: outputOf(o, i) })),
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
      output_sha256: outputSha256 ?? sha256Hex(canonicalJson(result)),
      contradictions,
      generated_at: new Date(env.now()).toISOString(),
    },
    // One payment for the whole plan, so one settlement: the steps ran in process and settled nothing.
    economics: economicsOf(plan.total, meter.supplierSpendAtomic + settlementCostAtomic(1, plan.settlementCostAtomic), meter.supplierSpendAtomic),
    latency_ms: latency,
    limitations,
  };
}
