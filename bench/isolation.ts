/**
 * Isolation scenario (issue 15): p99 of GET /healthz and of the 402 challenge
 * path (unpaid POST to the contrast calculator), idle and while 4 paid
 * catalog-offer-evidence-extractor calls on ~2 MiB JSON-LD pages run at once,
 * on the extractor's own route or (scenario 'composite', issue 21) bought
 * through the composite outcome router with OUTCOME_ROUTER_COMPOSITE=1.
 *
 * Three processes besides the bench's own (which holds the devnet
 * facilitator): the service alone, as deployed (bench/child-service.ts); the
 * probes, sequential requests on one keep-alive connection each; the paying
 * clients. So each latency is the service's, not a load generator's or the
 * facilitator's sharing its event loop. Target: p99 under load ≤ 3× idle p99.
 */
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, setPriority } from 'node:os';
import { join } from 'node:path';
import { startDevnet, type Devnet } from '../devnet/index.js';
import { CATALOG } from '../src/capabilities/index.js';
import { defaultHandlerWorkers } from '../src/isolation/pool.js';
import { BLACK_ON_WHITE, CONTRAST, devnetEnv, signFor, tempDir } from '../test/support/harness.js';
import { startChildService } from './child-service.js';
import { LARGE_INPUTS } from './inputs.js';
import { fmt, markdownTable, round, summarize } from './stats.js';

const CLIENT = `
import { readFileSync } from 'node:fs';
const [file, width] = process.argv.slice(1);
const jobs = JSON.parse(readFileSync(file, 'utf8'));
const out = [];
let next = 0;
const lane = async () => {
  while (next < jobs.length) {
    const i = next++;
    const j = jobs[i];
    const res = await fetch(j.url, { method: 'POST', headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': j.header }, body: j.body });
    await res.arrayBuffer();
    out[i] = res.status;
  }
};
await Promise.all(Array.from({ length: Number(width) }, lane));
process.stdout.write(JSON.stringify(out));
`;

/**
 * The probe process: alternately GET /healthz and an unpaid POST to the 402
 * route (each on its own keep-alive connection), a pause of PAUSE_MS between
 * pairs, until the bench sends 'stop'; then it sends the latencies (ms) back.
 */
const PROBE = `
import { Agent, request } from 'node:http';
const [base, path, body, pause] = process.argv.slice(1);
const agents = [new Agent({ keepAlive: true, maxSockets: 1 }), new Agent({ keepAlive: true, maxSockets: 1 })];
const once = (agent, method, p, payload, expect) => new Promise((resolve, reject) => {
  const t = performance.now();
  const req = request(base + p, { method, agent, headers: payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {} }, (res) => {
    res.resume();
    res.on('end', () => (res.statusCode === expect ? resolve(performance.now() - t) : reject(new Error(p + ' answered ' + res.statusCode))));
  });
  req.on('error', reject);
  req.end(payload);
});
let stop = false;
process.on('message', (m) => { if (m === 'stop') stop = true; });
const healthz = [], challenge = [];
process.send('ready');
while (!stop) {
  healthz.push(await once(agents[0], 'GET', '/healthz', undefined, 200));
  challenge.push(await once(agents[1], 'POST', path, body, 402));
  await new Promise((r) => setTimeout(r, Number(pause)));
}
process.send({ healthz, challenge }, () => process.exit(0));
`;
const PAUSE_MS = 5;

/** Paid calls per loaded round, and how many are in flight at once (issue 24: a pool, not batches). */
const CALLS_PER_ROUND = 9;
const IN_FLIGHT = 4;

/** Pay for each body from a process of its own, `width` in flight at a time (the official client's header, signed here); every answer must be 200. */
async function payLarge(devnet: Devnet, url: string, bodies: object[], file: string, width = bodies.length): Promise<void> {
  const jobs = [];
  for (const body of bodies) jobs.push({ url, body: JSON.stringify(body), header: (await signFor(url, body, devnet)).header });
  writeFileSync(file, JSON.stringify(jobs));
  const child = spawn(process.execPath, ['--input-type=module', '-e', CLIENT, file, String(width)], { stdio: ['ignore', 'pipe', 'inherit'] });
  // The payers stand for remote clients: on this one machine they run at nice 10, so the 7 MiB answers
  // they read compete with the service and the probes only for spare CPU (as their own machines would).
  if (child.pid) setPriority(child.pid, 10);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  const code = await new Promise<number | null>((res) => child.on('exit', res));
  if (code !== 0) throw new Error('isolation: the paying client failed');
  const statuses = JSON.parse(out) as number[];
  if (statuses.some((s) => s !== 200)) throw new Error(`isolation: paid calls answered ${statuses.join(', ')}`);
}

export interface IsolationRow {
  probe: string;
  idleP99: number;
  loadedP99: number;
  loadedMax: number;
  samples: number;
}

interface Probes {
  healthz: number[];
  challenge: number[];
}

/** Start the probe process; `stop()` ends it and resolves to its latencies. */
async function startProbes(base: string): Promise<{ stop(): Promise<Probes> }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', PROBE, base, CONTRAST, JSON.stringify(BLACK_ON_WHITE), String(PAUSE_MS)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const result = new Promise<Probes>((resolve, reject) => {
    child.on('message', (m) => {
      if (m !== 'ready') resolve(m as Probes);
    });
    child.once('exit', (code) => reject(new Error(`the probe process exited with ${code} before reporting`)));
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the probe process exited with ${code}`)));
  });
  return {
    stop() {
      child.send('stop');
      return result;
    },
  };
}

/**
 * Where the paid 2 MiB extractions go: the extractor's own route (its body is the page), or the
 * composite outcome router (issue 21: `{objective, inputs: page}`, one step, same handler).
 */
export type IsolationScenario = 'extractor' | 'composite';

export async function runIsolationBench(progress: (m: string) => void, rounds = 3, scenario: IsolationScenario = 'extractor'): Promise<{ rows: IsolationRow[]; markdown: string }> {
  progress(`isolation (${scenario}): starting devnet and the service in its own process`);
  const devnet = await startDevnet();
  const dataDir = tempDir('bench-iso-');
  // HANDLER_WORKERS from the bench's environment, for A/B runs of the pool size (default: the service's).
  const workers: Record<string, string> = process.env.HANDLER_WORKERS ? { HANDLER_WORKERS: process.env.HANDLER_WORKERS } : {};
  const composite: Record<string, string> = scenario === 'composite' ? { OUTCOME_ROUTER_COMPOSITE: '1' } : {};
  const service = await startChildService(devnetEnv(devnet, devnet.facilitatorUrl, { DATA_DIR: dataDir, LOG_LEVEL: 'info', ...workers, ...composite }));
  try {
    const cap = CATALOG.find((c) => c.id === 'catalog-offer-evidence-extractor')!;
    const base = LARGE_INPUTS[cap.id]!(cap)[0]!.input as { html: string; base_url: string };
    const url = service.url + (scenario === 'composite' ? '/x402/v1/outcome-router' : cap.path);
    const page = (tag: string): object => {
      const inputs = { ...base, base_url: `${base.base_url}?${tag}` };
      return scenario === 'composite' ? { objective: 'Extract the product offers from this page', inputs } : inputs;
    };
    // Warm-up, not measured: one paid large call (first-use costs: the facilitator client's
    // response schemas, the pool's worker code, the ledger thread's statements) and both probe routes.
    await payLarge(devnet, url, [page('warm')], join(dataDir, 'warm.json'));
    await (await startProbes(service.url)).stop();
    // Idle.
    const idleProbes = await startProbes(service.url);
    await new Promise((r) => setTimeout(r, 3000));
    const idle = await idleProbes.stop();
    // Loaded: `rounds` rounds of 9 paid 2 MiB calls, 4 in flight at a time.
    const loaded: Probes = { healthz: [], challenge: [] };
    for (let r = 0; r < rounds; r++) {
      progress(`isolation (${scenario}): round ${r + 1}/${rounds}, ${CALLS_PER_ROUND} paid 2 MiB extractions, ${IN_FLIGHT} at a time`);
      const bodies = Array.from({ length: CALLS_PER_ROUND }, (_, i) => page(`r=${r}&i=${i}`));
      const probes = await startProbes(service.url);
      const paying = payLarge(devnet, url, bodies, join(dataDir, `jobs-${r}.json`), IN_FLIGHT);
      await paying.catch(async (e: unknown) => {
        await probes.stop().catch(() => undefined);
        throw e;
      });
      const p = await probes.stop();
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
      `### Isolation: probes idle vs during ${CALLS_PER_ROUND} paid 2 MiB extractions, ${IN_FLIGHT} at a time, ${scenario === 'composite' ? 'bought through the composite POST /x402/v1/outcome-router' : 'on the extractor\'s own route'} (${rounds} rounds; service in its own process with ${process.env.HANDLER_WORKERS ?? defaultHandlerWorkers()} handler worker(s) and its ledger thread, on ${availableParallelism()} cores; probes and paying clients in processes of their own)`,
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
    await service.stop().catch(() => {});
    await devnet.stop().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// `tsx bench/isolation.ts` runs the scenario alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const scenario: IsolationScenario = process.argv[2] === 'composite' ? 'composite' : 'extractor';
  runIsolationBench((m) => process.stderr.write(`[bench] ${m}\n`), 3, scenario).then(
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
