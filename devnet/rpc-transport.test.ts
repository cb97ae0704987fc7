// The devnet facilitator's JSON-RPC transport (node:http instead of fetch) must
// behave like viem's own http() transport: same results, same error classes,
// so the SDK's error handling (reverts, unknown methods, a node that is down)
// sees no difference. Also: the facilitator's per-request eth_getCode memo
// never carries a payer's code from one request into the next.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { x402Client } from '@x402/core/client';
import { HTTPFacilitatorClient } from '@x402/core/server';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { createPublicClient, http, type Hex, type PublicClient, type Transport } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devUsdcAbi } from './artifacts/abis.js';
import { startDevnet, type Devnet } from './index.js';
import { nodeHttpTransport } from './rpc-transport.js';

let devnet: Devnet;
const closers: Array<() => void> = [];

before(async () => {
  devnet = await startDevnet();
});

after(async () => {
  for (const close of closers) close();
  await devnet?.stop();
});

function ours(url: string): Transport {
  const rpc = nodeHttpTransport(url, { timeoutMs: 2000 });
  closers.push(rpc.close);
  return rpc.transport;
}

/** Both transports against the same node. */
function clients(url = devnet.rpcUrl): { viem: PublicClient; node: PublicClient } {
  return {
    viem: createPublicClient({ transport: http(url, { timeout: 2000 }) }),
    node: createPublicClient({ transport: ours(url) }),
  };
}

/** The error a call throws (its class name, code and short message), for comparing transports. */
async function failure(call: () => Promise<unknown>): Promise<{ name: string; code: unknown; shortMessage: string }> {
  try {
    await call();
  } catch (err) {
    const e = err as { name: string; code?: unknown; shortMessage?: string; cause?: { name?: string } };
    return { name: e.name, code: e.code, shortMessage: e.shortMessage ?? '' };
  }
  throw new Error('expected the call to fail');
}

describe('nodeHttpTransport answers like viem http()', () => {
  test('results: chain id, balances, contract reads', async () => {
    const { viem, node } = clients();
    assert.equal(await node.getChainId(), 31337);
    assert.equal(await node.getBalance({ address: devnet.payTo }), await viem.getBalance({ address: devnet.payTo }));
    const read = (c: typeof viem) => c.readContract({ address: devnet.asset, abi: devUsdcAbi, functionName: 'balanceOf', args: [devnet.buyer.address] });
    assert.equal(await read(node), await read(viem));
    assert.equal(await node.getCode({ address: devnet.buyer.address }), undefined);
  });

  test('concurrent requests each get their own answer', async () => {
    const { node } = clients();
    const addresses = [devnet.payTo, ...devnet.buyers.map((b) => b.address)];
    const balances = await Promise.all(addresses.map((address) => node.readContract({ address: devnet.asset, abi: devUsdcAbi, functionName: 'balanceOf', args: [address] })));
    const oneByOne: unknown[] = [];
    for (const address of addresses) oneByOne.push(await node.readContract({ address: devnet.asset, abi: devUsdcAbi, functionName: 'balanceOf', args: [address] }));
    assert.deepEqual(balances, oneByOne);
  });

  test('a JSON-RPC error (unknown method) is the same viem error', async () => {
    const { viem, node } = clients();
    const call = (c: typeof viem) => () => c.request({ method: 'eth_noSuchMethod' as 'eth_chainId' });
    const a = await failure(call(viem));
    const b = await failure(call(node));
    assert.deepEqual(b, a);
    assert.equal(b.code, -32601);
  });

  test('a reverted call is the same viem error, with the revert reason', async () => {
    const { viem, node } = clients();
    // Minting is reserved to the deployer: from anyone else it reverts.
    const call = (c: typeof viem) => () =>
      c.simulateContract({ account: devnet.buyer.address, address: devnet.asset, abi: devUsdcAbi, functionName: 'mint', args: [devnet.buyer.address, 1n] });
    const a = await failure(call(viem));
    const b = await failure(call(node));
    assert.equal(b.name, 'ContractFunctionExecutionError');
    assert.deepEqual(b, a);
  });

  test('a node that is not there is an HttpRequestError, not a hang', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const { port } = srv.address() as { port: number };
        srv.close(() => resolve(port));
      });
    });
    const { node } = clients(`http://127.0.0.1:${port}`);
    const e = await failure(() => node.getChainId());
    assert.equal(e.name, 'HttpRequestError');
  });
});

describe('facilitator: a payer code read is shared within one request only', () => {
  test('verify sees the payer become a contract, and an EOA again, between requests', async () => {
    const facilitator = new HTTPFacilitatorClient({ url: devnet.facilitatorUrl, timeoutMs: 30_000 });
    const req: PaymentRequirements = {
      scheme: 'exact',
      network: devnet.network,
      amount: '1000',
      asset: devnet.asset,
      payTo: devnet.payTo,
      maxTimeoutSeconds: 60,
      extra: { name: devnet.assetName, version: devnet.assetVersion },
    };
    const payer = devnet.buyers[3]!;
    const client = new x402Client().register('eip155:*', new ExactEvmScheme(privateKeyToAccount(payer.privateKey)));
    client.setSpendControls({ allowedAssets: [{ network: devnet.network, asset: devnet.asset }] });
    const payload: PaymentPayload = await client.createPaymentPayload({ x402Version: 2, resource: { url: 'http://127.0.0.1/t' }, accepts: [req] });
    const setCode = (code: Hex) => rpc('anvil_setCode', [payer.address, code]);

    assert.equal((await facilitator.verify(payload, req)).isValid, true);
    // Code without isValidSignature (a lone STOP): the SDK now asks ERC-1271, which fails.
    await setCode('0x00');
    try {
      const asContract = await facilitator.verify(payload, req);
      assert.equal(asContract.isValid, false, JSON.stringify(asContract));
    } finally {
      await setCode('0x');
    }
    assert.equal((await facilitator.verify(payload, req)).isValid, true);
  });
});

async function rpc(method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(devnet.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}
