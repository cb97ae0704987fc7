/**
 * Isolation scenario (issue 15): p99 of GET /healthz and of the 402 challenge
 * path (unpaid POST to the contrast calculator), idle and while 4 paid
 * catalog-offer-evidence-extractor calls on ~2 MiB JSON-LD pages run at once.
 * The paying clients run in a child process, so their own work is not on the
 * service's event loop. Target: p99 under load ≤ 3× idle p99.
 */
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { startDevnet } from '../devnet/index.js';
import { loadConfig } from '../src/config.js';
import { startService } from '../src/service.js';
import { sharedHandlerPool } from '../src/isolation/pool.js';
import { BLACK_ON_WHITE, CONTRAST, devnetEnv, signFor, tempDir } from '../test/support/harness.js';
import { LARGE_INPUTS } from './inputs.js';
import { fmt, markdownTable, round, summarize } from './stats.js';

const CLIENT = `
import { readFileSync } from 'node:fs';
const jobs = JSON.parse(readFileSync(process.argv[1], 'utf8'));
const out = await Promise.all(jobs.map(async (j) => {
  const res = await fetch(j.url, { method: 'POST', headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': j.header }, body: j.body });
  await res.arrayBuffer();
  return res.status;
}));
process.stdout.write(JSON.stringify(out));
`;

export interface IsolationRow {
  probe: string;
  idleP99: number;
  loadedP99: number;
  loadedMax: number;
  samples: number;
}

/** Sequential probes of both endpoints until `stop()` says so. */
async function probe(base: string, until: () => boolean): Promise<{ healthz: number[]; challenge: number[] }> {
  const healthz: number[] = [];
  const challenge: number[] = [];
  const body = JSON.stringify(BLACK_ON_WHITE);
  while (!until()) {
    let t = performance.now();
    await (await fetch(base + '/healthz')).arrayBuffer();
    healthz.push(performance.now() - t);
    t = performance.now();
    const r = await fetch(base + CONTRAST, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    await r.arrayBuffer();
    if (r.status !== 402) throw new Error(`402 path answered ${r.status}`);
    challenge.push(performance.now() - t);
    await new Promise((res) => setTimeout(res, 10));
  }
  return { healthz, challenge };
}

export async function runIsolationBench(progress: (m: string) => void, rounds = 2): Promise<{ rows: IsolationRow[]; markdown: string }> {
  progress('isolation: starting devnet and service');
  const devnet = await startDevnet();
  const dataDir = tempDir('bench-iso-');
  // HANDLER_WORKERS from the bench's environment, for A/B runs of the pool size (default: the service's).
  const workers: Record<string, string> = process.env.HANDLER_WORKERS ? { HANDLER_WORKERS: process.env.HANDLER_WORKERS } : {};
  const service = await startService(loadConfig(devnetEnv(devnet, devnet.facilitatorUrl, { DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...workers })));
  try {
    const cap = service.catalog.find((c) => c.id === 'catalog-offer-evidence-extractor')!;
    const page = LARGE_INPUTS[cap.id]!(cap)[0]!.input as { html: string; base_url: string };
    const url = service.url + cap.path;
    // Idle.
    const idleEnd = performance.now() + 3000;
    const idle = await probe(service.url, () => performance.now() > idleEnd);
    // Loaded: `rounds` batches of 4 concurrent paid 2 MiB calls.
    const loaded = { healthz: [] as number[], challenge: [] as number[] };
    for (let r = 0; r < rounds; r++) {
      progress(`isolation: round ${r + 1}/${rounds}, 4 concurrent paid 2 MiB extractor calls`);
      const jobs = [];
      for (let i = 0; i < 4; i++) {
        const body = { ...page, base_url: `${page.base_url}?r=${r}&i=${i}` };
        jobs.push({ url, body: JSON.stringify(body), header: (await signFor(url, body, devnet)).header });
      }
      const file = join(dataDir, `jobs-${r}.json`);
      writeFileSync(file, JSON.stringify(jobs));
      const child = spawn(process.execPath, ['--input-type=module', '-e', CLIENT, file], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d));
      let done = false;
      const exited = new Promise<number | null>((res) => child.on('exit', res)).finally(() => (done = true));
      const p = await probe(service.url, () => done);
      if ((await exited) !== 0) throw new Error('isolation: the paying client failed');
      const statuses = JSON.parse(out) as number[];
      if (statuses.some((s) => s !== 200)) throw new Error(`isolation: paid calls answered ${statuses.join(', ')}`);
      loaded.healthz.push(...p.healthz);
      loaded.challenge.push(...p.challenge);
    }
    const row = (probeName: string, a: number[], b: number[]): IsolationRow => {
      const i = summarize(a);
      const l = summarize(b);
      return { probe: probeName, idleP99: i.p99, loadedP99: l.p99, loadedMax: Math.max(...b), samples: b.length };
    };
    const rows = [row('GET /healthz', idle.healthz, loaded.healthz), row(`POST ${CONTRAST} (402 path)`, idle.challenge, loaded.challenge)];
    const markdown = [
      `### Isolation: probes idle vs during 4 concurrent paid 2 MiB extractor calls (${rounds} rounds, workers: ${sharedHandlerPool()?.size ?? 'none'} on ${availableParallelism()} cores)`,
      '',
      markdownTable(
        ['probe', 'idle p99 ms', 'loaded p99 ms', 'loaded max ms', 'samples', 'ratio', 'target', 'met'],
        rows.map((r) => {
          const ratio = r.loadedP99 / r.idleP99;
          return [r.probe, fmt(r.idleP99), fmt(r.loadedP99), fmt(r.loadedMax), String(r.samples), `${round(ratio)}×`, '≤ 3×', ratio <= 3 ? 'yes' : 'no'];
        }),
        ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
      ),
      '',
    ].join('\n');
    return { rows, markdown };
  } finally {
    await service.close().catch(() => {});
    await devnet.stop().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// `tsx bench/isolation.ts` runs the scenario alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  runIsolationBench((m) => process.stderr.write(`[bench] ${m}\n`)).then(
    (r) => {
      console.log(r.markdown);
      process.exit(0);
    },
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
