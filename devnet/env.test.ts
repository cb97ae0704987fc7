/**
 * `npm run devnet`'s environment (env.ts) is one the configuration takes
 * whole, pointing an instance at exactly that devnet, and its file reads the
 * same through sh (`set -a && . file`) and through a dotenv reader (node's).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../src/config.js';
import { devnetRailEnv, envFileText, type DevnetRail } from './env.js';

const run = promisify(execFile);

const DEVNET: DevnetRail = {
  network: 'eip155:31337',
  payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  facilitatorUrl: 'http://127.0.0.1:38895',
  rpcUrl: 'http://127.0.0.1:44217',
  asset: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  assetName: 'USD Coin',
  assetVersion: '2',
  decimals: 6,
  svm: { network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', payTo: 'CBWSDFwN7FnPmEjSgCFSz1Lzw3pGRj72iXcZWk9dEXHQ', rpcUrl: 'http://127.0.0.1:36735' },
};
const KEYS = { X402_SIGNING_KEY: '0x' + '5'.repeat(64), MPP_SECRET_KEY: 'd'.repeat(64) };

test('the devnet environment is taken whole by the configuration, and points the instance at that devnet', () => {
  const env = { ...devnetRailEnv(DEVNET), ...KEYS };
  const config = loadConfig(env);
  assert.equal(config.rail, 'external');
  const p = config.payment!;
  assert.deepEqual(
    [p.network, p.payTo, p.facilitatorUrls, p.rpcUrl, p.asset],
    [DEVNET.network, DEVNET.payTo, [DEVNET.facilitatorUrl], DEVNET.rpcUrl, { address: DEVNET.asset, name: 'USD Coin', version: '2', decimals: 6, symbol: 'USDC' }],
  );
  assert.deepEqual([p.solana?.network, p.solana?.payTo, p.solana?.rpcUrl, p.solana?.asset.address], [DEVNET.svm!.network, DEVNET.svm!.payTo, DEVNET.svm!.rpcUrl, '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU']);
  assert.deepEqual([config.signingKey, config.mppSecretKey], [KEYS.X402_SIGNING_KEY, KEYS.MPP_SECRET_KEY]);
  // Without the Solana runtime (DEVNET_SVM=0) the instance offers the EVM chain only.
  assert.equal(loadConfig(devnetRailEnv({ ...DEVNET, svm: undefined })).payment!.solana, undefined);
});

test('devnet.env reads back the same through sh (set -a && . file) and through node --env-file', async () => {
  const env = { ...devnetRailEnv(DEVNET), ...KEYS };
  const dir = mkdtempSync(join(tmpdir(), 'devnet-env-'));
  const file = join(dir, 'devnet.env');
  writeFileSync(file, envFileText(env, ["a comment with 'quotes'"]));
  const names = Object.keys(env);
  const clean = { PATH: process.env.PATH ?? '' };
  const viaSh = await run('sh', ['-c', `set -a && . ./devnet.env && set +a && node -e 'console.log(JSON.stringify(Object.fromEntries(${JSON.stringify(names)}.map((n) => [n, process.env[n]]))))'`], { cwd: dir, env: clean });
  assert.deepEqual(JSON.parse(viaSh.stdout), env);
  const viaNode = await run(process.execPath, [`--env-file=${file}`, '-e', `console.log(JSON.stringify(Object.fromEntries(${JSON.stringify(names)}.map((n) => [n, process.env[n]]))))`], { env: clean });
  assert.deepEqual(JSON.parse(viaNode.stdout), env);
  assert.throws(() => envFileText({ X402_ASSET_NAME: "it's" }), /holds a quote/);
});
