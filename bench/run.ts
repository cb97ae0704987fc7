/**
 * `npm run bench`: one run, one machine, loopback only.
 *
 *  1. The service's 402 challenge path (real service in-process, real devnet).
 *  2. A bare Hono route answering the same bytes (the framework baseline).
 *  3. @x402/hono's paymentMiddleware on the same route, same devnet and facilitator.
 *  4. Paid calls with the official client: the service's own time without the facilitator's.
 *  5. Every capability's pure handler at its largest allowed input.
 *  6. The intelligence routes (newswire, graph summary, changes-since) on
 *     stores of 1,000 and 100,000 items, with the query plans they use
 *     (bench/intel.ts; PostgreSQL too when TEST_DATABASE_URL is set).
 *  7. CPU per paid call, per unpaid 402 and while idle against @x402/hono, each
 *     in its own process (bench/paid-cpu.ts); the service as deployed against
 *     bare routes serving its bytes (bench/as-deployed.ts).
 *  Then handler isolation, the unpaid flood, the composite, the capabilities'
 *  adversarial inputs (bench/adversarial-inputs.ts) and MPP.
 *
 * Prints markdown tables and writes bench/results.json. Stops by itself; a
 * watchdog ends a run that hangs. Knobs (environment): BENCH_DURATION (s per
 * HTTP scenario per round, default 4), BENCH_ROUNDS (interleaved rounds,
 * default 3), BENCH_WARMUP (s, default 2), BENCH_CONNECTIONS (default 50),
 * BENCH_PAID_CALLS (default 100), BENCH_INTEL_SIZES (default 1000,100000),
 * BENCH_INTEL_PG_SCALE=1 (PostgreSQL plans at the largest size even past the
 * intelligence section's time budget).
 * BENCH_ONLY=402 (only the unpaid 402 scenarios 1–3, then stop), BENCH_ONLY=paid
 * (only the sequential paid calls of section 4, then stop).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { cpus, platform, arch, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDevnet, type Devnet } from '../devnet/index.js';
import { loadConfig } from '../src/config.js';
import { startService, type RunningService } from '../src/service.js';
import { benchQuoteInput } from '../src/router/bench-input.js';
import { measureQuoteCpu, type QuoteCpu } from './router-quote.js';
import { startChildService } from './child-service.js';
import { paidCpuReport, runPaidCpuBench } from './paid-cpu.js';
import { runAsDeployedBench } from './as-deployed.js';
import { CATALOG } from '../src/capabilities/index.js';
import { BLACK_ON_WHITE, CONTRAST, devnetEnv, tempDir } from '../test/support/harness.js';
import { loopJson, runHandlerBench, type HandlerRow } from './handlers.js';
import { intelJson, intelReport, runIntelBench, type IntelBenchResult } from './intel.js';
import {
  acceptsSummary,
  capture,
  measurePaidCalls,
  PAID_REQUEST_PREFIX,
  runLoadPlan,
  sameResponse,
  startBareRoute,
  startX402HonoRoute,
  type CapturedResponse,
  type LoadResult,
  type PaidSample,
  type TestServer,
} from './http.js';
import { envInt, fmt, markdownTable, ratio, round, summarize, type Summary } from './stats.js';

const here = dirname(fileURLToPath(import.meta.url));

const SETTINGS = {
  durationSec: envInt('BENCH_DURATION', 4, 1, 60),
  rounds: envInt('BENCH_ROUNDS', 3, 1, 10),
  warmupSec: envInt('BENCH_WARMUP', 2, 0, 30),
  connections: envInt('BENCH_CONNECTIONS', 50, 1, 1000),
  paidCalls: envInt('BENCH_PAID_CALLS', 100, 5, 1000),
  paidWarmup: 3,
  /** BENCH_ONLY=402: only the 402 challenge scenarios (service, bare Hono, @x402/hono); BENCH_ONLY=paid: only the paid calls. */
  only: onlySection(),
};

function onlySection(): '402' | 'paid' | undefined {
  const raw = process.env.BENCH_ONLY;
  if (!raw) return undefined;
  if (raw !== '402' && raw !== 'paid') throw new Error('BENCH_ONLY must be 402 or paid (or unset for the whole run)');
  return raw;
}

/** Nothing in a run should take this long; a hang must not outlive the job. */
const WATCHDOG_MS = 14 * 60_000;

const progress = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

function summaryJson(s: Summary) {
  return { n: s.n, p50: round(s.p50), p99: round(s.p99), mean: round(s.mean) };
}

async function main(): Promise<void> {
  const watchdog = setTimeout(() => {
    progress(`watchdog: still running after ${WATCHDOG_MS / 1000}s, giving up`);
    process.exit(2);
  }, WATCHDOG_MS);
  watchdog.unref();

  const cpuList = cpus();
  const machine = {
    node: process.version,
    platform: `${platform()} ${arch()}`,
    cpu: cpuList[0]?.model.trim() ?? 'unknown',
    cores: cpuList.length,
    memory_gib: round(totalmem() / 2 ** 30),
  };
  progress(`node ${machine.node}, ${machine.cores} × ${machine.cpu}`);

  let devnet: Devnet | undefined;
  let service: RunningService | undefined;
  let dataDir: string | undefined;
  const servers: TestServer[] = [];
  const cleanup = async () => {
    for (const s of servers.splice(0)) await s.close().catch(() => {});
    await service?.close().catch(() => {});
    service = undefined;
    await devnet?.stop().catch(() => {});
    devnet = undefined;
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    dataDir = undefined;
  };

  try {
    // ------------------------------------------------------------ the real service on a real devnet
    progress('starting devnet (anvil + DevUSDC + facilitator) and the service');
    devnet = await startDevnet();
    progress(`devnet up: anvil pid ${devnet.anvilPid}, facilitator ${devnet.facilitatorUrl}`);
    dataDir = tempDir('bench-');
    const env = devnetEnv(devnet, devnet.facilitatorUrl, { DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    service = await startService(loadConfig(env));
    const cap = service.catalog.find((c) => c.path === CONTRAST);
    if (!cap) throw new Error(`${CONTRAST} is not in the catalog`);

    const body = JSON.stringify(BLACK_ON_WHITE);
    const reqHeaders = { 'content-type': 'application/json' };

    // 1. The service's challenge path: what it answers to a valid unpaid request.
    const serviceUrl = service.url + CONTRAST;
    const captured = await capture(serviceUrl, body, reqHeaders);
    if (captured.status !== 402) throw new Error(`the service answered ${captured.status} to an unpaid valid request, expected 402`);
    const serviceAccepts = acceptsSummary(captured);

    // 2. Bare Hono route answering exactly those bytes.
    const bare = await startBareRoute(CONTRAST, captured);
    servers.push(bare);
    const bareCheck = sameResponse(await capture(bare.url + CONTRAST, body, reqHeaders), captured);
    if (bareCheck) throw new Error(`the bare route does not reproduce the service's 402: ${bareCheck}`);

    // 3. @x402/hono paymentMiddleware, same price, asset, payee, network and facilitator.
    const p = service.payment;
    const x402hono = await startX402HonoRoute({
      path: CONTRAST,
      network: p.network as `${string}:${string}`,
      payTo: p.payTo,
      asset: p.asset.address,
      assetName: p.asset.name,
      assetVersion: p.asset.version,
      priceAtomic: cap.priceAtomic,
      facilitatorUrl: p.facilitatorUrls[0]!,
      description: cap.description,
      maxTimeoutSeconds: p.maxTimeoutSeconds,
    });
    servers.push(x402hono);
    const x402Captured = await capture(x402hono.url + CONTRAST, body, reqHeaders);
    if (x402Captured.status !== 402) throw new Error(`@x402/hono answered ${x402Captured.status}, expected 402`);
    const x402Accepts = acceptsSummary(x402Captured);

    if (SETTINGS.only === 'paid') {
      // BENCH_ONLY=paid: just the sequential paid calls (quick A/B of the paid path).
      for (const s of servers.splice(0)) await s.close();
      const paid = await paidCalls(devnet);
      console.log(paidReport(paid).join('\n'));
      clearTimeout(watchdog);
      return;
    }
    progress(
      `402 scenarios: ${SETTINGS.warmupSec}s warm-up each, then ${SETTINGS.rounds} interleaved rounds of ${SETTINGS.durationSec}s each at ${SETTINGS.connections} connections`,
    );
    const [svc, bareRes, x402Res] = (await runLoadPlan({
      targets: [
        { name: 'this service (402 challenge)', url: serviceUrl, expectStatus: 402 },
        { name: 'bare Hono route (same bytes)', url: bare.url + CONTRAST, expectStatus: 402 },
        { name: '@x402/hono paymentMiddleware', url: x402hono.url + CONTRAST, expectStatus: 402 },
      ],
      method: 'POST',
      headers: reqHeaders,
      body,
      connections: SETTINGS.connections,
      durationSec: SETTINGS.durationSec,
      rounds: SETTINGS.rounds,
      warmupSec: SETTINGS.warmupSec,
    })) as [LoadResult, LoadResult, LoadResult];
    for (const s of servers.splice(0)) await s.close();
    if (SETTINGS.only === '402') {
      // BENCH_ONLY=402: just the challenge table (quick A/B of the 402 path).
      console.log(challengeReport({ svc, bareRes, x402Res, captured, x402Captured, serviceAccepts, x402Accepts }).join('\n'));
      clearTimeout(watchdog);
      return;
    }

    // 3b. The free router quote (planning from the catalog, no payment step).
    const quoteBody = JSON.stringify(benchQuoteInput());
    const quoteCheck = await capture(service.url + '/v1/router/quote', quoteBody, reqHeaders);
    if (quoteCheck.status !== 200) throw new Error(`router quote answered ${quoteCheck.status}: ${Buffer.from(quoteCheck.body).toString('utf8').slice(0, 300)}`);
    progress('router quote: 1 round');
    const [quote] = (await runLoadPlan({
      targets: [{ name: 'POST /v1/router/quote', url: service.url + '/v1/router/quote', expectStatus: 200 }],
      method: 'POST',
      headers: reqHeaders,
      body: quoteBody,
      connections: SETTINGS.connections,
      durationSec: SETTINGS.durationSec,
      rounds: 1,
      warmupSec: SETTINGS.warmupSec,
    })) as [LoadResult];

    // 4. Paid calls.
    const paid = await paidCalls(devnet);

    progress('stopping the service and the devnet');
    await cleanup();

    // 5. Pure handlers, with nothing else running.
    const handlers = await runHandlerBench(undefined, progress);
    // 5b. The router quote's CPU time in process (issue 15 target ≤ 300 µs per quote).
    progress('router quote CPU: in process');
    const quoteCpu = measureQuoteCpu();

    // 6. The intelligence routes on 1,000 and 100,000 items, in process.
    const intel = await runIntelBench(progress);

    report({ machine, svc, bareRes, x402Res, captured, x402Captured, serviceAccepts, x402Accepts, paid, handlers, quote, quoteCpu, intel });
    // Issue 24: CPU per paid call, per unpaid 402 and while idle against @x402/hono, each in its own process; then the
    // service as deployed against bare routes serving its bytes (unpaid 402, default newswire).
    console.log(paidCpuReport(await runPaidCpuBench({ progress })).join('\n'));
    console.log((await runAsDeployedBench(progress)).markdown);
    // 8. Handler isolation: /healthz and 402-path p99, idle vs during 4 concurrent paid 2 MiB extractor calls (bench/isolation.ts).
    console.log((await (await import('./isolation.js')).runIsolationBench(progress)).markdown);
    console.log((await (await import('./unpaid-flood.js')).runUnpaidFloodBench(progress)).markdown); // issue 21: /healthz p99 and RSS during an unpaid flood of small JSON values (A2A, MCP, router quote)
    console.log((await (await import('./isolation.js')).runIsolationBench(progress, 3, 'composite')).markdown); // issue 21: the same load bought through the composite router
    console.log((await import('./adversarial-inputs.js')).runAdversarialBench(progress).markdown); // issue 23: the capabilities' hostile inputs, timed here rather than asserted in their tests
    if (process.env.BENCH_MPP !== '0') console.log((await (await import('./mpp.js')).runMppBench(progress)).markdown); // issue 22: the 402 with both challenges vs x402 alone, paid MPP vs paid x402
    if (process.env.BENCH_THROUGHPUT !== '0') console.log('\n' + (await (await import('./throughput.js')).runThroughputBench({ progress })).markdown); // 7. issue 15: paid calls/s, 8 buyers
    clearTimeout(watchdog);
  } finally {
    await cleanup();
  }
}

/**
 * Section 4: sequential paid calls to a second copy of the service in a process
 * of its own, on the same devnet, so that the buyer and the devnet facilitator
 * (in this process) do not share its event loop, as in a deployment.
 */
async function paidCalls(devnet: Devnet): Promise<ReportInput['paid']> {
  progress(`paid calls: the service in its own process, ${SETTINGS.paidWarmup} warm-up + ${SETTINGS.paidCalls} measured, sequential, official client`);
  const dataDir = tempDir('bench-paid-');
  const child = await startChildService(devnetEnv(devnet, devnet.facilitatorUrl, { DATA_DIR: dataDir, LOG_LEVEL: 'silent', BENCH_REQUEST_TIMES: PAID_REQUEST_PREFIX }));
  try {
    const paid = await measurePaidCalls(child, CONTRAST, BLACK_ON_WHITE, devnet, SETTINGS.paidCalls, SETTINGS.paidWarmup, progress);
    const cap = CATALOG.find((c) => c.path === CONTRAST)!;
    const expectedDelta = BigInt(paid.calls) * BigInt(cap.priceAtomic);
    if (paid.paidDelta !== expectedDelta) throw new Error(`payTo balance rose by ${paid.paidDelta}, expected ${expectedDelta}`);
    const delivered = await child.paidDeliveries();
    if (delivered !== paid.calls) throw new Error(`the service's ledger holds ${delivered} paid deliveries for ${paid.calls} paid calls`);
    return paid;
  } finally {
    await child.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface ReportInput {
  machine: Record<string, unknown>;
  svc: LoadResult;
  bareRes: LoadResult;
  x402Res: LoadResult;
  captured: CapturedResponse;
  x402Captured: CapturedResponse;
  serviceAccepts: string;
  x402Accepts: string;
  paid: { samples: PaidSample[]; calls: number; paidDelta: bigint };
  handlers: { rows: HandlerRow[]; skipped: string[] };
  quote: LoadResult;
  quoteCpu: QuoteCpu;
  intel: IntelBenchResult;
}

/** Section 1–3: the unpaid 402 challenge vs the bare route and @x402/hono (markdown lines). */
function challengeReport(r: Pick<ReportInput, 'svc' | 'bareRes' | 'x402Res' | 'captured' | 'x402Captured' | 'serviceAccepts' | 'x402Accepts'>): string[] {
  const out: string[] = [];
  out.push(
    `### Unpaid 402 challenge: POST ${CONTRAST} with a valid JSON body, no payment header`,
    `autocannon in a separate process, ${SETTINGS.connections} connections, keep-alive; ${SETTINGS.warmupSec} s discarded warm-up per scenario, then ${SETTINGS.rounds} interleaved rounds of ${SETTINGS.durationSec} s (A B C, A B C, …). req/s, p50 and p99 are medians over the rounds (p50/p99 of each round from every 402 response's latency); the range is the slowest and fastest round; any status other than 402, socket error or timeout counts as an error.`,
    '',
  );
  const base = r.bareRes;
  // Issue 15 targets: the service ≥ 0.8× the bare route's req/s and ≥ 1.5× @x402/hono's.
  const targetOf = (s: LoadResult) => (s === r.svc ? '≥ 0.80× bare, ≥ 1.50× @x402/hono' : s === r.bareRes ? 'baseline' : 'reference');
  const rows = [r.svc, r.bareRes, r.x402Res].map((s) => [
    s.name,
    targetOf(s),
    fmt(s.rps),
    `${fmt(s.rpsMin)}–${fmt(s.rpsMax)}`,
    fmt(s.latencyMs.p50),
    fmt(s.latencyMs.p99),
    String(s.errors),
    fmt(s.bytesPerResponse),
    ratio(s.rps, base.rps),
    ratio(s.latencyMs.p50, base.latencyMs.p50),
    ratio(s.latencyMs.p99, base.latencyMs.p99),
    ratio(s.rps, r.x402Res.rps),
  ]);
  out.push(
    markdownTable(
      ['scenario', 'target', 'req/s', 'req/s range', 'p50 ms', 'p99 ms', 'errors', 'bytes/resp', 'req/s vs bare', 'p50 vs bare', 'p99 vs bare', 'req/s vs @x402/hono'],
      rows,
      ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
    `This service vs @x402/hono: req/s ${ratio(r.svc.rps, r.x402Res.rps)}, p50 ${ratio(r.svc.latencyMs.p50, r.x402Res.latencyMs.p50)}, p99 ${ratio(r.svc.latencyMs.p99, r.x402Res.latencyMs.p99)}.`,
    `Same requirements: service \`${r.serviceAccepts}\`; @x402/hono \`${r.x402Accepts}\`${r.serviceAccepts === r.x402Accepts ? ' (identical)' : ' (DIFFERENT)'}.`,
    `Differences in what is done per request: the service reads and schema-validates the body before challenging, and answers a ${r.captured.body.length}-byte JSON body explaining the price; @x402/hono does not read the body and answers \`${Buffer.from(r.x402Captured.body).toString('utf8').slice(0, 40)}\` (${r.x402Captured.body.length} bytes). Both send PAYMENT-REQUIRED (service ${headerLen(r.captured, 'payment-required')} bytes, @x402/hono ${headerLen(r.x402Captured, 'payment-required')} bytes).`,
    '',
  );
  return out;
}

/** Section 4's rows: the service's own time per paid call, split by its Server-Timing. */
function paidRows(paid: ReportInput['paid']): Array<[string, Summary]> {
  const sum = (f: (x: PaidSample) => number) => summarize(paid.samples.map(f));
  return [
    ['client: paid request (PAYMENT-SIGNATURE sent → 200 read)', sum((x) => x.clientPaidMs)],
    ['client: whole x402 flow (402 + sign + paid request)', sum((x) => x.clientFlowMs)],
    ['service: total in process (request start → response finish)', sum((x) => x.serverTotalMs)],
    ['facilitator: verify (Server-Timing)', sum((x) => x.timing.verify)],
    ['facilitator: settle incl. on-chain confirmation (Server-Timing)', sum((x) => x.timing.settle)],
    ['**service excluding facilitator** (total − verify − settle)', sum((x) => x.serverTotalMs - x.timing.verify - x.timing.settle)],
    ['  ledger (Server-Timing)', sum((x) => x.timing.ledger)],
    ['  handler (Server-Timing)', sum((x) => x.timing.handler)],
    ['  ledger + handler (Server-Timing)', sum((x) => x.timing.ledger + x.timing.handler)],
    ['  not in Server-Timing (parse, validate, fingerprint, encode, framework)', sum((x) => x.serverTotalMs - x.timing.ledger - x.timing.verify - x.timing.handler - x.timing.settle - x.timing.chain)],
    ['  chain reads (Server-Timing)', sum((x) => x.timing.chain)],
  ];
}

/** Section 4: sequential paid calls, the service's own time split by Server-Timing (markdown lines). */
function paidReport(paid: ReportInput['paid']): string[] {
  const out: string[] = [];
  const s = paid.samples;
  out.push(
    `### Paid call (${s.length} sequential calls after ${SETTINGS.paidWarmup} warm-up, official x402 client, SQLite ledger, devnet facilitator)`,
    `The service runs in a process of its own; "service total" is measured inside it from Node's \`http.server.request.start\` to \`http.server.response.finish\` diagnostics channels; verify/settle are the service's own Server-Timing durations of its facilitator calls; payee balance rose by ${paid.paidDelta} atomic units for ${paid.calls} calls.`,
    '',
    markdownTable(
      ['measure', 'p50 ms', 'p99 ms', 'mean ms'],
      paidRows(paid).map(([name, v]) => [name, fmt(v.p50), fmt(v.p99), fmt(v.mean)]),
      ['l', 'r', 'r', 'r'],
    ),
    '',
  );
  return out;
}

function report(r: ReportInput): void {
  const out: string[] = [];
  const m = r.machine;
  out.push(`## Benchmark (${m.node}, ${m.platform}, ${m.cores} × ${m.cpu}; loopback, one run)`, '');

  out.push(...challengeReport(r));
  const base = r.bareRes;

  // ---- 3b
  out.push(
    `### Free router quote: POST /v1/router/quote (${SETTINGS.connections} connections, one ${SETTINGS.durationSec} s round after warm-up)`,
    '',
    markdownTable(
      ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'bytes/resp'],
      [[r.quote.name, fmt(r.quote.rps), fmt(r.quote.latencyMs.p50), fmt(r.quote.latencyMs.p99), String(r.quote.errors), fmt(r.quote.bytesPerResponse)]],
      ['l', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
    markdownTable(
      ['scenario', 'target', 'CPU µs per quote', 'ratio to target', 'iterations'],
      [['router quote CPU in process (body text → plan → quote body → JSON)', `≤ ${r.quoteCpu.targetUs} µs`, fmt(r.quoteCpu.cpuUsPerQuote), r.quoteCpu.ratio.toFixed(2), String(r.quoteCpu.iterations)]],
      ['l', 'l', 'r', 'r', 'r'],
    ),
    '',
  );

  out.push(...paidReport(r.paid));

  // ---- 5
  out.push(
    '### Pure handlers at their largest allowed input (`cap.run(input)` in a loop, in process)',
    '"route CPU" is the same handler call plus what the paid route does around it, timed per phase in each iteration: JSON.parse + schema validation + capability check (`makeInputReader(cap).fromBody`), the request fingerprint (canonical JSON + SHA-256), and JSON.stringify of the result. Columns after it are that split (p50 of each phase).',
    '',
  );
  const hrows = r.handlers.rows.map((h) => {
    const pl = h.pipeline;
    const ok = !('error' in pl);
    // Issue 15 target: the checker's 100×100-field body at ≤ 200 µs route CPU (p50).
    const target = h.capability === 'data-compatibility-checker' && ok ? `≤ 200 µs (${ratio(pl.us.p50, 200)})` : '';
    return [
      h.capability + (h.inCatalog ? '' : ' (not in CATALOG)'),
      h.case,
      target,
      fmt(h.requestBytes),
      fmt(h.responseBytes),
      fmt(h.run.opsPerSec),
      fmt(h.run.us.p50),
      fmt(h.run.us.p99),
      ok ? fmt(pl.us.p50) : 'n/a',
      ok ? fmt(pl.us.p99) : 'n/a',
      ok ? fmt(pl.phases.validate.p50) : 'n/a',
      ok ? fmt(pl.phases.fingerprint.p50) : 'n/a',
      ok ? fmt(pl.phases.serialize.p50) : 'n/a',
    ];
  });
  out.push(
    markdownTable(
      ['capability', 'input', 'route CPU target (p50 vs target)', 'request B', 'response B', 'run ops/s', 'run p50 µs', 'run p99 µs', 'route CPU p50 µs', 'route CPU p99 µs', 'of which parse+validate p50', 'fingerprint p50', 'stringify p50'],
      hrows,
      ['l', 'l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
  );
  const notes = [
    ...r.handlers.skipped.map((x) => `skipped module ${x}`),
    ...r.handlers.rows.flatMap((h) => [...h.notes.map((n) => `${h.capability} (${h.case}): ${n}`), ...('error' in h.pipeline ? [`${h.capability} (${h.case}): ${h.pipeline.error}`] : [])]),
  ];
  if (notes.length) out.push('', ...notes.map((n) => `- ${n}`));

  // ---- 6
  out.push('', ...intelReport(r.intel));
  console.log(out.join('\n'));

  const json = {
    generated_at: new Date().toISOString(),
    machine: r.machine,
    settings: SETTINGS,
    challenge_402: [r.svc, r.bareRes, r.x402Res].map((x) => ({
      scenario: x.name,
      rps: round(x.rps),
      rps_rounds: x.rounds.map((k) => round(k.rps)),
      latency_ms: { p50: round(x.latencyMs.p50), p99: round(x.latencyMs.p99), mean: round(x.latencyMs.mean) },
      responses: x.responses,
      errors: x.errors,
      status_counts: x.statusCounts,
      bytes_per_response: round(x.bytesPerResponse),
      rps_vs_bare: round(x.rps / base.rps),
      p50_vs_bare: round(x.latencyMs.p50 / base.latencyMs.p50),
      p99_vs_bare: round(x.latencyMs.p99 / base.latencyMs.p99),
    })),
    router_quote: {
      rps: round(r.quote.rps),
      latency_ms: { p50: round(r.quote.latencyMs.p50), p99: round(r.quote.latencyMs.p99) },
      errors: r.quote.errors,
      cpu_us_per_quote: round(r.quoteCpu.cpuUsPerQuote),
      cpu_target_us: r.quoteCpu.targetUs,
      cpu_ratio_to_target: round(r.quoteCpu.ratio),
    },
    paid_call_ms: Object.fromEntries(paidRows(r.paid).map(([name, v]) => [name.replace(/\*/g, '').trim(), summaryJson(v)])),
    handlers: r.handlers.rows.map((h) => ({
      capability: h.capability,
      in_catalog: h.inCatalog,
      input: h.case,
      request_bytes: h.requestBytes,
      response_bytes: h.responseBytes,
      run: loopJson(h.run),
      route_cpu: loopJson(h.pipeline),
      notes: h.notes,
    })),
    intel: intelJson(r.intel),
  };
  const file = join(here, 'results.json');
  writeFileSync(file, JSON.stringify(json, null, 2) + '\n');
  progress(`results written to ${file}`);
}

function headerLen(res: { headers: Array<[string, string]> }, name: string): number {
  return res.headers.find(([n]) => n === name)?.[1].length ?? 0;
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error('[bench] failed:', e instanceof Error ? e.stack ?? e.message : e);
    process.exit(1);
  },
);
