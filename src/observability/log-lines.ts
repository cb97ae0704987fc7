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
 *   it grows past MAX_KEPT_CHARS. What a SIGKILL finds kept is one turn's lines.
 */
import pino from 'pino';

/** pino's level number of `warn`: from it up, a line is written at once. */
const WARN = 40;

/** More kept than this many characters is written at once (a turn that logs a lot does not hold it all in memory). */
const MAX_KEPT_CHARS = 64 * 1024;

/** What a pino logger writes into; pino sets `lastLevel` (the level of the line it is about to write) on a stream marked `pino.metadata`. */
type LogLines = pino.DestinationStream & { lastLevel?: number };

/** Lines kept for the turn, written through `sink` (one `write` per batch). */
function turnBatchedLines(sink: pino.DestinationStream): LogLines {
  let kept = '';
  let scheduled: NodeJS.Immediate | undefined;
  const flush = (): void => {
    if (scheduled) {
      clearImmediate(scheduled);
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
    write(this: LogLines, line: string): void {
      kept += line;
      if ((this.lastLevel ?? WARN) >= WARN || kept.length > MAX_KEPT_CHARS) return flush();
      if (!scheduled) {
        scheduled = setImmediate(flush);
        // Never what keeps the process alive: the exit handler writes what is left.
        scheduled.unref();
      }
    },
  };
}

let standardOutput: LogLines | undefined;

/** The lines of the process's standard output: one batch for every logger writing there, so their lines stay in order. */
export function standardOutputLines(): LogLines {
  return (standardOutput ??= turnBatchedLines(pino.destination({ dest: 1, sync: true })));
}
