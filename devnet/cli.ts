// Standalone devnet: `tsx devnet/cli.ts`.
// Starts anvil + DevUSDC + the facilitator, prints the connection details and writes
// them to ${DATA_DIR:-./data}/devnet.json so the service (or `npm run buy`) can pick
// them up, then runs until SIGINT/SIGTERM.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startDevnet } from './index.js';

const dataDir = resolve(process.env.DATA_DIR ?? './data');
const outFile = join(dataDir, 'devnet.json');

const devnet = await startDevnet({ log: (m) => console.error(`[devnet] ${m}`) });

// Everything except stop(): the file is a plain description of the running devnet.
// It contains the (publicly known) anvil test keys and must never hold real keys.
const { stop, ...description } = devnet;
const json = JSON.stringify(description, null, 2);
mkdirSync(dataDir, { recursive: true });
writeFileSync(outFile, `${json}\n`);
console.log(json);
console.error(`[devnet] wrote ${outFile}; Ctrl-C to stop`);

// The devnet's handles are unref'd (so tests can't hang on them); keep this process alive explicitly.
const keepAlive = setInterval(() => {}, 1 << 30);

let shuttingDown = false;
async function shutdown(signal: string): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  console.error(`[devnet] ${signal}: stopping`);
  try {
    await stop();
  } finally {
    // A stale file would point clients at a dead RPC.
    rmSync(outFile, { force: true });
    clearInterval(keepAlive);
    process.exit(0);
  }
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
