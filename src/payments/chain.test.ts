/**
 * The chain reader against a real node (anvil with the devnet token): the
 * state of an authorization is read at one block, with that block's time,
 * never from a cached block number.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import { startDevnet } from '../../devnet/index.js';
import { authorizationTypedData } from './authorization.js';
import { rpcChainReader } from './chain.js';

test('rpc chain reader: unused authorization at the latest block, no transaction, EOA typed-data signatures checked by the node', async () => {
  const devnet = await startDevnet();
  try {
    const chain = rpcChainReader(devnet.rpcUrl, { logLookbackBlocks: 2n });
    const nonce = ('0x' + randomBytes(32).toString('hex')) as Hex;
    const st = await chain.authorizationState(devnet.asset, devnet.buyer.address, nonce);
    assert.equal(st.used, false);
    assert.ok(Math.abs(st.blockTime - Date.now() / 1000) < 600, `block time ${st.blockTime}`);
    assert.equal(await chain.authorizationTransaction(devnet.asset, devnet.buyer.address, nonce), undefined);
    const account = privateKeyToAccount(devnet.buyer.privateKey);
    const req = { scheme: 'exact', network: devnet.network, amount: '1', asset: devnet.asset, payTo: devnet.payTo, maxTimeoutSeconds: 60, extra: { name: devnet.assetName, version: devnet.assetVersion } };
    const auth = { from: account.address, to: devnet.payTo, value: '1', validAfter: '0', validBefore: '9999999999', nonce };
    const typed = authorizationTypedData(auth, req as never);
    const signature = await account.signTypedData(typed);
    assert.equal(await chain.verifyTypedData(account.address, typed as never, signature), true);
    assert.equal(await chain.verifyTypedData(devnet.payTo, typed as never, signature), false);
  } finally {
    await devnet.stop();
  }
});
