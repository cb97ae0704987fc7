/**
 * CPU time of another process from /proc (Linux): user + system of all its
 * threads, or of one thread. NaN where /proc is not there.
 */
import { readFileSync } from 'node:fs';

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

/** CPU time (ms) the process's main thread has used so far. */
export const mainThreadCpuMs = (pid: number): number => statCpuMs(`/proc/${pid}/task/${pid}/stat`);
