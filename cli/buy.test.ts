/**
 * `npm run buy` against a real server on the devnet: with the local
 * devnet.json (as after `npm start`), and against "any x402 v2 server" with
 * --url and BUYER_PRIVATE_KEY. An offer the SDK's spend controls refuse (an
 * asset it does not know, a price over --max) stops with one line naming the
 * flag that would pay it, and nothing is paid.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { balanceOf, startRig, tempDir } from '../test/support/harness.js';
import { toBase58 } from '../src/payments/chains/svm-transaction.js';

const run = promisify(execFile);

test('buy pays, prints the result and the settlement receipt', async () => {
  const dataDir = tempDir('buy-');
  const rig = await startRig({ dataDir });
  try {
    const { devnet } = rig;
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'devnet.json'), JSON.stringify({ network: devnet.network, asset: devnet.asset, buyer: devnet.buyer }));
    const body = '{"foreground":"#000000","background":"#ffffff","large_text":false}';
    const before = await balanceOf(devnet, devnet.payTo);
    // A second terminal: no PORT, only the data directory, where the service announced its URL.
    assert.equal(JSON.parse(readFileSync(join(dataDir, 'service.json'), 'utf8')).url, rig.service.url);
    const local = await run(process.execPath, ['--import', 'tsx', 'cli/buy.ts', 'POST', '/x402/v1/accessibility-contrast-calculator', body], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: '', BUYER_PRIVATE_KEY: '' },
    });
    assert.match(local.stdout, /^HTTP 200/);
    assert.match(local.stdout, /"contrast_ratio": 21/);
    assert.match(local.stdout, /transaction: 0x[0-9a-f]{64}/);
    // Any other server (--url): the devnet token is not an asset the SDK pays by default. One line names
    // what was asked and the flag to add; nothing is paid; the flag as printed then pays.
    const remoteEnv = { env: { ...process.env, DATA_DIR: tempDir('buy-none-'), BUYER_PRIVATE_KEY: devnet.buyers[1]!.privateKey } };
    const refused = await run(process.execPath, ['--import', 'tsx', 'cli/buy.ts', '--url', rig.service.url, 'POST', '/x402/v1/accessibility-contrast-calculator', body], remoteEnv).catch((e) => e);
    assert.equal(refused.code, 2);
    assert.equal(refused.stdout, '');
    const refusal = String(refused.stderr).split('\n').filter((l) => l.startsWith('buy refused'));
    assert.equal(refusal.length, 1, refused.stderr);
    assert.equal(
      refusal[0],
      `buy refused, nothing paid: the server asks 1000 atomic units of ${devnet.asset} on ${devnet.network}, an asset this buyer does not pay unless told to; if you trust it, run again with --allow-asset ${devnet.network}:${devnet.asset}`,
    );
    assert.doesNotMatch(refused.stderr, /spendControls/, 'the SDK\'s own wording is not shown');
    assert.equal((await balanceOf(devnet, devnet.payTo)) - before, 1000n, 'nothing paid but the local call');
    const flag = /run again with (--allow-asset) (\S+)$/.exec(refusal[0]!)!;
    // Over the price cap (--max): the same kind of line, naming the --max that would pay it.
    const capped = await run(process.execPath, ['--import', 'tsx', 'cli/buy.ts', '--url', rig.service.url, flag[1]!, flag[2]!, '--max', '999', 'POST', '/x402/v1/accessibility-contrast-calculator', body], remoteEnv).catch((e) => e);
    assert.equal(capped.code, 2);
    assert.match(capped.stderr, new RegExp(`^buy refused, nothing paid: the server asks 1000 atomic units of ${devnet.asset} on ${devnet.network}, more than the 999 atomic units this buyer pays at most \\(--max\\); to pay it, run again with --max 1000$`, 'm'));
    assert.equal((await balanceOf(devnet, devnet.payTo)) - before, 1000n, 'nothing paid but the local call');
    const remote = await run(process.execPath, ['--import', 'tsx', 'cli/buy.ts', '--url', rig.service.url, flag[1]!, flag[2]!, 'POST', '/x402/v1/accessibility-contrast-calculator', body], remoteEnv);
    assert.match(remote.stdout, /^HTTP 200/);
    assert.match(remote.stdout, new RegExp(`payer:\\s+${devnet.buyers[1]!.address}`, 'i'));
    assert.equal((await balanceOf(devnet, devnet.payTo)) - before, 2000n);
    // The answer was lost: the same command with the payment-identifier it printed gets the result again, not charged twice.
    const id = /payment-identifier (\S+)/.exec(local.stderr)![1]!;
    const again = await run(process.execPath, ['--import', 'tsx', 'cli/buy.ts', '--payment-id', id, 'POST', '/x402/v1/accessibility-contrast-calculator', body], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: '', BUYER_PRIVATE_KEY: '' },
    });
    assert.match(again.stdout, /^HTTP 200/);
    assert.equal(/transaction: (0x[0-9a-f]{64})/.exec(again.stdout)![1], /transaction: (0x[0-9a-f]{64})/.exec(local.stdout)![1], 'the first settlement');
    assert.equal((await balanceOf(devnet, devnet.payTo)) - before, 2000n, 'not charged again');
    const badId = await run(process.execPath, ['--import', 'tsx', 'cli/buy.ts', '--payment-id', 'short', 'POST', '/x'], { env: { ...process.env } }).catch((e) => e);
    assert.equal(badId.code, 2);
    assert.match(badId.stderr, /--payment-id takes/);
    const noKey = await run(process.execPath, ['--import', 'tsx', 'cli/buy.ts', '--url', rig.service.url, 'POST', '/x'], { env: { ...process.env, BUYER_PRIVATE_KEY: '' } }).catch((e) => e);
    assert.equal(noKey.code, 2);
    assert.match(noKey.stderr, /BUYER_PRIVATE_KEY is required/);
    const unknownFlag = await run(process.execPath, ['--import', 'tsx', 'cli/buy.ts', '--urll', rig.service.url, 'POST', '/x'], { env: { ...process.env } }).catch((e) => e);
    assert.equal(unknownFlag.code, 2);
    assert.match(unknownFlag.stderr, /Unknown option '--urll'[\s\S]*usage: npm run buy/);
  } finally {
    await rig.close();
  }
  assert.equal(existsSync(join(dataDir, 'service.json')), false, 'a closed service withdraws its announcement');
});

test('buy --chain solana pays the 402\'s Solana entry with the devnet\'s Solana buyer', async () => {
  const dataDir = tempDir('buy-sol-');
  const rig = await startRig({ dataDir });
  try {
    const svm = rig.devnet.svm!;
    const buyer = svm.buyers[0]!;
    writeFileSync(
      join(dataDir, 'devnet.json'),
      JSON.stringify({ network: rig.devnet.network, asset: rig.devnet.asset, buyer: rig.devnet.buyer, solana: { network: svm.network, rpcUrl: svm.rpcUrl, mint: svm.mint, buyer: { address: buyer.address, secretKey: toBase58(buyer.secretKey) } } }),
    );
    const before = svm.tokenBalance(svm.payTo);
    const body = '{"foreground":"#000000","background":"#ffffff","large_text":false}';
    const out = await run(process.execPath, ['--import', 'tsx', 'cli/buy.ts', '--chain', 'solana', 'POST', '/x402/v1/accessibility-contrast-calculator', body], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: '', BUYER_SOLANA_KEY: '' },
    });
    assert.match(out.stdout, /^HTTP 200/);
    assert.match(out.stdout, /network:\s+solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1/);
    assert.match(out.stdout, new RegExp(`payer:\\s+${buyer.address}`));
    assert.equal(svm.tokenBalance(svm.payTo) - before, 1000n);
    // Against it as any server (--url, BUYER_SOLANA_KEY). Its mint is the SDK's own devnet USDC, paid
    // without --allow-asset; a price over --max stops with the line naming the --max that pays it.
    const remoteEnv = { env: { ...process.env, DATA_DIR: tempDir('buy-sol-none-'), BUYER_SOLANA_KEY: toBase58(svm.buyers[1]!.secretKey), SOLANA_RPC_URL: svm.rpcUrl } };
    const remoteArgs = ['--chain', 'solana', '--url', rig.service.url, 'POST', '/x402/v1/accessibility-contrast-calculator', body];
    const capped = await run(process.execPath, ['--import', 'tsx', 'cli/buy.ts', '--max', '999', ...remoteArgs], remoteEnv).catch((e) => e);
    assert.equal(capped.code, 2);
    assert.match(capped.stderr, new RegExp(`^buy refused, nothing paid: the server asks 1000 atomic units of ${svm.mint} on ${svm.network}, more than the 999 atomic units this buyer pays at most \\(--max\\); to pay it, run again with --max 1000$`, 'm'));
    assert.equal(svm.tokenBalance(svm.payTo) - before, 1000n, 'nothing paid');
    // --allow-asset takes a Solana mint too (the form the refusal line prints for a mint the SDK does not know).
    const allowed = await run(process.execPath, ['--import', 'tsx', 'cli/buy.ts', '--allow-asset', `${svm.network}:${svm.mint}`, ...remoteArgs], remoteEnv);
    assert.match(allowed.stdout, /^HTTP 200/);
    assert.equal(svm.tokenBalance(svm.payTo) - before, 2000n);
    const badAsset = await run(process.execPath, ['--import', 'tsx', 'cli/buy.ts', '--allow-asset', `${svm.network}:0x5FbDB2315678afecb367f032d93F642f64180aa3`, ...remoteArgs], remoteEnv).catch((e) => e);
    assert.equal(badAsset.code, 2);
    assert.match(badAsset.stderr, /--allow-asset takes NETWORK:ADDRESS/);
    const badChain = await run(process.execPath, ['--import', 'tsx', 'cli/buy.ts', '--chain', 'tron', 'POST', '/x'], { env: { ...process.env } }).catch((e) => e);
    assert.equal(badChain.code, 2);
    assert.match(badChain.stderr, /--chain takes evm or solana/);
    const badKey = await run(process.execPath, ['--import', 'tsx', 'cli/buy.ts', '--chain', 'solana', '--url', rig.service.url, 'POST', '/x'], { env: { ...process.env, BUYER_SOLANA_KEY: 'nope' } }).catch((e) => e);
    assert.equal(badKey.code, 2);
    assert.match(badKey.stderr, /BUYER_SOLANA_KEY must be a base58 64-byte secret key/);
  } finally {
    await rig.close();
  }
});
