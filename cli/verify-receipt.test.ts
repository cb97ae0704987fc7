/**
 * `npm run buy -- --save FILE` then `npm run verify-receipt -- FILE` against a
 * real paid call on the devnet: verified with the signer fetched from the
 * service's /.well-known/x402; one byte changed in the saved response or the
 * saved request, or another --signer, and it is not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startRig, tempDir } from '../test/support/harness.js';

const run = promisify(execFile);
const cli = (args: string[]) => run(process.execPath, ['--import', 'tsx', ...args], { env: { ...process.env } }).then((r) => ({ code: 0, ...r }), (e) => e as { code: number; stdout: string; stderr: string });

test('a saved paid response verifies; a tampered response or request does not', async () => {
  const key = generatePrivateKey();
  const rig = await startRig({ env: { X402_SIGNING_KEY: key } });
  try {
    const dir = tempDir('verify-');
    const file = join(dir, 'call.json');
    const body = '{"uri":"ipfs://ipfs/QmZHKZDavkvNfA9gSAg7HALv8jF7BJaKjUc9U2LSuvUySB"}'; // ipfs_gateway left to its schema default
    const bought = await run(process.execPath, ['--import', 'tsx', 'cli/buy.ts', '--url', rig.service.url, '--allow-asset', `${rig.devnet.network}:${rig.devnet.asset}`, '--save', file, 'POST', '/x402/v1/nft-metadata-uri-normalizer', body], {
      env: { ...process.env, DATA_DIR: tempDir('verify-none-'), BUYER_PRIVATE_KEY: rig.devnet.buyers[2]!.privateKey },
    });
    assert.match(bought.stdout, /^HTTP 200/);

    const ok = await cli(['cli/verify-receipt.ts', file]);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, new RegExp(`^VERIFIED: signed by ${privateKeyToAccount(key).address}`));
    assert.match(ok.stdout, /transaction: 0x[0-9a-f]{64}/);

    const saved = JSON.parse(readFileSync(file, 'utf8'));
    const bytes = Buffer.from(saved.response.body_base64, 'base64');
    bytes[5] ^= 1;
    const badResponse = join(dir, 'bad-response.json');
    writeFileSync(badResponse, JSON.stringify({ ...saved, response: { ...saved.response, body_base64: bytes.toString('base64') } }));
    const r1 = await cli(['cli/verify-receipt.ts', badResponse]);
    assert.equal(r1.code, 1);
    assert.match(r1.stdout, /NOT VERIFIED[\s\S]*response bytes/);

    const badRequest = join(dir, 'bad-request.json');
    writeFileSync(badRequest, JSON.stringify({ ...saved, request: { ...saved.request, body: body.replace('QmZH', 'QmZJ') } }));
    const r2 = await cli(['cli/verify-receipt.ts', badRequest]);
    assert.equal(r2.code, 1);
    assert.match(r2.stdout, /NOT VERIFIED[\s\S]*request fingerprints/);

    const r3 = await cli(['cli/verify-receipt.ts', '--signer', privateKeyToAccount(generatePrivateKey()).address, file]);
    assert.equal(r3.code, 1);
    assert.match(r3.stdout, /not signed by/);

    const usage = await cli(['cli/verify-receipt.ts']);
    assert.equal(usage.code, 2);
  } finally {
    await rig.close();
  }
});
