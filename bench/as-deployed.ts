/**
 * The service as deployed against the framework's own limit (issue 24): the
 * service alone in its own process at its default log level, its lines going
 * to a file as a process manager keeps them; bare Hono routes answering the
 * very bytes it answers, in another process (bench/bare-process.ts);
 * autocannon in a third. Interleaved rounds in Thue-Morse order (service
 * first, then bare first twice, then service first: `inTurn`), the same requests:
 *   - the unpaid 402 (POST to the contrast calculator with a valid body),
 *   - the default newswire (GET /v1/newswire).
 * Besides req/s, each server's CPU per answer from /proc over its rounds.
 * The per-address rate limit is off (all load comes from one address).
 *
 * `npx tsx bench/as-deployed.ts` runs it alone; bench/run.ts calls
 * `runAsDeployedBench`.
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startDevnet } from '../devnet/index.js';
import { BLACK_ON_WHITE, CONTRAST, devnetEnv, tempDir } from '../test/support/harness.js';
import type { BareRoute } from './bare-process.js';
import { startChildService } from './child-service.js';
import { capture, runLoadPlan, sameResponse, type CapturedResponse, type LoadResult } from './http.js';
import { procCpuMs } from './proc.js';
import { envInt, fmt, markdownTable, round } from './stats.js';

/** The goal of issue 24 for both rows: req/s at least this share of the bare route's. */
export const TARGET_VS_BARE = 0.9;

interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body: string;
}

const SCENARIOS: Scenario[] = [
  { name: 'unpaid 402 (POST contrast calculator, valid body)', method: 'POST', path: CONTRAST, body: JSON.stringify(BLACK_ON_WHITE) },
  { name: 'GET /v1/newswire (default)', method: 'GET', path: '/v1/newswire', body: '' },
];

export interface AsDeployedRow {
  scenario: string;
  bytes: number;
  service: LoadResult;
  bare: LoadResult;
  ratio: number;
  /** CPU per answer (ms) of each server's process over all its rounds. */
  cpuMs: { service: number; bare: number };
}

function startBare(routes: BareRoute[]): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const script = fileURLToPath(new URL('./bare-process.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], { env: { ...process.env, BENCH_BARE: JSON.stringify(routes) }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the bare route process did not listen within 60 s')), 60_000);
    child.once('exit', (code) => reject(new Error(`the bare route process exited with ${code}`)));
    child.on('message', (m: { url?: string }) => {
      if (!m.url) return;
      clearTimeout(timer);
      resolve({ url: m.url, pid: child.pid!, stop: async () => void (child.kill('SIGTERM'), await exited) });
    });
  });
}

const bareRoute = (s: Scenario, c: CapturedResponse): BareRoute => ({
  method: s.method,
  path: s.path,
  status: c.status,
  headers: Object.fromEntries(c.headers),
  bodyBase64: Buffer.from(c.body).toString('base64'),
});

export async function runAsDeployedBench(progress: (m: string) => void = () => {}): Promise<{ rows: AsDeployedRow[]; markdown: string }> {
  const durationSec = envInt('BENCH_DURATION', 4, 1, 60);
  const rounds = envInt('BENCH_ROUNDS', 4, 1, 10);
  const warmupSec = envInt('BENCH_WARMUP', 2, 0, 30);
  const connections = envInt('BENCH_CONNECTIONS', 50, 1, 1000);
  const before = loadavg();
  const devnet = await startDevnet();
  const service = await startChildService(devnetEnv(devnet, devnet.facilitatorUrl, { DATA_DIR: tempDir('bench-deployed-'), LOG_LEVEL: 'info' }));
  let bare: Awaited<ReturnType<typeof startBare>> | undefined;
  try {
    const headers = { 'content-type': 'application/json' };
    const captured = await Promise.all(SCENARIOS.map((s) => capture(service.url + s.path, s.body, headers, s.method)));
    bare = await startBare(SCENARIOS.map((s, i) => bareRoute(s, captured[i]!)));
    for (const [i, s] of SCENARIOS.entries()) {
      const diff = sameResponse(await capture(bare.url + s.path, s.body, headers, s.method), captured[i]!);
      if (diff) throw new Error(`the bare route does not reproduce ${s.path}: ${diff}`);
    }
    const rows: AsDeployedRow[] = [];
    for (const [i, s] of SCENARIOS.entries()) {
      progress(`as deployed: ${s.name}, service vs bare route, ${rounds} rounds of ${durationSec} s at ${connections} connections`);
      const cpu0 = { service: procCpuMs(service.pid), bare: procCpuMs(bare.pid) };
      const [svc, b] = (await runLoadPlan({
        targets: [
          { name: `service ${s.path}`, url: service.url + s.path, expectStatus: captured[i]!.status },
          { name: `bare ${s.path}`, url: bare.url + s.path, expectStatus: captured[i]!.status },
        ],
        method: s.method,
        headers,
        body: s.body,
        connections,
        durationSec,
        rounds,
        warmupSec,
      })) as [LoadResult, LoadResult];
      const cpu = { service: procCpuMs(service.pid) - cpu0.service, bare: procCpuMs(bare.pid) - cpu0.bare };
      rows.push({
        scenario: s.name,
        bytes: captured[i]!.body.byteLength,
        service: svc,
        bare: b,
        ratio: svc.rps / b.rps,
        // Warm-up answers included on both sides alike: CPU over everything each answered.
        cpuMs: { service: cpu.service / svc.responses, bare: cpu.bare / b.responses },
      });
    }
    const after = loadavg();
    const table = rows.map((r) => [
      r.scenario,
      fmt(r.bytes),
      `${fmt(round(r.service.rps))} (${fmt(round(r.service.rpsMin))}–${fmt(round(r.service.rpsMax))})`,
      `${fmt(round(r.bare.rps))} (${fmt(round(r.bare.rpsMin))}–${fmt(round(r.bare.rpsMax))})`,
      `${fmt(round(r.ratio))}×`,
      `≥ ${TARGET_VS_BARE}× ${r.ratio >= TARGET_VS_BARE ? 'met' : '**missed**'}`,
      `${fmt(r.cpuMs.service * 1000)} / ${fmt(r.cpuMs.bare * 1000)}`,
      String(r.service.errors + r.bare.errors),
    ]);
    const markdown = [
      '### As deployed: the service vs bare Hono routes serving the same bytes, each in its own process',
      '',
      `The service at its default log level (\`info\`, one line per request to a file), rate limit off; the bare routes in another process; autocannon in a third, ${connections} connections, ${warmupSec} s warm-up, ${rounds} interleaved rounds of ${durationSec} s (service first, bare first, bare first, service first, …); req/s are medians over the rounds (range in brackets). CPU per answer from /proc of each server's process, warm-up included on both sides. Load average before ${before.map((x) => x.toFixed(2)).join(' ')}, after ${after.map((x) => x.toFixed(2)).join(' ')}.`,
      '',
      markdownTable(['request', 'bytes', 'service req/s', 'bare route req/s', 'ratio', 'goal', 'CPU µs/answer service / bare', 'errors'], table, ['l', 'r', 'r', 'r', 'r', 'l', 'r', 'r']),
      '',
    ].join('\n');
    return { rows, markdown };
  } finally {
    await bare?.stop().catch(() => {});
    await service.stop().catch(() => {});
    await devnet.stop().catch(() => {});
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { markdown } = await runAsDeployedBench((m) => process.stderr.write(`[as-deployed] ${m}\n`));
  process.stdout.write(markdown + '\n');
}
