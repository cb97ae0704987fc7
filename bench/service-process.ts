/**
 * The service alone in its own process, as it is deployed: configured from
 * the environment, it sends `{url}` over the IPC channel when it listens,
 * answers `'summary'` with its ledger summary (the ledger's data directory is
 * locked to this process), and closes on SIGTERM. The throughput bench runs
 * it so that the buyers and the devnet facilitator, which share the bench's
 * process, do not share its event loop; so do the isolation bench and the
 * paid-call section of run.ts.
 */
import { loadConfig } from '../src/config.js';
import { startService } from '../src/service.js';
import { recordRequestTimes } from './request-times.js';

// BENCH_REQUEST_TIMES=<prefix>: keep the in-process time of requests whose x-request-id starts with it ('times' answers them).
const timed = process.env.BENCH_REQUEST_TIMES ? recordRequestTimes(process.env.BENCH_REQUEST_TIMES) : undefined;
const service = await startService(loadConfig(process.env));
process.send!({ url: service.url });
process.on('message', (m) => {
  if (m === 'summary') void service.ledger.summary().then((summary) => process.send!({ summary }));
  // CPU time this process has used so far (µs, user + system), for the bench's per-call attribution.
  if (m === 'cpu') process.send!({ cpu: process.cpuUsage() });
  if (m === 'times') process.send!({ times: Object.fromEntries(timed?.times ?? []) });
});
const stop = () => void service.close().finally(() => process.exit(0));
process.once('SIGTERM', stop);
// The bench that started it is gone (crashed or killed): do not outlive it.
process.once('disconnect', stop);
