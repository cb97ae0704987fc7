/**
 * The service in a process of its own (bench/service-process.ts), as it is
 * deployed, for scenarios whose load generators and devnet facilitator must
 * not share its event loop: its URL, its ledger's paid deliveries, its CPU
 * time, and how to stop it.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ChildService {
  url: string;
  pid: number;
  paidDeliveries(): Promise<number>;
  /** CPU time the process has used so far (ms, user + system). */
  cpuMs(): Promise<number>;
  /** In-process time (ms) of each request kept by BENCH_REQUEST_TIMES=<x-request-id prefix> (bench/request-times.ts). */
  requestTimes(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

/** `cpuProfileDir` (default: BENCH_CPU_PROF_DIR): write the service process's V8 CPU profile there. */
export async function startChildService(env: Record<string, string>, opts: { cpuProfileDir?: string } = {}): Promise<ChildService> {
  const script = fileURLToPath(new URL('./service-process.ts', import.meta.url));
  const dir = opts.cpuProfileDir ?? process.env.BENCH_CPU_PROF_DIR;
  const profile = dir ? ['--cpu-prof', '--cpu-prof-dir', dir] : [];
  // Its log lines go to a file, as a process manager keeps them (DATA_DIR/service.log when there is one);
  // BENCH_SERVICE_STDOUT=pipe: to a pipe this process reads, as a terminal or `npm start | tee` does.
  const piped = process.env.BENCH_SERVICE_STDOUT === 'pipe';
  const logFile = env.DATA_DIR ? join(env.DATA_DIR, 'service.log') : '/dev/null';
  mkdirSync(dirname(logFile), { recursive: true });
  const log = openSync(logFile, 'a');
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', script], { env: { ...process.env, ...env }, stdio: ['ignore', piped ? 'pipe' : log, 'inherit', 'ipc'] });
  closeSync(log);
  child.stdout?.resume();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const next = <T>(key: string) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the service process did not send ${key} within 60 s`)), 60_000);
      const onMessage = (m: Record<string, unknown>) => {
        if (!(key in m)) return;
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve(m[key] as T);
      };
      child.on('message', onMessage);
      child.once('exit', (code) => reject(new Error(`the service process exited with ${code}`)));
    });
  const url = await next<string>('url');
  return {
    url,
    pid: child.pid ?? -1,
    async paidDeliveries() {
      const summary = next<{ paidDeliveries: number }>('summary');
      child.send('summary');
      return (await summary).paidDeliveries;
    },
    async cpuMs() {
      const cpu = next<NodeJS.CpuUsage>('cpu');
      child.send('cpu');
      const { user, system } = await cpu;
      return (user + system) / 1000;
    },
    async requestTimes() {
      const times = next<Record<string, number>>('times');
      child.send('times');
      return times;
    },
    async stop() {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
