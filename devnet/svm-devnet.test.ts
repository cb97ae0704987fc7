// The embedded Solana devnet end to end: the official x402 SVM client pays through
// the devnet facilitator server, and the chain's JSON-RPC, faults and ledger agree
// with what happened.
//   node --import tsx --test devnet/svm-devnet.test.ts
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Address,
  type Signature,
} from '@solana/kit';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { x402Client } from '@x402/core/client';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { TransactionOnchainFailureError } from '@x402/svm';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { startFacilitatorServer, type FacilitatorServer } from './facilitator-server.js';
import { startSvmDevnet, type SvmDevnet, type SvmDevnetAccount } from './svm-devnet.js';
import { associatedTokenAddress, MAX_PROCESSING_AGE, SLOT_MS, SvmChain } from './svm-runtime.js';

// The facilitator server always serves an EVM chain too; these tests never touch
// it, so it points at a port nothing listens on, with anvil's public key #0.
const UNUSED_EVM_RPC = 'http://127.0.0.1:9';
const ANVIL_KEY_0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

let devnet: SvmDevnet;
let facilitator: FacilitatorServer;
let rpc: ReturnType<typeof createSolanaRpc>;
let feePayer: string;

before(async () => {
  devnet = await startSvmDevnet({ confirmationTimeoutMs: 300 });
  facilitator = await startFacilitatorServer({
    rpcUrl: UNUSED_EVM_RPC,
    privateKey: ANVIL_KEY_0,
    network: 'eip155:31337',
    unref: true,
    svm: { network: devnet.network, signer: devnet.signer },
  });
  rpc = createSolanaRpc(devnet.rpcUrl);
  const supported = (await (await fetch(`${facilitator.url}/supported`)).json()) as { kinds: { network: string; scheme: string; extra?: { feePayer?: string } }[] };
  const kind = supported.kinds.find((k) => k.network === devnet.network && k.scheme === 'exact');
  assert.ok(kind?.extra?.feePayer, '/supported lists the solana kind with extra.feePayer');
  feePayer = kind.extra.feePayer;
  assert.ok(devnet.feePayers.includes(feePayer));
  // The EVM kind is still there.
  assert.ok(supported.kinds.some((k) => k.network === 'eip155:31337'));
});

after(async () => {
  await facilitator?.close();
  await devnet?.stop();
  // Nothing of ours is left listening or scheduled: the process can exit.
  const left = process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap' || r === 'Timeout');
  assert.deepEqual(left, []);
});

function requirements(amount = '10000'): PaymentRequirements {
  return {
    scheme: 'exact',
    network: devnet.network,
    asset: devnet.mint,
    amount,
    payTo: devnet.payTo,
    maxTimeoutSeconds: 60,
    extra: { feePayer },
  };
}

async function pay(buyer: SvmDevnetAccount, req: PaymentRequirements): Promise<PaymentPayload> {
  const signer = await createKeyPairSignerFromBytes(buyer.secretKey);
  // Spend controls off: the client's default $1 cap would refuse the deliberately
  // unaffordable payments below before they reach the chain.
  const client = x402Client.fromConfig({
    schemes: [{ network: devnet.network, client: new ExactSvmScheme(signer, { rpcUrl: devnet.rpcUrl }) }],
    spendControls: false,
  });
  return client.createPaymentPayload({ x402Version: 2, resource: { url: 'http://127.0.0.1/svm-test' }, accepts: [req] });
}

async function post<T>(path: '/verify' | '/settle', paymentPayload: PaymentPayload, paymentRequirements: PaymentRequirements): Promise<T> {
  const res = await fetch(`${facilitator.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ x402Version: 2, paymentPayload, paymentRequirements }),
  });
  assert.equal(res.status, 200);
  return (await res.json()) as T;
}

interface Settle {
  success: boolean;
  transaction: string;
  errorReason?: string;
  network: string;
  payer?: string;
}

/** The recent blockhash a payment's transaction was signed against. */
function blockhashOf(payload: PaymentPayload): string {
  const tx = getTransactionDecoder().decode(Buffer.from(String(payload.payload.transaction), 'base64'));
  return getCompiledTransactionMessageDecoder().decode(tx.messageBytes).lifetimeToken;
}

describe('svm devnet', () => {
  test('genesis: USDC at its devnet mint, funded buyers, the merchant ATA at 0', async () => {
    const mint = await rpc.getAccountInfo(devnet.mint as Address, { encoding: 'jsonParsed' }).send();
    assert.equal(mint.value?.owner, TOKEN_PROGRAM_ADDRESS);
    for (const b of devnet.buyers) assert.equal(devnet.tokenBalance(b.address), 10n ** 12n);
    assert.equal(devnet.tokenBalance(devnet.payTo), 0n);
    const [ata] = await findAssociatedTokenPda({ owner: devnet.payTo as Address, mint: devnet.mint as Address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    assert.equal(devnet.payToTokenAccount, ata);
    assert.equal(associatedTokenAddress(devnet.payTo, devnet.mint), ata);
    const bal = await rpc.getTokenAccountBalance(ata).send();
    assert.deepEqual(bal.value, { amount: '0', decimals: 6, uiAmount: 0, uiAmountString: '0' });
    assert.equal(new Set([devnet.payTo, ...devnet.feePayers, ...devnet.buyers.map((b) => b.address)]).size, 2 + devnet.feePayers.length + devnet.buyers.length - 1);
    assert.equal(await rpc.getHealth().send(), 'ok');
  });

  test('the official client pays end to end: verify, settle, balances, history', async () => {
    const buyer = devnet.buyers[0]!;
    const req = requirements();
    const payeeBefore = devnet.tokenBalance(devnet.payTo);
    const buyerBefore = devnet.tokenBalance(buyer.address);
    const feePayerLamportsBefore = (await rpc.getBalance(feePayer as Address).send()).value;
    const payload = await pay(buyer, req);

    const verified = await post<{ isValid: boolean; invalidReason?: string; payer?: string }>('/verify', payload, req);
    assert.equal(verified.isValid, true, JSON.stringify(verified));
    assert.equal(verified.payer, buyer.address);

    const settled = await post<Settle>('/settle', payload, req);
    assert.equal(settled.success, true, JSON.stringify(settled));
    assert.equal(settled.network, devnet.network);
    assert.match(settled.transaction, /^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    assert.equal(devnet.tokenBalance(buyer.address), buyerBefore - 10000n);
    assert.equal(devnet.tokenBalance(devnet.payTo), payeeBefore + 10000n);

    const sig = settled.transaction as Signature;
    const statuses = await rpc.getSignatureStatuses([sig]).send();
    assert.equal(statuses.value[0]?.err, null);
    assert.equal(statuses.value[0]?.confirmationStatus, 'finalized');

    const tx = await rpc.getTransaction(sig, { encoding: 'base64', maxSupportedTransactionVersion: 0 }).send();
    assert.ok(tx);
    assert.equal(tx.meta?.err, null);
    assert.equal(tx.version, 0);
    // The fee payer paid exactly the recorded fee (it is isolated from the transfer).
    const feePayerLamportsAfter = (await rpc.getBalance(feePayer as Address).send()).value;
    assert.equal(feePayerLamportsBefore - feePayerLamportsAfter, tx.meta?.fee);
    assert.equal(tx.transaction[1], 'base64');

    const buyerAta = associatedTokenAddress(buyer.address, devnet.mint) as Address;
    const history = await rpc.getSignaturesForAddress(buyerAta).send();
    assert.equal(history[0]?.signature, sig, 'newest first');
    assert.equal(history[0]?.err, null);

    // The same payment settled again is refused, not paid twice.
    const again = await post<Settle>('/settle', payload, req);
    assert.equal(again.success, false);
    assert.equal(devnet.tokenBalance(devnet.payTo), payeeBefore + 10000n);
  });

  test('held broadcast: settle answers settlement_pending, landHeld puts it on chain', async () => {
    const buyer = devnet.buyers[1]!;
    const req = requirements();
    const payeeBefore = devnet.tokenBalance(devnet.payTo);
    const payload = await pay(buyer, req);
    devnet.faults.hold();
    try {
      const settled = await post<Settle>('/settle', payload, req);
      assert.equal(settled.success, false);
      assert.equal(settled.errorReason, 'settlement_pending');
      assert.ok(settled.transaction, 'the broadcast signature is returned for reconciliation');
      const status = await rpc.getSignatureStatuses([settled.transaction as Signature]).send();
      assert.equal(status.value[0], null, 'not on chain');
      assert.equal(devnet.tokenBalance(devnet.payTo), payeeBefore);

      assert.deepEqual(devnet.faults.landHeld(), [settled.transaction]);
      const landed = await rpc.getSignatureStatuses([settled.transaction as Signature]).send();
      assert.equal(landed.value[0]?.err, null);
      assert.equal(devnet.tokenBalance(devnet.payTo), payeeBefore + 10000n);
      assert.equal(devnet.tokenBalance(buyer.address), 10n ** 12n - 10000n);

      // The facilitator reconciles the pending settlement on the next /settle.
      const reconciled = await post<Settle>('/settle', payload, req);
      assert.equal(reconciled.success, true, JSON.stringify(reconciled));
      assert.equal(reconciled.transaction, settled.transaction);
      assert.equal(devnet.tokenBalance(devnet.payTo), payeeBefore + 10000n);
    } finally {
      devnet.faults.release();
    }
  });

  test('dropped broadcast never lands', async () => {
    const req = requirements();
    const payeeBefore = devnet.tokenBalance(devnet.payTo);
    const payload = await pay(devnet.buyers[1]!, req);
    devnet.faults.hold();
    try {
      const settled = await post<Settle>('/settle', payload, req);
      assert.equal(settled.errorReason, 'settlement_pending');
      devnet.faults.dropHeld();
      assert.deepEqual(devnet.faults.landHeld(), []);
      assert.equal((await rpc.getSignatureStatuses([settled.transaction as Signature]).send()).value[0], null);
      assert.equal(devnet.tokenBalance(devnet.payTo), payeeBefore);
    } finally {
      devnet.faults.release();
    }
  });

  test('expired blockhash: verify fails in simulation, isBlockhashValid says false', async () => {
    const req = requirements();
    const payload = await pay(devnet.buyers[2]!, req);
    const blockhash = blockhashOf(payload);
    assert.equal((await rpc.isBlockhashValid(blockhash as never).send()).value, true);
    devnet.faults.expireBlockhashes();
    assert.equal((await rpc.isBlockhashValid(blockhash as never).send()).value, false);
    const verified = await post<{ isValid: boolean; invalidReason?: string; invalidMessage?: string }>('/verify', payload, req);
    assert.equal(verified.isValid, false);
    assert.equal(verified.invalidReason, 'invalid_exact_svm_transaction_simulation_failed');
    assert.match(verified.invalidMessage ?? '', /BlockhashNotFound/);
    // A fresh payment (new blockhash) verifies again.
    const fresh = await pay(devnet.buyers[2]!, req);
    assert.notEqual(blockhashOf(fresh), blockhash);
    assert.equal((await post<{ isValid: boolean }>('/verify', fresh, req)).isValid, true);
  });

  test('an expired transaction sent anyway is accepted and never lands', async () => {
    const req = requirements();
    const payload = await pay(devnet.buyers[2]!, req);
    const signed = await devnet.signer.signTransaction(String(payload.payload.transaction), feePayer as Address, devnet.network);
    devnet.faults.expireBlockhashes();
    // Preflight refuses it like agave…
    await assert.rejects(rpc.sendTransaction(signed as never, { encoding: 'base64' }).send(), /simulation failed|-32002|BlockhashNotFound/i);
    // …without preflight it is accepted and silently dropped.
    const sig = await rpc.sendTransaction(signed as never, { encoding: 'base64', skipPreflight: true }).send();
    assert.equal((await rpc.getSignatureStatuses([sig]).send()).value[0], null);
    await assert.rejects(devnet.signer.confirmTransaction(sig, devnet.network), (e: Error) => !(e instanceof TransactionOnchainFailureError) && /timeout/i.test(e.message));
  });

  test('a transaction that fails on chain is recorded with its error and paid fee', async () => {
    // buyers[3] pays more USDC than it holds: the transfer instruction fails on chain.
    const req = requirements((2n * 10n ** 12n).toString());
    const payload = await pay(devnet.buyers[3]!, req);
    const verified = await post<{ isValid: boolean; invalidReason?: string }>('/verify', payload, req);
    assert.equal(verified.isValid, false, 'simulation catches it first');

    const signed = await devnet.signer.signTransaction(String(payload.payload.transaction), feePayer as Address, devnet.network);
    const before = (await rpc.getBalance(feePayer as Address).send()).value;
    const sig = await rpc.sendTransaction(signed as never, { encoding: 'base64', skipPreflight: true }).send();
    const status = (await rpc.getSignatureStatuses([sig]).send()).value[0];
    assert.ok(status, 'landed');
    // kit reads every JSON number as a bigint.
    assert.deepEqual(status.err, { InstructionError: [2n, { Custom: 1n }] });
    assert.deepEqual(status.status, { Err: { InstructionError: [2n, { Custom: 1n }] } });
    const tx = await rpc.getTransaction(sig, { encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    assert.ok(tx?.meta);
    assert.ok(tx.meta.fee > 0n);
    assert.equal(before - (await rpc.getBalance(feePayer as Address).send()).value, tx.meta.fee, 'the fee is paid even though it failed');
    assert.equal(devnet.tokenBalance(devnet.buyers[3]!.address), 10n ** 12n, 'no USDC moved');
    const history = await rpc.getSignaturesForAddress(associatedTokenAddress(devnet.buyers[3]!.address, devnet.mint) as Address, { limit: 1 }).send();
    assert.equal(history[0]?.signature, sig);
    assert.ok(history[0]?.err);
    await assert.rejects(devnet.signer.confirmTransaction(sig, devnet.network), TransactionOnchainFailureError);
  });

  test('JSON-RPC: unknown method, preflight failure codes', async () => {
    const call = async (method: string, params: unknown[] = []) =>
      (await (await fetch(devnet.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }) })).json()) as {
        id: number;
        error?: { code: number; message: string; data?: { err?: unknown } };
        result?: unknown;
      };
    // The rest of the surface, through kit (which validates nothing but parses every shape).
    const many = await rpc.getMultipleAccounts([devnet.mint as Address, devnet.payToTokenAccount as Address, devnet.feePayers[0] as Address, '11111111111111111111111111111112' as Address], { encoding: 'base64' }).send();
    assert.equal(many.value.length, 4);
    assert.equal(many.value[3], null);
    assert.equal(many.value[1]?.data[1], 'base64');
    assert.equal(await rpc.getMinimumBalanceForRentExemption(165n).send(), 2039280n);
    const [slot, height, epoch] = [await rpc.getSlot().send(), await rpc.getBlockHeight().send(), await rpc.getEpochInfo().send()];
    assert.ok(height >= slot && epoch.absoluteSlot >= slot);
    assert.match((await rpc.getVersion().send())['solana-core'], /litesvm/);
    assert.equal(await rpc.getGenesisHash().send(), 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG');

    const unknown = await call('getBlockProduction');
    assert.equal(unknown.id, 7);
    assert.equal(unknown.error?.code, -32601);

    const req = requirements((2n * 10n ** 12n).toString());
    const payload = await pay(devnet.buyers[3]!, req);
    const signed = await devnet.signer.signTransaction(String(payload.payload.transaction), feePayer as Address, devnet.network);
    const refused = await call('sendTransaction', [signed, { encoding: 'base64' }]);
    assert.equal(refused.error?.code, -32002);
    assert.deepEqual(refused.error?.data?.err, { InstructionError: [2, { Custom: 1 }] });
    const sim = (await call('simulateTransaction', [signed, { encoding: 'base64', sigVerify: true }])) as { result?: { context: { slot: number }; value: { err: unknown; logs: string[]; unitsConsumed: number } } };
    assert.deepEqual(sim.result?.value.err, { InstructionError: [2, { Custom: 1 }] });
    assert.ok(sim.result.value.logs.length > 0);
    assert.equal(typeof sim.result.context.slot, 'number');
  });
});

describe('svm chain clock', () => {
  test('slots follow wall-clock time lazily; a blockhash lives 150 slots', () => {
    let now = 1_000_000;
    const chain = new SvmChain({ now: () => now });
    const first = chain.latestBlockhash();
    assert.equal(first.lastValidBlockHeight, first.slot + BigInt(MAX_PROCESSING_AGE));
    now += SLOT_MS * 10;
    const later = chain.latestBlockhash();
    assert.equal(later.slot, first.slot + 10n);
    assert.notEqual(later.blockhash, first.blockhash, 'a new block, a new blockhash');
    assert.equal(chain.isBlockhashValid(first.blockhash), true);
    now += SLOT_MS * (MAX_PROCESSING_AGE - 10);
    assert.equal(chain.isBlockhashValid(first.blockhash), true, '150 slots old: still valid');
    now += SLOT_MS;
    assert.equal(chain.isBlockhashValid(first.blockhash), false, '151 slots old: expired');
    assert.equal(chain.isBlockhashValid(later.blockhash), true);
    assert.equal(chain.svm.getClock().slot, first.slot + BigInt(MAX_PROCESSING_AGE) + 1n);
  });
});
