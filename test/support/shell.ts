/** Shell commands as a user types them, each in its own process group: stopping one stops everything it started (npm, node, anvil). */
import { spawn } from 'node:child_process';

export interface ShellGroup {
  out(): string;
  err(): string;
  exited: Promise<number | null>;
  /** Waits until stdout matches `re` (polling), or throws with the output when the command exits or `ms` pass. */
  waitFor(re: RegExp, ms: number): Promise<RegExpExecArray>;
  /** SIGTERM to the group, then SIGKILL if it has not exited within 15 s. */
  stop(): Promise<void>;
}

/** `sh -c command` in `cwd` in its own process group (so anvil and node go with it), collecting output. */
export function spawnShell(command: string, env: Record<string, string>, cwd: string): ShellGroup {
  const child = spawn('sh', ['-c', command], { cwd, env: { ...process.env, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b) => (stdout += b));
  child.stderr.on('data', (b) => (stderr += b));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return {
    out: () => stdout,
    err: () => stderr,
    exited,
    async waitFor(re: RegExp, ms: number): Promise<RegExpExecArray> {
      const until = Date.now() + ms;
      for (;;) {
        const m = re.exec(stdout);
        if (m) return m;
        if (child.exitCode !== null || Date.now() > until) throw new Error(`no ${re} (exit ${child.exitCode}):\n${stdout}\n${stderr}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async stop() {
      if (child.exitCode !== null) return;
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        return;
      }
      // The shell may exit before what it started (npm, node finishing its own
      // shutdown): wait for the whole group, not only the shell.
      const until = Date.now() + 15_000;
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      while (groupAlive(child.pid!) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      if (groupAlive(child.pid!)) process.kill(-child.pid!, 'SIGKILL');
    },
  };
}

/** Whether any process of the group led by `pid` still runs. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}
