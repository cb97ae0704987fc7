/**
 * Entry point: configuration from the environment, then the service.
 * A configuration problem prints one line naming the variable and exits 1.
 */
import { resolve } from 'node:path';
import { ConfigError, loadConfig } from './config.js';
import { checkStartup, unsupportedNode } from './start-up-checks.js';
import { routeSdkConsole, secretsOf } from './observability/sdk-console.js';

/**
 * How long a SIGTERM/SIGINT waits, beyond the drain of requests in flight
 * (SHUTDOWN_DRAIN_MS), for the rest of the close before exiting anyway.
 */
const SHUTDOWN_GRACE_MS = 10_000;

/**
 * The exact command that pays this instance from a second terminal. `npm run`
 * runs in the package directory, like `npm start`, and buy finds the URL in
 * DATA_DIR/service.json: only a DATA_DIR other than the default must be named.
 */
function buyCommand(dataDir: string): string {
  const env = resolve(dataDir) === resolve('data') ? '' : `DATA_DIR='${dataDir.replace(/'/g, `'\\''`)}' `;
  return `${env}npm run buy -- POST /x402/v1/accessibility-contrast-calculator '{"foreground":"#000000","background":"#ffffff","large_text":false}'`;
}

/** What `npm start` on the devnet prints once it listens: where to look, how to pay, how to stop. */
function readyBanner(url: string, dataDir: string): string {
  return [
    '',
    `Service ready at ${url} (devnet payment rail, chain 31337).`,
    `  Front page:    ${url}/`,
    `  API reference: ${url}/docs`,
    'Try a paid call in another terminal:',
    `  ${buyCommand(dataDir)}`,
    'Ctrl-C to stop.',
    '',
    '',
  ].join('\n');
}

async function main() {
  const runtime = unsupportedNode(process.versions.node);
  if (runtime !== undefined) {
    process.stderr.write(`start-up failed: ${runtime}\n`);
    process.exit(1);
  }
  let config;
  try {
    config = loadConfig();
    // What the configuration points at (DATA_DIR, PORT, REDIS_URL), before the devnet or anything else boots.
    await checkStartup(config);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`config error: ${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
  // The service's modules load only once the configuration stands, so a refusal does not wait for them.
  const { createLogger, startService } = await import('./service.js');
  const { flushStandardOutputLines } = await import('./observability/log-lines.js');
  const log = createLogger(config.logLevel);
  // The x402 SDK's console lines become JSON log lines like ours, secrets removed.
  routeSdkConsole(log, secretsOf(config.payment));
  try {
    const svc = await startService(config, { log });
    log.info({ url: svc.url, network: svc.payment.network, payTo: svc.payment.payTo, ledger: svc.ledger.kind }, `listening on ${svc.url}`);
    if (svc.devnet) {
      // After the lines logged so far (JSON lines below warn are kept for a moment before they are written), so the banner is last.
      flushStandardOutputLines();
      process.stdout.write(readyBanner(svc.url, config.dataDir));
    }
    let closing = false;
    const shutdown = async (signal: NodeJS.Signals) => {
      if (closing) {
        // A second signal means "now".
        log.warn({ signal }, 'second signal during shutdown: exiting at once');
        process.exit(1);
      }
      closing = true;
      // A close that hangs (a stalled database, a request that never ends) must not keep the process alive.
      log.info({ signal, drainMs: config.operations.shutdownDrainMs }, 'shutting down: readiness is 503, draining requests in flight');
      const graceMs = config.operations.shutdownDrainMs + SHUTDOWN_GRACE_MS;
      const force = setTimeout(() => {
        log.error({ graceMs }, 'shutdown did not finish in time: exiting anyway');
        process.exit(1);
      }, graceMs);
      try {
        await svc.close();
      } catch (e) {
        log.error({ err: e instanceof Error ? e.message : String(e) }, 'shutdown failed');
        process.exit(1);
      }
      clearTimeout(force);
      process.exit(0);
    };
    process.on('SIGINT', shutdown);
    process.on('SIGTERM', shutdown);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`config error: ${e.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`start-up failed: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
}

void main();
