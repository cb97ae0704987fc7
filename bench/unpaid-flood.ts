/**
 * Unpaid-flood scenario (issue 21, item 1): /healthz p99 and the service's
 * RSS, idle and while unpaid messages of many small JSON values arrive on
 * A2A, MCP and the router quote. Target: p99 within 3× its idle p99 (measured
 * in the same run) and RSS growth under 256 MB.
 *
 * The issue's load is 3 unpaid 4 MiB messages per minute on each surface.
 * This runs a harder, shorter one: FLOOD_MS of one message to every surface
 * each TICK_MS (15 per surface in 30 s, ten times the rate), each 4 MiB or
 * just under the surface's own byte limit (read and scanned in full rather
 * than refused by its length), through every shape: objects, arrays,
 * strings, numbers, nested arrays, whitespace-padded objects, object members,
 * and one long string (which passes the value count and is parsed).
 *
 * Three processes: the service alone (bench/child-service.ts), the probe
 * (sequential GET /healthz on one keep-alive connection), and the bench's,
 * which builds and sends the messages. So the latencies are the service's.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { startDevnet } from '../devnet/index.js';
import { CATALOG } from '../src/capabilities/index.js';
import { messageBudget } from '../src/catalog/body-budget.js';
import { devnetEnv, tempDir } from '../test/support/harness.js';
import { startChildService } from './child-service.js';
import { fmt, markdownTable, round, summarize } from './stats.js';

const MiB = 1024 * 1024;
const IDLE_MS = 8_000;
const FLOOD_MS = 30_000;
const TICK_MS = 2_000;
const PAUSE_MS = 5;

const PROBE = `
import { Agent, request } from 'node:http';
const [base, pause] = process.argv.slice(1);
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const once = () => new Promise((resolve, reject) => {
  const t = performance.now();
  const req = request(base + '/healthz', { agent }, (res) => {
    res.resume();
    res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t) : reject(new Error('/healthz answered ' + res.statusCode))));
  });
  req.on('error', reject);
  req.end();
});
let stop = false;
process.on('message', (m) => { if (m === 'stop') stop = true; });
const samples = [];
process.send('ready');
while (!stop) {
  samples.push(await once());
  await new Promise((r) => setTimeout(r, Number(pause)));
}
process.send({ samples }, () => process.exit(0));
`;

async function startProbe(base: string): Promise<{ stop(): Promise<number[]> }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', PROBE, base, String(PAUSE_MS)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const result = new Promise<number[]>((resolve, reject) => {
    child.on('message', (m) => {
      if (m !== 'ready') resolve((m as { samples: number[] }).samples);
    });
    child.once('exit', (code) => reject(new Error(`the probe exited with ${code} before reporting`)));
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the probe exited with ${code}`)));
  });
  return {
    stop() {
      child.send('stop');
      return result;
    },
  };
}

/** The resident set of a process, bytes (Linux /proc). */
function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

/** About `bytes` bytes of JSON of one shape. */
function payload(shape: string, bytes: number): string {
  const units: Record<string, string> = { objects: '{},', arrays: '[],', strings: '"a",', numbers: '7,', nested: '[[{}],[[]]],', padded: ' { } ,\n', members: '"m":0,' };
  if (shape === 'string') return JSON.stringify('x'.repeat(bytes - 2));
  const unit = units[shape]!;
  const n = Math.floor((bytes - 8) / unit.length);
  return shape === 'members' ? '{' + unit.repeat(n) + '"z":0}' : '[' + unit.repeat(n) + '0]';
}
const SHAPES = ['objects', 'arrays', 'strings', 'numbers', 'nested', 'padded', 'members', 'string'];

const SURFACES = {
  a2a: {
    path: '/a2a',
    headers: { 'A2A-Version': '1.0' },
    wrap: (data: string) =>
      `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":{"html":"<p>x</p>","x":${data}}}],"metadata":{"skill":"catalog-offer-evidence-extractor"}}}}`,
  },
  mcp: {
    path: '/mcp',
    headers: { accept: 'application/json, text/event-stream' },
    wrap: (data: string) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"catalog-offer-evidence-extractor","arguments":{"html":"<p>x</p>","x":${data}}}}`,
  },
  quote: { path: '/v1/router/quote', headers: {}, wrap: (data: string) => `{"objective":"extract the offers of this page","inputs":{"html":"<p>x</p>","x":${data}}}` },
};

export interface UnpaidFloodResult {
  idleP99: number;
  floodP99: number;
  floodMax: number;
  samples: number;
  rssStartMb: number;
  rssMaxMb: number;
  messages: number;
  statuses: Record<string, number>;
  markdown: string;
}

export async function runUnpaidFloodBench(progress: (m: string) => void): Promise<UnpaidFloodResult> {
  progress('unpaid flood: starting devnet and the service in its own process');
  const devnet = await startDevnet();
  const dataDir = tempDir('bench-flood-');
  const service = await startChildService(devnetEnv(devnet, devnet.facilitatorUrl, { DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
  try {
    const limit = messageBudget(CATALOG).bytes;
    const send = async (s: (typeof SURFACES)[keyof typeof SURFACES], body: string): Promise<number> => {
      const res = await fetch(service.url + s.path, { method: 'POST', headers: { 'content-type': 'application/json', ...s.headers }, body });
      await res.arrayBuffer();
      return res.status;
    };
    // Warm-up, not measured: each surface once (first-use costs: SDK objects, tool tables, the router).
    for (const s of Object.values(SURFACES)) await send(s, s.wrap('1'));
    await (await startProbe(service.url)).stop();

    const idleProbe = await startProbe(service.url);
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const idle = await idleProbe.stop();

    const rssStart = rssOf(service.pid);
    let rssMax = rssStart;
    const sampler = setInterval(() => (rssMax = Math.max(rssMax, rssOf(service.pid))), 100);
    const statuses: Record<string, number> = {};
    const inFlight: Promise<void>[] = [];
    progress(`unpaid flood: ${FLOOD_MS / 1000} s, a message to A2A, MCP and the router quote every ${TICK_MS / 1000} s`);
    const floodProbe = await startProbe(service.url);
    const started = Date.now();
    for (let tick = 0; Date.now() - started < FLOOD_MS; tick++) {
      const shape = SHAPES[tick % SHAPES.length]!;
      // Alternately the issue's 4 MiB (refused by its length) and just under the surface's limit (read and scanned).
      const size = tick % 2 === 0 ? limit - 4096 : 4 * MiB;
      const data = payload(shape, size - 256);
      for (const s of Object.values(SURFACES)) {
        inFlight.push(
          send(s, s.wrap(data)).then(
            (st) => void (statuses[st] = (statuses[st] ?? 0) + 1),
            () => void (statuses.error = (statuses.error ?? 0) + 1),
          ),
        );
      }
      await new Promise((r) => setTimeout(r, Math.max(0, started + (tick + 1) * TICK_MS - Date.now())));
    }
    await Promise.all(inFlight);
    const flood = await floodProbe.stop();
    clearInterval(sampler);
    rssMax = Math.max(rssMax, rssOf(service.pid));

    const i = summarize(idle);
    const f = summarize(flood);
    const ratio = f.p99 / i.p99;
    const growthMb = (rssMax - rssStart) / MiB;
    const markdown = [
      `### Unpaid flood: /healthz p99 and service RSS, idle vs while unpaid messages of small JSON values arrive on A2A, MCP and the router quote (${inFlight.length} messages in ${FLOOD_MS / 1000} s, one per surface every ${TICK_MS / 1000} s, 4 MiB or just under the surface's ${limit}-byte limit, ${SHAPES.length} shapes; service in its own process on ${availableParallelism()} cores)`,
      '',
      markdownTable(
        ['measure', 'idle', 'during the flood', 'max', 'samples', 'ratio', 'target', 'met'],
        [
          ['GET /healthz p99 ms', fmt(i.p99), fmt(f.p99), fmt(Math.max(...flood)), String(flood.length), `${round(ratio)}×`, '≤ 3× idle p99', ratio <= 3 ? 'yes' : 'no'],
          ['service RSS MB', fmt(rssStart / MiB), fmt(rssMax / MiB), '', '', `+${fmt(growthMb)} MB`, '< +256 MB', growthMb < 256 ? 'yes' : 'no'],
        ],
        ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
      ),
      '',
      `Answers: ${Object.entries(statuses)
        .map(([k, v]) => `${v} × ${k}`)
        .join(', ')}.`,
      '',
    ].join('\n');
    return { idleP99: i.p99, floodP99: f.p99, floodMax: Math.max(...flood), samples: flood.length, rssStartMb: rssStart / MiB, rssMaxMb: rssMax / MiB, messages: inFlight.length, statuses, markdown };
  } finally {
    await service.stop().catch(() => {});
    await devnet.stop().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// `tsx bench/unpaid-flood.ts` runs the scenario alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  runUnpaidFloodBench((m) => process.stderr.write(`[bench] ${m}\n`)).then(
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
