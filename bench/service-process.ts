/**
 * The service alone in its own process, as it is deployed: configured from
 * the environment, it sends `{url}` over the IPC channel when it listens,
 * answers `'summary'` with its ledger summary (the ledger's data directory is
 * locked to this process), and closes on SIGTERM. The throughput bench runs
 * it so that the buyers and the devnet facilitator, which share the bench's
 * process, do not share its event loop.
 */
import { loadConfig } from '../src/config.js';
import { startService } from '../src/service.js';

const service = await startService(loadConfig(process.env));
process.send!({ url: service.url });
process.on('message', (m) => {
  if (m === 'summary') void service.ledger.summary().then((summary) => process.send!({ summary }));
  // CPU time this process has used so far (µs, user + system), for the bench's per-call attribution.
  if (m === 'cpu') process.send!({ cpu: process.cpuUsage() });
});
const stop = () => void service.close().finally(() => process.exit(0));
process.once('SIGTERM', stop);
// The bench that started it is gone (crashed or killed): do not outlive it.
process.once('disconnect', stop);
