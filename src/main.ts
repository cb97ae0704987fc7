/**
 * Entry point: configuration from the environment, then the service.
 * A configuration problem prints one line naming the variable and exits 1.
 */
import pino from 'pino';
import { ConfigError, loadConfig } from './config.js';
import { startService } from './service.js';

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`config error: ${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
  const log = pino({ level: config.logLevel });
  try {
    const svc = await startService(config, { log });
    log.info({ url: svc.url, network: svc.payment.network, payTo: svc.payment.payTo, ledger: svc.ledger.kind }, `listening on ${svc.url}`);
    if (svc.devnet) {
      process.stdout.write(`\nService ready at ${svc.url} (devnet payment rail, chain 31337).\nTry a paid call:  npm run buy -- POST /x402/v1/accessibility-contrast-calculator '{"foreground":"#000000","background":"#ffffff","large_text":false}'\n\n`);
    }
    let closing = false;
    const shutdown = async () => {
      if (closing) return;
      closing = true;
      await svc.close().catch(() => {});
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
