/**
 * Where the service's JSON log lines go: standard output (file descriptor 1)
 * by default, written with pino's own synchronous writer (sonic-boom), which
 * retries a full pipe and finishes partial writes. Why a batch per turn, and
 * what it costs: docs/decisions/0033.
 *
 * - Lines below `warn` (the access and facilitator lines) are kept until the
 *   end of the event-loop turn that logged them and written together, in one
 *   write: under load one turn answers many requests.
 * - A `warn` or worse line is written at once, after what is kept, so lines
 *   stay in order and a line about trouble is out before anything else runs.
 * - Whatever is kept is written when the process exits (`exit` runs for
 *   process.exit, the end of the loop and an uncaught exception), and before
 *   it grows past MAX_KEPT_BYTES. What a SIGKILL finds kept is one turn's lines.
 */
import pino from 'pino';

/** pino's level number of `warn`: from it up, a line is written at once. */
const WARN = 40;

/** More kept than this is written at once (a turn that logs a lot does not hold it all in memory). */
export const MAX_KEPT_BYTES = 64 * 1024;

/** The writer a pino logger writes into: a stream with pino's metadata (the level of the line being written). */
export interface LogLines {
  write(line: string): void;
  /** Writes what is kept now. */
  flushSync(): void;
  /** Read by pino: it sets `lastLevel` before each write. */
  readonly [key: symbol]: unknown;
  lastLevel?: number;
}

/** Lines kept for the turn, written through `sink` (one `write` per batch). */
export function turnBatchedLines(sink: { write(data: string): unknown }): LogLines {
  let kept = '';
  let scheduled: NodeJS.Immediate | undefined;
  const flushSync = (): void => {
    if (scheduled) {
      clearImmediate(scheduled);
      scheduled = undefined;
    }
    if (kept === '') return;
    const out = kept;
    kept = '';
    sink.write(out);
  };
  process.on('exit', flushSync);
  return {
    [Symbol.for('pino.metadata')]: true,
    lastLevel: undefined,
    write(line: string): void {
      if ((this.lastLevel ?? WARN) >= WARN) {
        kept += line;
        flushSync();
        return;
      }
      kept += line;
      if (kept.length > MAX_KEPT_BYTES) return flushSync();
      if (!scheduled) {
        scheduled = setImmediate(flushSync);
        // Never what keeps the process alive: the exit handler writes what is left.
        scheduled.unref();
      }
    },
    flushSync,
  };
}

let standardOutput: LogLines | undefined;

/** The lines of the process's standard output: one batch for every logger writing there, so their lines stay in order. */
export function standardOutputLines(): LogLines {
  return (standardOutput ??= turnBatchedLines(pino.destination({ dest: 1, sync: true })));
}
