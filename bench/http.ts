/**
 * HTTP scenarios: the servers under test (a bare Hono route and @x402/hono's
 * paymentMiddleware, next to the real service started by run.ts), the load
 * generator, and the sequential paid-call measurement.
 *
 * The load generator (autocannon) runs in a forked child process so that it
 * does not share an event loop with the server it measures: with two cores,
 * one runs the server, the other the client. This file is both the library
 * (imported by run.ts) and the child's entry point (BENCH_LOADGEN=1).
 */
import { fork } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import { HTTPFacilitatorClient, x402ResourceServer, type RoutesConfig } from '@x402/core/server';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { ExactSvmScheme } from '@x402/svm/exact/server';
import { paymentMiddleware } from '@x402/hono';
import type { Devnet } from '../devnet/index.js';
import { balanceOf, postJson, signFor } from '../test/support/harness.js';
import type { ChildService } from './child-service.js';
import { inTurn, median, summarize, type Summary } from './stats.js';

// ------------------------------------------------------------------ load generation

export interface LoadTarget {
  name: string;
  url: string;
  /** Responses with another status count as errors and are left out of the latency figures. */
  expectStatus: number;
}

/**
 * All scenarios share one request and one setting. They are run interleaved,
 * each round forward or reversed in Thue-Morse order (A B C, C B A, C B A,
 * A B C, …: `inTurn`), so that background load that comes and goes on a
 * shared machine, and a cost that falls over the run, spread over all of
 * them instead of biasing the one that always goes first.
 */
export interface LoadPlan {
  targets: LoadTarget[];
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body: string;
  connections: number;
  /** Measured seconds per scenario per round. */
  durationSec: number;
  rounds: number;
  /** A discarded run per scenario before the first round (JIT, connections, lazy initialisation). */
  warmupSec: number;
}

/** One measured run of one scenario. */
export interface RoundResult {
  durationSec: number;
  responses: number;
  /** Responses with the expected status. */
  ok: number;
  /** Responses with another status. */
  unexpected: number;
  /** Socket errors and timeouts reported by autocannon. */
  errors: number;
  timeouts: number;
  statusCounts: Record<string, number>;
  /** Expected-status responses per second. */
  rps: number;
  /** Latency of expected-status responses, ms, from every raw sample (not autocannon's integer-ms histogram). */
  latencyMs: Summary;
  /** Mean response size as autocannon counts it (status line, headers and body), bytes. */
  bytesPerResponse: number;
}

/** A scenario over all rounds: medians of the per-round figures, totals of the error counts. */
export interface LoadResult {
  name: string;
  connections: number;
  rounds: RoundResult[];
  rps: number;
  rpsMin: number;
  rpsMax: number;
  latencyMs: { p50: number; p99: number; mean: number };
  errors: number;
  statusCounts: Record<string, number>;
  responses: number;
  bytesPerResponse: number;
}

const LOADGEN_FLAG = 'BENCH_LOADGEN';

async function measureOnce(base: autocannon.Options, durationSec: number, expectStatus: number): Promise<RoundResult> {
  const latencies: number[] = [];
  const statusCounts: Record<string, number> = {};
  let ok = 0;
  const started = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({ ...base, duration: durationSec }, (err: unknown, res: autocannon.Result) => (err ? reject(err) : resolve(res)));
    instance.on('response', (_client: unknown, status: number, _bytes: number, responseTime: number) => {
      statusCounts[status] = (statusCounts[status] ?? 0) + 1;
      if (status === expectStatus) {
        ok++;
        latencies.push(responseTime);
      }
    });
  });
  const elapsedSec = result.duration > 0 ? result.duration : (performance.now() - started) / 1000;
  const responses = Object.values(statusCounts).reduce((a, b) => a + b, 0);
  return {
    durationSec: elapsedSec,
    responses,
    ok,
    unexpected: responses - ok,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCounts,
    rps: ok / elapsedSec,
    latencyMs: summarize(latencies),
    bytesPerResponse: responses ? result.throughput.total / responses : 0,
  };
}

async function childMain(): Promise<void> {
  const plan = await new Promise<LoadPlan>((resolve) => process.once('message', (m) => resolve(m as LoadPlan)));
  const options = plan.targets.map(
    (t): autocannon.Options => ({ url: t.url, method: plan.method, headers: plan.headers, body: plan.body, connections: plan.connections, timeout: 10 }),
  );
  if (plan.warmupSec > 0) {
    for (const o of options) await autocannon({ ...o, duration: plan.warmupSec });
  }
  const rounds: RoundResult[][] = plan.targets.map(() => []);
  for (let r = 0; r < plan.rounds; r++) {
    for (const i of inTurn(plan.targets.map((_, i) => i), r)) {
      process.stderr.write(`[bench]   round ${r + 1}/${plan.rounds}: ${plan.targets[i]!.name}\n`);
      rounds[i]!.push(await measureOnce(options[i]!, plan.durationSec, plan.targets[i]!.expectStatus));
    }
  }
  process.send!(rounds, () => process.exit(0));
}

if (process.env[LOADGEN_FLAG] === '1' && typeof process.send === 'function') {
  childMain().catch((e: unknown) => {
    console.error('load generator failed:', e);
    process.exit(1);
  });
}

function aggregate(target: LoadTarget, connections: number, rounds: RoundResult[]): LoadResult {
  const statusCounts: Record<string, number> = {};
  for (const r of rounds) for (const [k, v] of Object.entries(r.statusCounts)) statusCounts[k] = (statusCounts[k] ?? 0) + v;
  const rps = rounds.map((r) => r.rps);
  const responses = rounds.reduce((a, r) => a + r.responses, 0);
  return {
    name: target.name,
    connections,
    rounds,
    rps: median(rps),
    rpsMin: Math.min(...rps),
    rpsMax: Math.max(...rps),
    latencyMs: { p50: median(rounds.map((r) => r.latencyMs.p50)), p99: median(rounds.map((r) => r.latencyMs.p99)), mean: median(rounds.map((r) => r.latencyMs.mean)) },
    errors: rounds.reduce((a, r) => a + r.unexpected + r.errors + r.timeouts, 0),
    statusCounts,
    responses,
    bytesPerResponse: responses ? rounds.reduce((a, r) => a + r.bytesPerResponse * r.responses, 0) / responses : 0,
  };
}

/** Run the plan in one child process (autocannon) and return one result per target. */
export function runLoadPlan(plan: LoadPlan): Promise<LoadResult[]> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, [LOADGEN_FLAG]: '1' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let rounds: RoundResult[][] | undefined;
    const budgetSec = plan.targets.length * (plan.warmupSec + plan.rounds * (plan.durationSec + 2)) + 30;
    const limit = setTimeout(() => child.kill('SIGKILL'), budgetSec * 1000);
    child.once('message', (m) => {
      rounds = m as RoundResult[][];
    });
    child.once('error', (e) => {
      clearTimeout(limit);
      reject(e);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(limit);
      if (rounds) resolve(plan.targets.map((t, i) => aggregate(t, plan.connections, rounds![i]!)));
      else reject(new Error(`the load generator exited with ${signal ?? code} before reporting`));
    });
    child.send(plan);
  });
}

// ------------------------------------------------------------------ servers under test

export interface TestServer {
  url: string;
  close(): Promise<void>;
}

export function listen(app: Hono): Promise<TestServer> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            const s = server as Server;
            s.close(() => done());
            s.closeAllConnections?.();
          }),
      });
    });
    server.once('error', reject);
  });
}

/** A response as it went over the wire, minus the per-connection headers Node adds itself. */
export interface CapturedResponse {
  status: number;
  headers: Array<[string, string]>;
  body: Uint8Array<ArrayBuffer>;
}

const CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

export async function capture(url: string, body: string, headers: Record<string, string>, method: 'GET' | 'POST' = 'POST'): Promise<CapturedResponse> {
  const res = await fetch(url, method === 'GET' ? { headers } : { method, headers, body });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const kept: Array<[string, string]> = [];
  res.headers.forEach((value, name) => {
    if (!CONNECTION_HEADERS.has(name)) kept.push([name, value]);
  });
  kept.sort((a, b) => a[0].localeCompare(b[0]));
  return { status: res.status, headers: kept, body: bytes };
}

export function sameResponse(a: CapturedResponse, b: CapturedResponse): string | undefined {
  if (a.status !== b.status) return `status ${a.status} vs ${b.status}`;
  if (Buffer.compare(Buffer.from(a.body), Buffer.from(b.body)) !== 0) return 'body bytes differ';
  const ha = JSON.stringify(a.headers);
  const hb = JSON.stringify(b.headers);
  if (ha !== hb) return `headers differ: ${ha} vs ${hb}`;
  return undefined;
}

/** The baseline: a plain Hono route that answers with the captured bytes and nothing else. */
export function startBareRoute(path: string, captured: CapturedResponse): Promise<TestServer> {
  const app = new Hono();
  // A plain object, as a route is normally written (and node-server's fastest case): an array of
  // pairs goes through undici's Headers on every response, ~20 µs that would flatter the ratio.
  const headers = Object.fromEntries(captured.headers);
  const body = captured.body;
  app.post(path, () => new Response(body, { status: captured.status, headers }));
  return listen(app);
}

export interface X402HonoOptions {
  path: string;
  network: `${string}:${string}`;
  payTo: string;
  asset: string;
  assetName: string;
  assetVersion: string;
  priceAtomic: string;
  facilitatorUrl: string;
  description: string;
  maxTimeoutSeconds: number;
  /** What the protected route answers once paid (default `{"delivered":true}`). */
  answer?: (body: unknown) => unknown;
  /** A Solana entry beside the EVM one (the SDK's exact SVM scheme), as our service offers with a Solana rail. */
  solana?: { network: `${string}:${string}`; payTo: string; asset: string };
}

/** The same route behind the official @x402/hono paymentMiddleware, on the same devnet and facilitator. */
export async function startX402HonoRoute(o: X402HonoOptions): Promise<TestServer> {
  const facilitator = new HTTPFacilitatorClient({ url: o.facilitatorUrl });
  const resourceServer = new x402ResourceServer(facilitator).register(o.network, new ExactEvmScheme());
  if (o.solana) resourceServer.register(o.solana.network, new ExactSvmScheme());
  const evm = {
    scheme: 'exact',
    network: o.network,
    payTo: o.payTo,
    price: { amount: o.priceAtomic, asset: o.asset, extra: { name: o.assetName, version: o.assetVersion } },
    maxTimeoutSeconds: o.maxTimeoutSeconds,
  };
  const svm = o.solana && { scheme: 'exact', network: o.solana.network, payTo: o.solana.payTo, price: { amount: o.priceAtomic, asset: o.solana.asset }, maxTimeoutSeconds: o.maxTimeoutSeconds };
  const routes: RoutesConfig = {
    [`POST ${o.path}`]: {
      accepts: svm ? [evm, svm] : evm,
      description: o.description,
      mimeType: 'application/json',
    },
  };
  const app = new Hono();
  // syncFacilitatorOnStart (default true): GET /supported once, awaited by the first protected request.
  app.use(paymentMiddleware(routes, resourceServer));
  const answer = o.answer;
  app.post(o.path, async (c) => c.json(answer ? answer(await c.req.json()) : { delivered: true }));
  return listen(app);
}

/** Decode a 402's PAYMENT-REQUIRED header: the fields that must agree between implementations. */
export function acceptsSummary(res: CapturedResponse): string {
  const h = res.headers.find(([n]) => n === 'payment-required')?.[1];
  if (!h) return 'no PAYMENT-REQUIRED header';
  const pr = decodePaymentRequiredHeader(h);
  const a = pr.accepts[0];
  if (!a) return 'no accepts';
  return `x402Version=${pr.x402Version} scheme=${a.scheme} network=${a.network} amount=${a.amount} asset=${a.asset} payTo=${a.payTo} extra=${JSON.stringify(a.extra)}`;
}

// ------------------------------------------------------------------ paid calls

export interface PaidSample {
  /** Client: the request carrying PAYMENT-SIGNATURE, sent → 200 body read. */
  clientPaidMs: number;
  /** Client: unpaid 402 + signing + paid request, as an x402 client experiences it. */
  clientFlowMs: number;
  /** Service process: request headers parsed → response finished (node:diagnostics_channel). */
  serverTotalMs: number;
  timing: { ledger: number; verify: number; handler: number; settle: number; chain: number };
}

function parseServerTiming(h: string | null): PaidSample['timing'] | undefined {
  if (!h) return undefined;
  const t: Record<string, number> = {};
  for (const part of h.split(',')) {
    const m = /^\s*([a-z]+)\s*;\s*dur=([0-9.]+)/i.exec(part);
    if (m) t[m[1]!.toLowerCase()] = Number(m[2]);
  }
  const keys = ['ledger', 'verify', 'handler', 'settle', 'chain'] as const;
  if (!keys.every((k) => typeof t[k] === 'number')) return undefined;
  return { ledger: t.ledger!, verify: t.verify!, handler: t.handler!, settle: t.settle!, chain: t.chain! };
}

/** The prefix of the x-request-id of measured paid calls; the service process keeps the times of those (BENCH_REQUEST_TIMES). */
export const PAID_REQUEST_PREFIX = 'bench-paid-';

/**
 * Sequential paid calls with the official x402 client (signFor: unpaid 402 →
 * `x402Client.createPaymentPayload` → PAYMENT-SIGNATURE), each on a fresh
 * authorization, to the service in a process of its own (as deployed: the
 * buyer and the devnet facilitator, in this process, do not share its event
 * loop). Its own time per request is read in its process from Node's HTTP
 * server diagnostics channels (bench/request-times.ts), which cover what
 * Server-Timing does not (body read, JSON parse, schema validation, header
 * decoding, fingerprinting, response encoding, Hono routing).
 */
export async function measurePaidCalls(
  service: Pick<ChildService, 'url' | 'requestTimes'>,
  path: string,
  body: unknown,
  devnet: Devnet,
  n: number,
  warmup: number,
  progress: (msg: string) => void = () => {},
): Promise<{ samples: PaidSample[]; calls: number; paidDelta: bigint }> {
  const url = service.url + path;
  const before = await balanceOf(devnet, devnet.payTo);
  const calls: Array<{ id: string; clientPaidMs: number; clientFlowMs: number; timing: PaidSample['timing'] }> = [];
  for (let i = 0; i < warmup + n; i++) {
    const id = `${PAID_REQUEST_PREFIX}${i}`;
    const t0 = performance.now();
    const { header } = await signFor(url, body, devnet);
    const t1 = performance.now();
    const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': header, 'x-request-id': id });
    const text = await res.text();
    const t2 = performance.now();
    if (res.status !== 200) throw new Error(`paid call ${i} answered ${res.status}: ${text.slice(0, 300)}`);
    const timing = parseServerTiming(res.headers.get('server-timing'));
    if (!timing) throw new Error(`paid call ${i} has no complete Server-Timing header: ${res.headers.get('server-timing')}`);
    if (i >= warmup) calls.push({ id, clientPaidMs: t2 - t1, clientFlowMs: t2 - t0, timing });
    if ((i + 1) % 25 === 0) progress(`paid calls: ${i + 1}/${warmup + n}`);
  }
  // The last response can reach us a moment before its 'finish' is recorded over there.
  let times = await service.requestTimes();
  for (let k = 0; k < 50 && calls.some((c) => times[c.id] === undefined); k++) {
    await new Promise((r) => setTimeout(r, 20));
    times = await service.requestTimes();
  }
  const samples = calls.map(({ id, ...c }) => {
    const serverTotalMs = times[id];
    if (serverTotalMs === undefined) throw new Error(`no server-side timing observed for ${id}`);
    return { ...c, serverTotalMs };
  });
  const after = await balanceOf(devnet, devnet.payTo);
  return { samples, calls: warmup + n, paidDelta: after - before };
}
