/** The real service as a separate process (`src/main.ts`), for crash and multi-instance tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ChildService {
  url: string;
  child: ChildProcess;
  output: () => string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export async function spawnService(env: Record<string, string>, timeoutMs = 30_000): Promise<ChildService> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return watchService(child, timeoutMs, (signal) => child.kill(signal));
}

/**
 * The service as a shell script starts it (a README block that ends in
 * `npm start`), run by bash with `set -e` in the package directory. Signals
 * go to the service's own process (the pid on its log line), as an operator's
 * SIGTERM would, not to npm, which would pass a second one on.
 */
export async function spawnServiceByShell(script: string, env: Record<string, string>, timeoutMs = 60_000): Promise<ChildService> {
  const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
    cwd: ROOT,
    env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let pid: number | undefined;
  const svc = await watchService(child, timeoutMs, (signal) => {
    try {
      if (pid !== undefined) process.kill(pid, signal);
      else process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  });
  pid = Number(/"pid":(\d+)[^\n]*"url":"http/.exec(svc.output())?.[1]);
  if (!Number.isInteger(pid)) pid = undefined;
  return svc;
}

async function watchService(child: ChildProcess, timeoutMs: number, send: (s: NodeJS.Signals) => void): Promise<ChildService> {
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${out}`)), timeoutMs);
    const check = () => {
      const m = /"url":"(http:\/\/[^"]+)"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code}:\n${out}`));
    });
  });
  return {
    url,
    child,
    output: () => out,
    async kill(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) send(signal);
      await exited;
    },
  };
}
