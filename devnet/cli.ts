// `npm run devnet`: one devnet (anvil + DevUSDC + the Solana runtime + the facilitator)
// for any number of service instances, running until SIGINT/SIGTERM.
//
// It prints the environment an instance needs to use it and writes it to
// ${DATA_DIR:-./data}/devnet.env (devnet/env.ts; README, Operating: Several instances
// on one devnet), and its facts (funded buyers, keys) to devnet.json beside it, which
// `npm run buy` reads. Both files go when it stops: they would point at a dead chain.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { toBase58 } from '../src/payments/chains/svm-transaction.js';
import { devnetRailEnv, envFileText } from './env.js';
import { startDevnet } from './index.js';
import { devnetMppSecret, devnetSigningKey } from './signing-key.js';

const dataDir = resolve(process.env.DATA_DIR || './data');
const jsonFile = join(dataDir, 'devnet.json');
const envFile = join(dataDir, 'devnet.env');
const svmFlag = process.env.DEVNET_SVM ?? '';
if (!['', '0', '1'].includes(svmFlag)) {
  process.stderr.write(`DEVNET_SVM must be 0 or 1, got "${svmFlag}"\n`);
  process.exit(1);
}

const devnet = await startDevnet({ log: (m) => console.error(`[devnet] ${m}`), svm: svmFlag !== '0' });

// Every instance signs receipts with one key and accepts the others' MPP and
// sign-in challenges; kept in devnet.json like the embedded devnet's (reused
// if a devnet that was killed left its file behind).
mkdirSync(dataDir, { recursive: true });
const signingKey = devnetSigningKey(jsonFile);
const mppSecretKey = devnetMppSecret(jsonFile);
const env = { ...devnetRailEnv(devnet), X402_SIGNING_KEY: signingKey, MPP_SECRET_KEY: mppSecretKey };

// Everything except stop(): a plain description of the running devnet. It holds the
// (publicly known) anvil and Solana devnet test keys and this devnet's own two secrets,
// never real keys. The Solana runtime by its facts (its signer and balance reader live
// in this process), secret keys as byte arrays (Solana keypair files' format), and the
// first buyer as `npm run buy -- --chain solana` reads it (the embedded devnet's form).
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
const solana = svm && { network: svm.network, rpcUrl: svm.rpcUrl, mint: svm.mint, payTo: svm.payTo, buyer: { address: svm.buyers[0]!.address, secretKey: toBase58(svm.buyers[0]!.secretKey) } };
const json = `${JSON.stringify({ ...description, ...(svmFacts && { svm: svmFacts, solana }), signingKey, mppSecretKey }, null, 2)}\n`;
const envText = envFileText(env, [
  `The devnet on chain ${devnet.chainInstance}, from \`npm run devnet\` (pid ${process.pid}); gone when it stops.`,
  `Each instance: set -a && . '${envFile}' && set +a && PORT=… DATA_DIR=… npm start (README, Operating).`,
]);

/** Readers never see half a file: written beside it, then renamed over it. */
function writeWhole(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}
writeWhole(jsonFile, json);
writeWhole(envFile, envText);
process.stdout.write(envText);
console.error(`[devnet] wrote ${envFile} and ${jsonFile}; Ctrl-C to stop`);

// The devnet's handles are unref'd (so tests can't hang on them); keep this process alive explicitly.
const keepAlive = setInterval(() => {}, 1 << 30);

/** Remove a file this devnet wrote, unless another one has replaced it since. */
function removeOwn(file: string, text: string): void {
  try {
    if (readFileSync(file, 'utf8') === text) rmSync(file);
  } catch {
    // already gone
  }
}

let shuttingDown = false;
async function shutdown(signal: string): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  console.error(`[devnet] ${signal}: stopping`);
  try {
    await stop();
  } finally {
    // Stale files would point instances and buyers at a dead chain.
    removeOwn(envFile, envText);
    removeOwn(jsonFile, json);
    clearInterval(keepAlive);
    process.exit(0);
  }
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
