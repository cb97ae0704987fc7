/**
 * Pure handler timings: `cap.run(input)` called directly in a loop, one row
 * per capability and input case, plus the CPU work the paid route adds around
 * it (UTF-8 decoding + JSON parse + schema validation + capability check,
 * request fingerprint, response serialization) measured the same way. No
 * HTTP, no payment.
 */
import { performance } from 'node:perf_hooks';
import type { Capability } from '../src/catalog/capability.js';
import { CATALOG } from '../src/capabilities/index.js';
import { makeInputReader } from '../src/catalog/input-reader.js';
import { callFingerprint } from '../src/payments/paid-flow.js';
import { casesFor } from './inputs.js';
import { round, summarize, type Summary } from './stats.js';

export interface HandlerRow {
  capability: string;
  inCatalog: boolean;
  case: string;
  /** Size of the JSON request body this input makes. */
  requestBytes: number;
  responseBytes: number;
  /** `cap.run(input)` alone. */
  run: TimedLoop;
  /** Body → validated input → fingerprint → run → JSON response: the route's CPU work outside the gate. */
  pipeline: PipelineLoop | { error: string };
  /** Problems worth printing (for example, an input the capability rejects). */
  notes: string[];
}

export interface TimedLoop {
  iterations: number;
  opsPerSec: number;
  us: Summary;
}

export interface PipelineLoop extends TimedLoop {
  /** The same iterations split by phase, µs. */
  phases: { validate: Summary; fingerprint: Summary; run: Summary; serialize: Summary };
}

export interface HandlerOptions {
  /** Measured time per loop (after warm-up), ms. */
  budgetMs: number;
  warmupMs: number;
  maxIterations: number;
  minIterations: number;
  /** Stop a loop after this long even below minIterations (at least 3 samples), so a slow machine still finishes. */
  hardCapMs: number;
}

export const DEFAULT_HANDLER_OPTIONS: HandlerOptions = { budgetMs: 1500, warmupMs: 300, maxIterations: 200_000, minIterations: 12, hardCapMs: 8000 };

let sink = 0;
function consume(v: unknown): void {
  // Keeps results observable so the loop cannot be optimised away.
  if (v !== null && typeof v === 'object') sink = (sink + 1) | 0;
  else if (typeof v === 'string') sink = (sink + v.length) | 0;
  else if (typeof v === 'number') sink = (sink + v) | 0;
}

async function timeLoop(fn: () => unknown, opts: HandlerOptions): Promise<TimedLoop> {
  const call = async () => {
    const r = fn();
    consume(r instanceof Promise ? await r : r);
  };
  const warmEnd = performance.now() + opts.warmupMs;
  let warm = 0;
  while (performance.now() < warmEnd || warm < 3) {
    await call();
    warm++;
  }
  const samples: number[] = [];
  const start = performance.now();
  const end = start + opts.budgetMs;
  const cap = start + opts.hardCapMs;
  const more = (n: number) => {
    const now = performance.now();
    if (n >= opts.maxIterations) return false;
    if (now < end) return true;
    return n < opts.minIterations && (now < cap || n < 3);
  };
  while (more(samples.length)) {
    const t0 = performance.now();
    const r = fn();
    consume(r instanceof Promise ? await r : r);
    samples.push((performance.now() - t0) * 1000);
  }
  const elapsed = performance.now() - start;
  return { iterations: samples.length, opsPerSec: samples.length / (elapsed / 1000), us: summarize(samples) };
}

/**
 * What the paid route does with a body besides the gate, timed per phase in
 * each iteration: `fromBody` on the body's bytes, as the route passes them
 * (strict UTF-8 decoding, JSON.parse, schema validation, capability check),
 * `callFingerprint` (canonical JSON + SHA-256, or the entry's own
 * `fingerprintOf`), the handler, and JSON.stringify of its result.
 */
async function timePipeline(cap: Capability, reader: ReturnType<typeof makeInputReader>, raw: Uint8Array, opts: HandlerOptions): Promise<PipelineLoop> {
  const once = async (rec?: number[][]) => {
    const t0 = performance.now();
    const parsed = reader.fromBody('application/json', raw);
    if (!parsed.ok) throw new Error(`${cap.id}: the benchmark input became invalid`);
    const t1 = performance.now();
    const fingerprint = callFingerprint(cap, parsed.input);
    const t2 = performance.now();
    const r: unknown = cap.run(parsed.input);
    const out = r instanceof Promise ? await r : r;
    const t3 = performance.now();
    const body = JSON.stringify(out);
    const t4 = performance.now();
    consume(body.length + fingerprint.length);
    if (rec) {
      rec[0]!.push((t4 - t0) * 1000);
      rec[1]!.push((t1 - t0) * 1000);
      rec[2]!.push((t2 - t1) * 1000);
      rec[3]!.push((t3 - t2) * 1000);
      rec[4]!.push((t4 - t3) * 1000);
    }
  };
  const warmEnd = performance.now() + opts.warmupMs;
  for (let warm = 0; performance.now() < warmEnd || warm < 3; warm++) await once();
  const rec: number[][] = [[], [], [], [], []];
  const start = performance.now();
  const end = start + opts.budgetMs;
  const hard = start + opts.hardCapMs;
  const more = (n: number) => {
    const now = performance.now();
    if (n >= opts.maxIterations) return false;
    if (now < end) return true;
    return n < opts.minIterations && (now < hard || n < 3);
  };
  while (more(rec[0]!.length)) await once(rec);
  const elapsed = performance.now() - start;
  const [total, validate, fingerprint, run, serialize] = rec.map((x) => summarize(x)) as [Summary, Summary, Summary, Summary, Summary];
  return { iterations: total.n, opsPerSec: total.n / (elapsed / 1000), us: total, phases: { validate, fingerprint, run, serialize } };
}

/**
 * The catalog plus capability modules that exist in the tree but are not
 * (yet) listed in it; each such module is imported on its own, and skipped
 * with a note when it is missing or fails to load.
 */
const EXTRA_MODULES = ['../src/capabilities/catalog-offer-evidence-extractor/index.js'];

function isCapability(v: unknown): v is Capability {
  const c = v as Partial<Capability> | null;
  return !!c && typeof c === 'object' && typeof c.id === 'string' && typeof c.run === 'function' && typeof c.inputSchema === 'object' && Array.isArray(c.examples);
}

export async function benchCapabilities(): Promise<{ capabilities: Array<{ cap: Capability; inCatalog: boolean }>; skipped: string[] }> {
  const capabilities = CATALOG.map((cap) => ({ cap, inCatalog: true }));
  const skipped: string[] = [];
  for (const spec of EXTRA_MODULES) {
    try {
      const mod = (await import(spec)) as Record<string, unknown>;
      for (const v of Object.values(mod)) {
        if (isCapability(v) && !capabilities.some((c) => c.cap.id === v.id)) capabilities.push({ cap: v, inCatalog: false });
      }
    } catch (e) {
      skipped.push(`${spec}: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  return { capabilities, skipped };
}

export async function runHandlerBench(
  opts: HandlerOptions = DEFAULT_HANDLER_OPTIONS,
  progress: (msg: string) => void = () => {},
): Promise<{ rows: HandlerRow[]; skipped: string[] }> {
  const { capabilities, skipped } = await benchCapabilities();
  const rows: HandlerRow[] = [];
  for (const { cap, inCatalog } of capabilities) {
    const reader = makeInputReader(cap);
    for (const bc of casesFor(cap)) {
      progress(`handler ${cap.id}: ${bc.label}`);
      const notes: string[] = [];
      // The body as the route receives it: UTF-8 bytes.
      const raw = new Uint8Array(Buffer.from(JSON.stringify(bc.input), 'utf8'));
      const checked = reader.fromValue(bc.input);
      if (!checked.ok) notes.push(`input rejected by the capability's own validation: ${JSON.stringify(checked.body).slice(0, 300)}`);
      const first = await cap.run(bc.input);
      const responseBytes = Buffer.byteLength(JSON.stringify(first), 'utf8');
      const flagged = first as { valid?: unknown; compatible?: unknown };
      if (flagged.valid === false) notes.push('the handler returned valid=false for this input');

      const run = await timeLoop(() => cap.run(bc.input), opts);

      let pipeline: HandlerRow['pipeline'];
      const probe = reader.fromBody('application/json', raw);
      if (!probe.ok) {
        pipeline = { error: `route would answer ${probe.status}: ${JSON.stringify(probe.body).slice(0, 200)}` };
      } else {
        pipeline = await timePipeline(cap, reader, raw, opts);
      }
      rows.push({ capability: cap.id, inCatalog, case: bc.label, requestBytes: raw.byteLength, responseBytes, run, pipeline, notes });
    }
  }
  progress(`handlers done (result checksum ${sink})`);
  return { rows, skipped };
}

/** A compact, JSON-friendly view of a timed loop. */
export function loopJson(l: TimedLoop | PipelineLoop | { error: string }) {
  if ('error' in l) return l;
  const base = { iterations: l.iterations, ops_per_sec: round(l.opsPerSec), p50_us: round(l.us.p50), p99_us: round(l.us.p99), mean_us: round(l.us.mean) };
  if (!('phases' in l)) return base;
  const ph = (x: Summary) => ({ p50_us: round(x.p50), p99_us: round(x.p99) });
  return { ...base, phases: { validate: ph(l.phases.validate), fingerprint: ph(l.phases.fingerprint), run: ph(l.phases.run), serialize: ph(l.phases.serialize) } };
}
