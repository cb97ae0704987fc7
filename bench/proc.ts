/**
 * CPU time of another process from /proc (Linux): user + system of all its
 * threads, or of each thread by name. NaN (empty) where /proc is not there.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** USER_HZ: 100 on every Linux this runs on (`getconf CLK_TCK`). */
const CLOCK_TICKS_PER_SECOND = 100;

function statCpuMs(path: string): number {
  try {
    const stat = readFileSync(path, 'utf8');
    // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** CPU time (ms) the process has used so far, all its threads together. */
export const procCpuMs = (pid: number): number => statCpuMs(`/proc/${pid}/stat`);

/** The main thread's key in `threadCpuMs`. */
export const MAIN_THREAD = 'main';

/**
 * CPU time (ms) the process's threads have used so far, by name: `main` for
 * the main thread, else the thread's name (/proc/<pid>/task/<tid>/comm; the
 * service names its ledger thread and handler workers, src/foundation/this-thread.ts;
 * every thread Node starts itself reads "node"). Threads of one name are summed.
 * Empty where /proc is not there.
 */
export function threadCpuMs(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return byName;
  }
  for (const tid of tids) {
    const ms = statCpuMs(`/proc/${pid}/task/${tid}/stat`);
    if (Number.isNaN(ms)) continue; // ended since the listing
    let name = MAIN_THREAD;
    if (tid !== String(pid)) {
      try {
        name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      } catch {
        continue;
      }
    }
    byName.set(name, (byName.get(name) ?? 0) + ms);
  }
  return byName;
}
