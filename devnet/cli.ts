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
// It contains the (publicly known) anvil and SVM devnet test keys and must never hold
// real keys. The Solana devnet is described by its facts only (its signer, faults and
// balance reader live in this process); its secret keys as byte arrays, the
// format of Solana keypair files.
const { stop, svm, ...description } = devnet;
const svmFacts = svm && {
  network: svm.network,
  rpcUrl: svm.rpcUrl,
  mint: svm.mint,
  decimals: svm.decimals,
  payTo: svm.payTo,
  payToTokenAccount: svm.payToTokenAccount,
  feePayers: svm.feePayers,
  buyers: svm.buyers.map((b) => ({ address: b.address, secretKey: Array.from(b.secretKey) })),
};
const json = JSON.stringify({ ...description, ...(svmFacts ? { svm: svmFacts } : {}) }, null, 2);
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
