/**
 * Where the service's JSON log lines go: standard output (file descriptor 1)
 * by default, written with pino's own synchronous writer (sonic-boom), which
 * retries a full pipe and finishes partial writes. Why lines are batched, and
 * what it costs: docs/decisions/0033 and 0035.
 *
 * - Lines below `warn` (the access and facilitator lines) are kept for up to
 *   KEEP_MS after the first of them and written together, in one write, as
 *   a web server's buffered access log is: under load one write carries
 *   many requests' lines, and at a few requests per turn a write per turn
 *   cost as much as the line itself (docs/decisions/0035).
 * - A `warn` or worse line is written at once, after what is kept, so lines
 *   stay in order and a line about trouble is out before anything else runs.
 * - Whatever is kept is written when the process exits (`exit` runs for
 *   process.exit, the end of the loop and an uncaught exception), and before
 *   it grows past MAX_KEPT_CHARS. What a SIGKILL finds kept is at most KEEP_MS of lines below `warn`.
 */
import pino from 'pino';

/** pino's level number of `warn`: from it up, a line is written at once. */
const WARN = 40;

/** More kept than this many characters is written at once (a burst of lines is not held in memory). */
const MAX_KEPT_CHARS = 64 * 1024;

/** Lines below `warn` are written at most this long after the first of them was kept. */
export const KEEP_MS = 100;

/** What a pino logger writes into; pino sets `lastLevel` (the level of the line it is about to write) on a stream marked `pino.metadata`. */
type LogLines = pino.DestinationStream & { lastLevel?: number; flush(done?: (err?: Error) => void): void };

/** Lines kept for up to KEEP_MS, written through `sink` (one `write` per batch). */
function batchedLines(sink: pino.DestinationStream): LogLines {
  let kept = '';
  let scheduled: NodeJS.Timeout | undefined;
  const flush = (): void => {
    if (scheduled) {
      clearTimeout(scheduled);
      scheduled = undefined;
    }
    if (kept === '') return;
    const out = kept;
    kept = '';
    sink.write(out);
  };
  process.on('exit', flush);
  return {
    [Symbol.for('pino.metadata')]: true,
    // Also what pino's logger.flush(cb) calls: the sink writes synchronously, so the lines are out when cb runs.
    flush(done?: (err?: Error) => void): void {
      flush();
      done?.();
    },
    write(this: LogLines, line: string): void {
      kept += line;
      if ((this.lastLevel ?? WARN) >= WARN || kept.length > MAX_KEPT_CHARS) return flush();
      if (!scheduled) {
        // Armed only while lines are kept: an idle process has no timer here.
        scheduled = setTimeout(flush, KEEP_MS);
        // Never what keeps the process alive: the exit handler writes what is left.
        scheduled.unref();
      }
    },
  };
}

let standardOutput: LogLines | undefined;

/** The lines of the process's standard output: one batch for every logger writing there, so their lines stay in order. */
export function standardOutputLines(): LogLines {
  return (standardOutput ??= batchedLines(pino.destination({ dest: 1, sync: true })));
}

/**
 * Writes the log lines kept so far, now: text written to standard output
 * otherwise (the ready banner) then follows the lines logged before it.
 */
export function flushStandardOutputLines(): void {
  standardOutput?.flush();
}
