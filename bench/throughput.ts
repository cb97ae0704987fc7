/**
 * Paid throughput (issue 15): settled paid calls per second on the devnet with
 * 8 concurrent buyers, nothing lost.
 *
 * Each scenario starts its own devnet (anvil + DevUSDC + facilitator) and its
 * own service, then 8 workers pay N calls between them with the official
 * client (`payingFetch`: 402 → sign → paid retry). The 8 workers share the 4
 * funded devnet buyers, two each; every call signs a fresh random EIP-3009
 * nonce, so no two calls share an authorization. Counted after the run:
 *   200s                 answers the client got back as 200,
 *   settled rows         ledger attempts `settled` with a stored response,
 *   on-chain transfers   DevUSDC Transfer logs to the merchant during the run,
 * which must all equal N ("nothing lost").
 *
 * Baseline, measured in the same run under the same load: the devnet
 * facilitator as it was (one signer with one serial submission queue,
 * receipts polled every 250 ms). Set THROUGHPUT_BASELINE=0 to skip it.
 *
 * Knobs: THROUGHPUT_CALLS (default 400), THROUGHPUT_CONCURRENCY (default 8),
 * TEST_DATABASE_URL (adds the PostgreSQL rows).
 *
 * `npx tsx bench/throughput.ts` runs it alone; bench/run.ts calls
 * `runThroughputBench`.
 */
import { fileURLToPath } from 'node:url';
import { startDevnet, transferLogs, type StartDevnetOptions } from '../devnet/index.js';
import { loadConfig } from '../src/config.js';
import { startService } from '../src/service.js';
import { BLACK_ON_WHITE, CONTRAST, devnetEnv, payingFetch, tempDir } from '../test/support/harness.js';
import { fmt, markdownTable, ratio, round, summarize } from './stats.js';
import { startChildService } from './child-service.js';
import { procCpuMs } from './proc.js';
import { freshPgUrl } from '../test/support/pg.js';

export const TARGET_CALLS_PER_SECOND = 100;

export interface ThroughputRow {
  scenario: string;
  database: 'sqlite' | 'postgres';
  calls: number;
  concurrency: number;
  seconds: number;
  callsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  ok200: number;
  settledRows: number;
  onChainTransfers: number;
  /** Median of the service's own Server-Timing parts over the 200s (ms). */
  serverMs: { ledger: number; verify: number; handler: number; settle: number };
  /**
   * CPU time per paid call (ms, user + system, over the measured run) of each
   * process: the bench's own (buyers + devnet facilitator, plus the service
   * when it runs in-process), the service's process (0 when in-process), anvil.
   */
  cpuMsPerCall: { bench: number; service: number; anvil: number };
  nothingLost: boolean;
  meetsTarget: boolean;
  baseline: boolean;
}

interface Scenario {
  name: string;
  baseline: boolean;
  facilitator: NonNullable<StartDevnetOptions['facilitator']>;
  /** Run the service in a process of its own (as deployed) instead of beside the buyers and the facilitator. */
  ownProcess?: boolean;
}

/** What the devnet facilitator was before issue 15: one signer, one queue, 250 ms receipt polling. */
const BASELINE: Scenario = { name: 'baseline: 1 signer, 250 ms polling', baseline: true, facilitator: { signers: 1, pollingIntervalMs: 250 } };
const CURRENT: Scenario = { name: 'devnet defaults', baseline: false, facilitator: {} };
const OWN_PROCESS: Scenario = { name: 'devnet defaults, service in its own process', baseline: false, facilitator: {}, ownProcess: true };


function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

function serverTiming(header: string | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of (header ?? '').split(',')) {
    const m = /^\s*([\w-]+).*?dur=([\d.]+)/.exec(part);
    if (m) out[m[1]!] = Number(m[2]);
  }
  return out;
}

export async function runScenario(
  scenario: Scenario,
  database: 'sqlite' | 'postgres',
  calls: number,
  concurrency: number,
  progress: (msg: string) => void = () => {},
): Promise<ThroughputRow> {
  const devnet = await startDevnet({ facilitator: scenario.facilitator });
  const extra: Record<string, string> = { DATA_DIR: tempDir('bench-throughput-') };
  if (database === 'postgres') extra.DATABASE_URL = await freshPgUrl();
  const env = devnetEnv(devnet, devnet.facilitatorUrl, extra);
  const inProcess = scenario.ownProcess ? undefined : await startService(loadConfig(env));
  // THROUGHPUT_SERVICE_CPU_PROF=<dir>: write a V8 CPU profile of the service process there.
  const child = scenario.ownProcess ? await startChildService(env, { cpuProfileDir: process.env.THROUGHPUT_SERVICE_CPU_PROF }) : undefined;
  // Deliveries are counted in the ledger itself, by the process that holds it.
  const paidDeliveries = async () => (inProcess ? (await inProcess.ledger.summary()).paidDeliveries : child!.paidDeliveries());
  try {
    const url = (inProcess?.url ?? child!.url) + CONTRAST;
    const init = () => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(BLACK_ON_WHITE) });
    const fetches = devnet.buyers.map((b) => payingFetch(devnet, b));
    // Warm-up (connections, JIT, prepared statements), not counted.
    for (const f of fetches) {
      const r = await f(url, init());
      await r.text();
      if (r.status !== 200) throw new Error(`warm-up paid call answered ${r.status}`);
    }
    const transfersBefore = (await transferLogs(devnet, { to: devnet.payTo })).length;
    const settledBefore = await paidDeliveries();

    const latencies: number[] = [];
    const parts = { ledger: [] as number[], verify: [] as number[], handler: [] as number[], settle: [] as number[] };
    let next = 0;
    let ok200 = 0;
    const statuses = new Map<number, number>();
    const cpu0 = { bench: processCpuMs(), service: (await child?.cpuMs()) ?? 0, anvil: procCpuMs(devnet.anvilPid) };
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async (_, w) => {
        const f = fetches[w % fetches.length]!;
        while (next < calls) {
          next++;
          const s = performance.now();
          const res = await f(url, init());
          await res.text();
          latencies.push(performance.now() - s);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 200) {
            ok200++;
            const st = serverTiming(res.headers.get('server-timing'));
            for (const k of Object.keys(parts) as Array<keyof typeof parts>) if (st[k] !== undefined) parts[k].push(st[k]);
          }
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const cpu1 = { bench: processCpuMs(), service: (await child?.cpuMs()) ?? 0, anvil: procCpuMs(devnet.anvilPid) };
    const perCall = (k: keyof typeof cpu0) => round((cpu1[k] - cpu0[k]) / calls);
    const settledRows = (await paidDeliveries()) - settledBefore;
    const onChainTransfers = (await transferLogs(devnet, { to: devnet.payTo })).length - transfersBefore;
    if (ok200 !== calls) progress(`${scenario.name}/${database}: statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    const lat = summarize(latencies);
    const med = (xs: number[]) => summarize(xs).p50;
    const callsPerSecond = calls / seconds;
    const nothingLost = ok200 === calls && settledRows === calls && onChainTransfers === calls;
    return {
      scenario: scenario.name,
      database,
      calls,
      concurrency,
      seconds: round(seconds),
      callsPerSecond: round(callsPerSecond),
      p50Ms: round(lat.p50),
      p99Ms: round(lat.p99),
      ok200,
      settledRows,
      onChainTransfers,
      serverMs: { ledger: round(med(parts.ledger)), verify: round(med(parts.verify)), handler: round(med(parts.handler)), settle: round(med(parts.settle)) },
      cpuMsPerCall: { bench: perCall('bench'), service: perCall('service'), anvil: perCall('anvil') },
      nothingLost,
      meetsTarget: nothingLost && callsPerSecond >= TARGET_CALLS_PER_SECOND,
      baseline: scenario.baseline,
    };
  } finally {
    await inProcess?.close().catch(() => {});
    await child?.stop().catch(() => {});
    await devnet.stop().catch(() => {});
  }
}

export async function runThroughputBench(
  opts: { calls?: number; concurrency?: number; baseline?: boolean; progress?: (msg: string) => void } = {},
): Promise<{ rows: ThroughputRow[]; markdown: string }> {
  const calls = opts.calls ?? Number(process.env.THROUGHPUT_CALLS ?? 400);
  const concurrency = opts.concurrency ?? Number(process.env.THROUGHPUT_CONCURRENCY ?? 8);
  const withBaseline = opts.baseline ?? process.env.THROUGHPUT_BASELINE !== '0';
  const progress = opts.progress ?? (() => {});
  const databases: Array<'sqlite' | 'postgres'> = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  const rows: ThroughputRow[] = [];
  for (const database of databases) {
    for (const scenario of withBaseline ? [BASELINE, CURRENT, OWN_PROCESS] : [CURRENT, OWN_PROCESS]) {
      progress(`throughput: ${scenario.name}, ${database}, ${calls} calls × ${concurrency} buyers`);
      rows.push(await runScenario(scenario, database, calls, concurrency, progress));
    }
  }
  const head = ['scenario', 'db', 'calls/s', 'target', 'vs baseline', 'p50 ms', 'p99 ms', '200s', 'settled rows', 'on-chain transfers', 'nothing lost', 'server ledger/verify/settle ms (p50)', 'CPU ms/call bench/service/anvil'];
  const table = rows.map((r) => {
    const base = rows.find((b) => b.baseline && b.database === r.database);
    return [
      r.scenario,
      r.database,
      fmt(r.callsPerSecond),
      `≥ ${TARGET_CALLS_PER_SECOND} ${r.meetsTarget ? 'met' : 'missed'}`,
      base && !r.baseline ? ratio(r.callsPerSecond, base.callsPerSecond) : '1×',
      fmt(r.p50Ms),
      fmt(r.p99Ms),
      String(r.ok200),
      String(r.settledRows),
      String(r.onChainTransfers),
      r.nothingLost ? 'yes' : 'NO',
      `${fmt(r.serverMs.ledger)} / ${fmt(r.serverMs.verify)} / ${fmt(r.serverMs.settle)}`,
      `${fmt(r.cpuMsPerCall.bench)} / ${fmt(r.cpuMsPerCall.service)} / ${fmt(r.cpuMsPerCall.anvil)}`,
    ];
  });
  const markdown = [
    `### Paid throughput (${calls} calls, ${concurrency} concurrent buyers, devnet)`,
    '',
    markdownTable(head, table, ['l', 'l', 'r', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'l', 'r', 'r']),
  ].join('\n');
  return { rows, markdown };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { rows, markdown } = await runThroughputBench({ progress: (m) => process.stderr.write(`[throughput] ${m}\n`) });
  process.stdout.write(markdown + '\n');
  if (process.env.THROUGHPUT_JSON) process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
  process.exit(rows.every((r) => r.nothingLost) ? 0 : 1);
}
