// End-to-end proof that the devnet is a faithful x402 rail: the official client signs,
// the official HTTPFacilitatorClient talks to our facilitator server, and the money
// really moves on anvil. Also covers the token's EIP-3009 surface directly and the
// fault-injecting proxy used by the service's resilience tests.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { x402Client } from '@x402/core/client';
import { HTTPFacilitatorClient } from '@x402/core/server';
import {
  FacilitatorTimeoutError,
  SettleError,
  VerifyError,
  type PaymentPayload,
  type PaymentRequirements,
} from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import {
  createWalletClient,
  domainSeparator,
  http,
  parseEventLogs,
  parseSignature,
  publicActions,
  serializeSignature,
  toHex,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { devUsdcAbi } from './artifacts/abis.js';
import {
  authorizationState,
  balanceOf,
  devnetAccount,
  findAuthorizationUsedTx,
  MULTICALL3_ADDRESS,
  startDevnet,
  transferLogs,
  type Devnet,
  type DevnetAccount,
} from './index.js';
import { startFaultyFacilitator, type FaultyFacilitator } from '../test/support/faulty-facilitator.js';
import { PUBLIC_TEST_WALLETS } from '../src/payments/own-wallets.js';

// Reason strings of @x402/evm 2.27 (opaque to the service, but pinned here so an SDK
// upgrade that changes them is noticed).
const NONCE_USED = 'invalid_exact_evm_nonce_already_used';
const VALUE_MISMATCH = 'invalid_exact_evm_payload_authorization_value_mismatch';

const transferWithAuthorizationTypes = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

const receiveWithAuthorizationTypes = {
  ReceiveWithAuthorization: transferWithAuthorizationTypes.TransferWithAuthorization,
} as const;

const cancelAuthorizationTypes = {
  CancelAuthorization: [
    { name: 'authorizer', type: 'address' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/** secp256k1 group order, for building the malleable twin of a signature. */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

let devnet: Devnet;
let facilitator: HTTPFacilitatorClient;

before(async () => {
  devnet = await startDevnet();
  facilitator = new HTTPFacilitatorClient({ url: devnet.facilitatorUrl, timeoutMs: 30_000 });
});

after(async () => {
  await devnet?.stop();
});

function requirements(overrides: Partial<PaymentRequirements> = {}): PaymentRequirements {
  return {
    scheme: 'exact',
    network: devnet.network,
    amount: '1000',
    asset: devnet.asset,
    payTo: devnet.payTo,
    maxTimeoutSeconds: 60,
    extra: { name: devnet.assetName, version: devnet.assetVersion },
    ...overrides,
  };
}

/** What a buyer agent does on a 402: the official client picks the requirement and signs. */
async function createPayment(req: PaymentRequirements, buyer: DevnetAccount = devnet.buyer): Promise<PaymentPayload> {
  const client = new x402Client().register('eip155:*', new ExactEvmScheme(privateKeyToAccount(buyer.privateKey)));
  // The SDK only pays assets it knows (mainnet USDC & co.) unless told otherwise.
  client.setSpendControls({ allowedAssets: [{ network: devnet.network, asset: devnet.asset }] });
  return client.createPaymentPayload({ x402Version: 2, resource: { url: 'http://127.0.0.1/test' }, accepts: [req] });
}

function authorizationOf(p: PaymentPayload): { from: Hex; nonce: Hex } {
  const auth = (p.payload as { authorization: { from: Hex; nonce: Hex } }).authorization;
  return { from: auth.from, nonce: auth.nonce };
}

/** A wallet for an anvil account (all of them hold 10,000 ETH for gas). */
function walletFor(account: DevnetAccount) {
  return createWalletClient({
    account: privateKeyToAccount(account.privateKey),
    chain: { ...foundry, rpcUrls: { default: { http: [devnet.rpcUrl] } } },
    transport: http(devnet.rpcUrl),
    pollingInterval: 50,
  }).extend(publicActions);
}

function randomNonce(): Hex {
  return toHex(randomBytes(32));
}

function domain() {
  return { name: 'USD Coin', version: '2', chainId: 31337, verifyingContract: devnet.asset } as const;
}

describe('devnet basics', () => {
  test('chain, token metadata, EIP-712 domain and funding', async () => {
    assert.equal(devnet.chainId, 31337);
    assert.equal(devnet.network, 'eip155:31337');
    const pub = walletFor(devnetAccount(9));
    assert.equal(await pub.getChainId(), 31337);
    const read = <F extends 'name' | 'version' | 'decimals' | 'DOMAIN_SEPARATOR'>(functionName: F) =>
      pub.readContract({ address: devnet.asset, abi: devUsdcAbi, functionName });
    assert.equal(await read('name'), 'USD Coin');
    assert.equal(await read('version'), '2');
    assert.equal(await read('decimals'), 6);
    // The on-chain separator must equal the one the SDK's signer computes off-chain.
    assert.equal(await read('DOMAIN_SEPARATOR'), domainSeparator({ domain: domain() }));
    const [fields, name, version, chainId, verifyingContract] = await pub.readContract({
      address: devnet.asset,
      abi: devUsdcAbi,
      functionName: 'eip712Domain',
    });
    assert.deepEqual([fields, name, version, chainId, verifyingContract], ['0x0f', 'USD Coin', '2', 31337n, devnet.asset]);

    assert.equal(devnet.buyers.length, 4);
    assert.deepEqual(devnet.buyer, devnet.buyers[0]);
    // Every account the devnet uses is one of the published test wallets that never count as independent buyers.
    assert.deepEqual(Array.from({ length: 10 }, (_, i) => devnetAccount(i).address.toLowerCase()), PUBLIC_TEST_WALLETS);
    for (const a of [devnet.payTo, devnet.facilitatorAddress, ...devnet.facilitatorSigners, ...devnet.buyers.map((b) => b.address)]) assert.ok(PUBLIC_TEST_WALLETS.includes(a.toLowerCase()), a);
    for (const b of devnet.buyers) assert.equal(await balanceOf(devnet, b.address), 1_000_000_000_000n);
    assert.equal(await balanceOf(devnet, devnet.payTo), 0n);
    assert.notEqual(await pub.getCode({ address: MULTICALL3_ADDRESS }), undefined);
  });

  test('GET /supported through HTTPFacilitatorClient', async () => {
    const supported = await facilitator.getSupported();
    assert.ok(supported.kinds.some((k) => k.x402Version === 2 && k.scheme === 'exact' && k.network === 'eip155:31337'));
    assert.ok(supported.signers['eip155:*']?.includes(devnet.facilitatorAddress));
  });
});

describe('x402 exact payment through the facilitator', () => {
  let payment: PaymentPayload;
  let settledTx: string;
  let payToAfterFirstSettle: bigint;

  test('verify then settle moves exactly the amount and consumes the nonce', async () => {
    const req = requirements();
    payment = await createPayment(req);
    const { from, nonce } = authorizationOf(payment);
    assert.equal(from, devnet.buyer.address);

    const before = await balanceOf(devnet, devnet.payTo);
    const buyerBefore = await balanceOf(devnet, devnet.buyer.address);

    const verified = await facilitator.verify(payment, req);
    assert.equal(verified.isValid, true, JSON.stringify(verified));
    assert.equal(verified.payer, devnet.buyer.address);
    assert.equal(await authorizationState(devnet.rpcUrl, devnet.asset, from, nonce), false, 'verify must not consume');

    const settled = await facilitator.settle(payment, req);
    assert.equal(settled.success, true, JSON.stringify(settled));
    assert.match(settled.transaction, /^0x[0-9a-f]{64}$/);
    assert.equal(settled.network, 'eip155:31337');
    assert.equal(settled.payer, devnet.buyer.address);
    settledTx = settled.transaction;

    payToAfterFirstSettle = await balanceOf(devnet, devnet.payTo);
    assert.equal(payToAfterFirstSettle - before, 1000n);
    assert.equal(buyerBefore - (await balanceOf(devnet, devnet.buyer.address)), 1000n);
    assert.equal(await authorizationState(devnet.rpcUrl, devnet.asset, from, nonce), true);
    assert.equal(await findAuthorizationUsedTx(devnet.rpcUrl, devnet.asset, from, nonce), settledTx);

    const logs = await transferLogs(devnet, { to: devnet.payTo });
    const mine = logs.filter((l) => l.txHash === settledTx);
    assert.equal(mine.length, 1);
    assert.equal(mine[0].from, devnet.buyer.address);
    assert.equal(mine[0].value, 1000n);
  });

  test('settling the same payload again fails and moves nothing', async () => {
    const req = requirements();
    let outcome: { success: boolean; errorReason?: string } | undefined;
    try {
      outcome = await facilitator.settle(payment, req);
    } catch (err) {
      // A facilitator may also answer non-2xx; either way it must not succeed.
      assert.ok(err instanceof SettleError, String(err));
      outcome = { success: false, errorReason: err.errorReason };
    }
    assert.equal(outcome.success, false);
    assert.equal(outcome.errorReason, NONCE_USED);
    assert.equal(await balanceOf(devnet, devnet.payTo), payToAfterFirstSettle);
  });

  test('verify of a used authorization is rejected (diagnosed through Multicall3)', async () => {
    // The simulation fails; the SDK then batches balance/name/version/authorizationState
    // through Multicall3.tryAggregate to explain why.
    const verified = await facilitator.verify(payment, requirements());
    assert.equal(verified.isValid, false);
    assert.equal(verified.invalidReason, NONCE_USED);
  });

  test('a payload for another amount or payee fails verify', async () => {
    const payload = await createPayment(requirements({ amount: '1000' }), devnet.buyers[1]);
    const wrongAmount = await facilitator.verify(payload, requirements({ amount: '2000' }));
    assert.equal(wrongAmount.isValid, false);
    assert.equal(wrongAmount.invalidReason, VALUE_MISMATCH);

    const wrongPayee = await facilitator.verify(payload, requirements({ payTo: devnetAccount(8).address }));
    assert.equal(wrongPayee.isValid, false);

    const before = await balanceOf(devnet, devnet.payTo);
    const settled = await facilitator.settle(payload, requirements({ amount: '2000' }));
    assert.equal(settled.success, false);
    assert.equal(settled.transaction, '');
    assert.equal(await balanceOf(devnet, devnet.payTo), before);
  });

  test('an authorization about to expire fails verify', async () => {
    // The SDK wants at least 6 s of validity left.
    const payload = await createPayment(requirements({ maxTimeoutSeconds: 3 }), devnet.buyers[1]);
    const verified = await facilitator.verify(payload, requirements({ maxTimeoutSeconds: 3 }));
    assert.equal(verified.isValid, false);
  });

  test('malformed requests get 400 with a VerifyResponse body', async () => {
    const res = await fetch(`${devnet.facilitatorUrl}/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ x402Version: 2, paymentPayload: { nope: true }, paymentRequirements: requirements() }),
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { isValid: boolean; invalidReason: string };
    assert.equal(body.isValid, false);
    assert.equal(body.invalidReason, 'invalid_request');
  });

  test('concurrent settlements of distinct payments all land (no nonce collisions)', async () => {
    const req = requirements({ amount: '7' });
    const payloads = await Promise.all(devnet.buyers.map((b) => createPayment(req, b)));
    const before = await balanceOf(devnet, devnet.payTo);
    const results = await Promise.all(payloads.map((p) => facilitator.settle(p, req)));
    for (const r of results) assert.equal(r.success, true, JSON.stringify(r));
    assert.equal(new Set(results.map((r) => r.transaction)).size, payloads.length);
    assert.equal((await balanceOf(devnet, devnet.payTo)) - before, 7n * BigInt(payloads.length));
  });
});

describe('DevUSDC EIP-3009 entry points called directly', () => {
  const relayer = () => devnetAccount(6);

  test('transferWithAuthorization with a bytes signature', async () => {
    const payer = devnet.buyers[1];
    const to = devnetAccount(8).address;
    const nonce = randomNonce();
    const validBefore = BigInt(Math.floor(Date.now() / 1000) + 300);
    const message = { from: payer.address, to, value: 2500n, validAfter: 0n, validBefore, nonce };
    const signature = await privateKeyToAccount(payer.privateKey).signTypedData({
      domain: domain(),
      types: transferWithAuthorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message,
    });
    const args = [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce] as const;
    const wallet = walletFor(relayer());

    // The malleable twin (s' = n - s, v flipped) recovers the same signer; the token must refuse it.
    const { r, s, yParity } = parseSignature(signature);
    const twin = serializeSignature({ r, s: toHex(SECP256K1_N - BigInt(s), { size: 32 }), yParity: 1 - (yParity ?? 0) });
    await assert.rejects(
      wallet.writeContract({ address: devnet.asset, abi: devUsdcAbi, functionName: 'transferWithAuthorization', args: [...args, twin] }),
      /invalid signature/,
    );
    // Only 65-byte ECDSA signatures for EOAs.
    await assert.rejects(
      wallet.writeContract({
        address: devnet.asset,
        abi: devUsdcAbi,
        functionName: 'transferWithAuthorization',
        args: [...args, signature.slice(0, 130) as Hex],
      }),
      /invalid signature/,
    );

    const before = await balanceOf(devnet, to);
    const hash = await wallet.writeContract({
      address: devnet.asset,
      abi: devUsdcAbi,
      functionName: 'transferWithAuthorization',
      args: [...args, signature],
    });
    const receipt = await wallet.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    assert.equal((await balanceOf(devnet, to)) - before, 2500n);
    const used = parseEventLogs({ abi: devUsdcAbi, eventName: 'AuthorizationUsed', logs: receipt.logs });
    assert.equal(used.length, 1);
    assert.deepEqual(used[0].args, { authorizer: payer.address, nonce });
    assert.equal(await authorizationState(devnet.rpcUrl, devnet.asset, payer.address, nonce), true);
    assert.equal(await findAuthorizationUsedTx(devnet.rpcUrl, devnet.asset, payer.address, nonce), hash);

    // Replay of the exact same call.
    await assert.rejects(
      wallet.writeContract({ address: devnet.asset, abi: devUsdcAbi, functionName: 'transferWithAuthorization', args: [...args, signature] }),
      /authorization is used or canceled/,
    );
  });

  test('cancelAuthorization voids a signed authorization', async () => {
    const payer = devnet.buyers[2];
    const account = privateKeyToAccount(payer.privateKey);
    const nonce = randomNonce();
    const cancelSig = await account.signTypedData({
      domain: domain(),
      types: cancelAuthorizationTypes,
      primaryType: 'CancelAuthorization',
      message: { authorizer: payer.address, nonce },
    });
    const { r, s, v } = parseSignature(cancelSig);
    const wallet = walletFor(relayer());
    const hash = await wallet.writeContract({
      address: devnet.asset,
      abi: devUsdcAbi,
      functionName: 'cancelAuthorization',
      args: [payer.address, nonce, Number(v), r, s],
    });
    const receipt = await wallet.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    const canceled = parseEventLogs({ abi: devUsdcAbi, eventName: 'AuthorizationCanceled', logs: receipt.logs });
    assert.deepEqual(canceled[0]?.args, { authorizer: payer.address, nonce });
    assert.equal(await authorizationState(devnet.rpcUrl, devnet.asset, payer.address, nonce), true);
    // Canceled is not "used": the reconciler must not mistake it for a payment.
    assert.equal(await findAuthorizationUsedTx(devnet.rpcUrl, devnet.asset, payer.address, nonce), undefined);

    // A payment signed with the canceled nonce is dead, at the facilitator and on chain.
    const req = requirements();
    const authorization = {
      from: payer.address,
      to: devnet.payTo,
      value: '1000',
      validAfter: '0',
      validBefore: String(Math.floor(Date.now() / 1000) + 60),
      nonce,
    };
    const signature = await account.signTypedData({
      domain: domain(),
      types: transferWithAuthorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message: { ...authorization, value: 1000n, validAfter: 0n, validBefore: BigInt(authorization.validBefore) },
    });
    const payload: PaymentPayload = { x402Version: 2, accepted: req, payload: { authorization, signature } };
    const verified = await facilitator.verify(payload, req);
    assert.equal(verified.isValid, false);
    assert.equal(verified.invalidReason, NONCE_USED);

    // Canceling twice is refused too (bytes overload).
    await assert.rejects(
      wallet.writeContract({
        address: devnet.asset,
        abi: devUsdcAbi,
        functionName: 'cancelAuthorization',
        args: [payer.address, nonce, cancelSig],
      }),
      /authorization is used or canceled/,
    );
  });

  test('receiveWithAuthorization can only be submitted by the payee', async () => {
    const payer = devnet.buyers[3];
    const payee = devnetAccount(7);
    const nonce = randomNonce();
    const message = {
      from: payer.address,
      to: payee.address,
      value: 42n,
      validAfter: 0n,
      validBefore: BigInt(Math.floor(Date.now() / 1000) + 300),
      nonce,
    };
    const signature = await privateKeyToAccount(payer.privateKey).signTypedData({
      domain: domain(),
      types: receiveWithAuthorizationTypes,
      primaryType: 'ReceiveWithAuthorization',
      message,
    });
    const args = [message.from, message.to, message.value, message.validAfter, message.validBefore, nonce, signature] as const;
    await assert.rejects(
      walletFor(relayer()).writeContract({ address: devnet.asset, abi: devUsdcAbi, functionName: 'receiveWithAuthorization', args }),
      /caller must be the payee/,
    );
    const wallet = walletFor(payee);
    const before = await balanceOf(devnet, payee.address);
    const hash = await wallet.writeContract({ address: devnet.asset, abi: devUsdcAbi, functionName: 'receiveWithAuthorization', args });
    assert.equal((await wallet.waitForTransactionReceipt({ hash })).status, 'success');
    assert.equal((await balanceOf(devnet, payee.address)) - before, 42n);
  });

  test('only the deployer can mint', async () => {
    await assert.rejects(
      walletFor(relayer()).writeContract({
        address: devnet.asset,
        abi: devUsdcAbi,
        functionName: 'mint',
        args: [relayer().address, 1n],
      }),
      /caller is not the minter/,
    );
  });
});

describe('faulty facilitator proxy', () => {
  let proxy: FaultyFacilitator;
  let viaProxy: HTTPFacilitatorClient;

  before(async () => {
    proxy = await startFaultyFacilitator(devnet.facilitatorUrl);
    viaProxy = new HTTPFacilitatorClient({ url: proxy.url, timeoutMs: 1500 });
  });
  after(async () => {
    await proxy?.close();
  });

  test('pass forwards and counts', async () => {
    proxy.resetCalls();
    const supported = await viaProxy.getSupported();
    assert.ok(supported.kinds.length > 0);
    const req = requirements();
    const payload = await createPayment(req, devnet.buyers[1]);
    assert.equal((await viaProxy.verify(payload, req)).isValid, true);
    assert.deepEqual({ ...proxy.calls }, { verify: 1, settle: 0, supported: 1 });
    assert.deepEqual({ ...proxy.forwarded }, { verify: 1, settle: 0, supported: 1 });
  });

  test('down: the client sees a network error, nothing is forwarded', async () => {
    proxy.resetCalls();
    proxy.setMode('down');
    const req = requirements();
    const payload = await createPayment(req, devnet.buyers[1]);
    await assert.rejects(viaProxy.verify(payload, req), (err: Error) => !(err instanceof VerifyError));
    await assert.rejects(viaProxy.settle(payload, req), (err: Error) => !(err instanceof SettleError));
    assert.equal(proxy.calls.settle, 1);
    assert.equal(proxy.forwarded.settle, 0);
    assert.equal(await authorizationState(devnet.rpcUrl, devnet.asset, ...nonceArgs(payload)), false);
  });

  test('error500: a plain Error mentioning the status (not VerifyError/SettleError)', async () => {
    proxy.setMode('error500');
    const req = requirements();
    const payload = await createPayment(req, devnet.buyers[1]);
    await assert.rejects(viaProxy.verify(payload, req), (err: Error) => !(err instanceof VerifyError) && /\(500\)/.test(err.message));
    await assert.rejects(viaProxy.settle(payload, req), (err: Error) => !(err instanceof SettleError) && /\(500\)/.test(err.message));
    await assert.rejects(viaProxy.getSupported(), /\(500\)/);
  });

  test('slow: beyond the client timeout it throws FacilitatorTimeoutError; within it, passes', async () => {
    const req = requirements();
    const payload = await createPayment(req, devnet.buyers[1]);
    proxy.setMode({ verify: 'slow', settle: 'pass', supported: 'pass' }, { slowMs: 2500 });
    await assert.rejects(viaProxy.verify(payload, req), FacilitatorTimeoutError);
    proxy.setMode('slow', { slowMs: 100 });
    assert.equal((await viaProxy.verify(payload, req)).isValid, true);
  });

  test('settle-false: a clean failure answer, no transfer', async () => {
    proxy.resetCalls();
    proxy.setMode({ verify: 'pass', settle: 'settle-false' });
    const req = requirements();
    const payload = await createPayment(req, devnet.buyers[1]);
    const before = await balanceOf(devnet, devnet.payTo);
    const settled = await viaProxy.settle(payload, req);
    assert.deepEqual(
      { success: settled.success, errorReason: settled.errorReason, transaction: settled.transaction, network: settled.network },
      { success: false, errorReason: 'injected_failure', transaction: '', network: 'eip155:31337' },
    );
    assert.equal(proxy.forwarded.settle, 0);
    assert.equal(await balanceOf(devnet, devnet.payTo), before);
    assert.equal(await authorizationState(devnet.rpcUrl, devnet.asset, ...nonceArgs(payload)), false);
  });

  test('hang-after-forward: the client times out but the transfer really happened', async () => {
    proxy.resetCalls();
    proxy.setMode({ verify: 'pass', settle: 'hang-after-forward' });
    const req = requirements();
    const payload = await createPayment(req, devnet.buyers[1]);
    const before = await balanceOf(devnet, devnet.payTo);
    await assert.rejects(viaProxy.settle(payload, req), FacilitatorTimeoutError);

    const [answer] = await proxy.waitForUpstream('settle', 1);
    const body = answer.body as { success: boolean; transaction: string };
    assert.equal(body.success, true);
    assert.equal((await balanceOf(devnet, devnet.payTo)) - before, 1000n);
    // What a reconciler does after a timeout: ask the token.
    assert.equal(await authorizationState(devnet.rpcUrl, devnet.asset, ...nonceArgs(payload)), true);
    assert.equal(await findAuthorizationUsedTx(devnet.rpcUrl, devnet.asset, ...nonceArgs(payload)), body.transaction);

    // A finite hang answers late.
    proxy.setMode({ settle: 'hang-after-forward' }, { hangMs: 200 });
    const second = await createPayment(req, devnet.buyers[1]);
    const late = await viaProxy.settle(second, req);
    assert.equal(late.success, true);
    proxy.setMode('pass', { hangMs: Infinity });
  });
});

function nonceArgs(p: PaymentPayload): [Hex, Hex] {
  const { from, nonce } = authorizationOf(p);
  return [from, nonce];
}

describe('lifecycle: anvil never outlives its owner', () => {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const projectRoot = join(here, '..');

  function isAlive(pid: number): boolean {
    try {
      process.kill(pid, 0);
    } catch {
      return false;
    }
    // An exited child that nobody reaped yet (e.g. a container without an init) is a zombie: dead.
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
    } catch {
      return true;
    }
  }

  async function waitDead(pid: number, timeoutMs = 5000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!isAlive(pid)) return true;
      await new Promise((r) => setTimeout(r, 50));
    }
    return !isAlive(pid);
  }

  /** Runs a script that starts a devnet, prints the anvil pid, then does `then`. */
  async function childDevnet(then: string, signal?: NodeJS.Signals): Promise<number> {
    const dir = mkdtempSync(join(tmpdir(), 'devnet-life-'));
    const script = join(dir, 'child.mts');
    const indexUrl = new URL('./index.ts', import.meta.url).href;
    writeFileSync(
      script,
      `const { startDevnet } = await import(${JSON.stringify(indexUrl)});\n` +
        `const d = await startDevnet();\n` +
        `console.log('PID ' + d.anvilPid);\n` +
        `${then}\n`,
    );
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      const pid = await new Promise<number>((resolve, reject) => {
        child.stdout.on('data', (d) => {
          out += d;
          const m = /PID (\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        child.once('exit', (code) => reject(new Error(`child exited (${code}) before reporting: ${err}`)));
      });
      if (signal) child.kill(signal);
      await new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
      return pid;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  test('stop() kills anvil and closes the facilitator', async () => {
    const d = await startDevnet();
    assert.ok(isAlive(d.anvilPid));
    await d.stop();
    assert.ok(await waitDead(d.anvilPid), 'anvil still running after stop()');
    await assert.rejects(fetch(`${d.facilitatorUrl}/supported`));
    await d.stop(); // idempotent
  });

  test('process.exit() without stop() kills anvil', async () => {
    const pid = await childDevnet('process.exit(0);');
    assert.ok(await waitDead(pid), `anvil ${pid} leaked after parent exit`);
  });

  test('SIGTERM to the parent kills anvil (and still terminates the parent)', async () => {
    const pid = await childDevnet('setInterval(() => {}, 1000);', 'SIGTERM');
    assert.ok(await waitDead(pid), `anvil ${pid} leaked after SIGTERM`);
  });
});
