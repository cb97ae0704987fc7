/**
 * Chaos: 1,000 paid calls on the real devnet, a quarter of them on Solana and
 * the rest on the EVM chain, while faults are injected at
 * random — facilitator down, slow, 5xx, refusing, answer lost after the
 * transfer, settlement pending (anvil automine off), ledger failures — with
 * concurrent duplicate and forged retries. Afterwards every buyer retries
 * until it gets a final answer. It must end with:
 *   - every authorization used on chain delivered to its buyer (now or on retry);
 *   - no delivery without a transfer, and every receipt naming that transfer;
 *   - no forged request ever getting a result, nor an onlooker presenting the exact signature without the buyer's payment-identifier;
 *   - the payee's balance on each chain equal to the price times its deliveries there.
 * Bounded: CHAOS_CALLS (default 1,000) calls in rounds of 8.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Hex } from 'viem';
import {
  anvilRpc, balanceOf, decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader, postJson, startRig, withPaymentId, CONTRAST, type PaymentPayload,
} from './support/harness.js';
import { signAuthorization } from './support/sign.js';
import { forgeSignature } from './support/svm-payment.js';
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { x402Client } from '@x402/fetch';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import type { Ledger } from '../src/store/ledger.js';
import { faultyLedger } from './support/faulty-ledger.js';
import { reconcileOnce } from '../src/payments/reconciler.js';

const CALLS = Number(process.env.CHAOS_CALLS ?? 1000);
const ROUND = 8;
const PRICE = 1000n;

type Fault =
  | 'none' | 'verify-down' | 'verify-slow' | 'verify-500' | 'verify-refuses'
  | 'settle-down' | 'settle-500' | 'settle-refuses' | 'settle-lost-answer' | 'settle-slow' | 'settle-pending' | 'ledger';
const FAULTS: Array<[Fault, number]> = [
  ['none', 6], ['verify-down', 1], ['verify-slow', 1], ['verify-500', 1], ['verify-refuses', 1],
  ['settle-down', 1], ['settle-500', 1], ['settle-refuses', 1], ['settle-lost-answer', 1], ['settle-slow', 1], ['settle-pending', 2], ['ledger', 2],
];

// A deterministic generator, so a failing run can be repeated (CHAOS_SEED).
let seed = Number(process.env.CHAOS_SEED ?? 402);
function random(): number {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
}
function pick(): Fault {
  const total = FAULTS.reduce((n, [, w]) => n + w, 0);
  let r = random() * total;
  for (const [f, w] of FAULTS) if ((r -= w) < 0) return f;
  return 'none';
}

interface Purchase {
  header: string;
  payload: PaymentPayload;
  /** Paid on the Solana rail (else the EVM one). */
  solana: boolean;
  body: unknown;
  delivered?: { tx: string; text: string };
  finalRefusal?: string;
}

test(`chaos: ${CALLS} paid calls under random faults — every charge delivered, no delivery without a transfer`, { timeout: 20 * 60_000 }, async () => {
  let ledgerFailureRate = 0;
  const started = Date.now();
  const rig = await startRig({
    devnet: { confirmationTimeoutMs: 1200 },
    env: { X402_FACILITATOR_TIMEOUT_MS: '2500', RECONCILE_INTERVAL_MS: '3600000' },
    service: {
      // A stall: the call fails after a moment, as the driver does past its timeout.
      wrapLedger: (inner: Ledger) =>
        faultyLedger(inner, (method) => ledgerFailureRate > 0 && ['reserve', 'acquire', 'advance', 'get'].includes(method) && random() < ledgerFailureRate, 20),
    },
  });
  const counts: Record<string, number> = {};
  const count = (k: string) => (counts[k] = (counts[k] ?? 0) + 1);
  try {
    const url = rig.service.url + CONTRAST;
    const devnet = rig.devnet;
    const accepts = decodePaymentRequiredHeader((await postJson(url, { foreground: '#000000', background: '#ffffff', large_text: false })).headers.get('payment-required')!).accepts;
    const req = accepts[0]!;
    const svm = devnet.svm!;
    const solReq = accepts.find((a) => a.network === svm.network)!;
    assert.ok(solReq, 'the 402 offers Solana');
    // The official Solana client per buyer (it reads the mint once and a fresh blockhash per payment).
    const solClients = await Promise.all(
      svm.buyers.map(async (b) => new x402Client().register('solana:*', new ExactSvmScheme(await createKeyPairSignerFromBytes(b.secretKey), { rpcUrl: svm.rpcUrl }))),
    );
    const before = await balanceOf(devnet, devnet.payTo);
    const solBefore = svm.tokenBalance(svm.payTo);
    const deliveredBefore = (await rig.service.ledger.summary()).paidDeliveries;
    const purchases: Purchase[] = [];

    const setFault = async (f: Fault) => {
      rig.proxy.setMode('pass', { slowMs: 3500 });
      ledgerFailureRate = 0;
      switch (f) {
        case 'verify-down': rig.proxy.setMode({ verify: 'down' }); break;
        case 'verify-slow': rig.proxy.setMode({ verify: 'slow' }); break;
        case 'verify-500': rig.proxy.setMode({ verify: 'error500' }); break;
        case 'verify-refuses': rig.proxy.setMode({ verify: 'settle-false' }); break;
        case 'settle-down': rig.proxy.setMode({ settle: 'down' }); break;
        case 'settle-500': rig.proxy.setMode({ settle: 'error500' }); break;
        case 'settle-refuses': rig.proxy.setMode({ settle: 'settle-false' }); break;
        case 'settle-lost-answer': rig.proxy.setMode({ settle: 'hang-after-forward' }); break;
        case 'settle-slow': rig.proxy.setMode({ settle: 'slow' }); break;
        // Broadcast, not yet in a block: anvil stops mining; the Solana runtime holds what is sent.
        case 'settle-pending': await anvilRpc(devnet, 'evm_setAutomine', [false]); svm.faults.hold(); break;
        case 'ledger': ledgerFailureRate = 0.3; break;
        case 'none': break;
      }
    };
    const clearFaults = async () => {
      rig.proxy.setMode('pass');
      ledgerFailureRate = 0;
      await anvilRpc(devnet, 'evm_setAutomine', [true]);
      await anvilRpc(devnet, 'evm_mine');
      svm.faults.landHeld();
      svm.faults.release();
    };

    const send = async (p: Purchase, header = p.header, genuine = true) => {
      const res = await postJson(url, p.body, { 'PAYMENT-SIGNATURE': header });
      const text = await res.text();
      // A 402 body is an x402 PaymentRequired with our code in `problem`; other refusals carry it in `error`.
      const code = res.status === 200 ? '' : res.status === 402 ? JSON.parse(text).problem.code : JSON.parse(text).error.code;
      count(`${genuine ? '' : 'forged '}${res.status}${res.status === 200 ? '' : ' ' + code}`);
      if (res.status === 200) {
        assert.ok(genuine, 'a forged request got a result');
        const receipt = decodePaymentResponseHeader(res.headers.get('payment-response')!);
        assert.equal(receipt.success, true);
        assert.match(receipt.transaction, p.solana ? /^[1-9A-HJ-NP-Za-km-z]{86,88}$/ : /^0x[0-9a-f]{64}$/, 'every receipt carries its transaction');
        assert.equal(receipt.network, p.solana ? svm.network : devnet.network);
        if (p.delivered) assert.equal(text, p.delivered.text, 'the same payment always gets the same bytes');
        p.delivered = { tx: receipt.transaction, text };
      } else if (res.status === 402 && genuine) {
        p.finalRefusal = code;
      }
      return res.status;
    };
    const forge = (p: Purchase): string => {
      if (p.solana) return encodePaymentSignatureHeader(forgeSignature(p.payload));
      const copy = JSON.parse(JSON.stringify(p.payload)) as PaymentPayload;
      const inner = copy.payload as { signature: string; authorization: { validBefore: string } };
      if (random() < 0.5) inner.signature = '0x' + '5a'.repeat(65);
      else inner.authorization.validBefore = String(Number(inner.authorization.validBefore) - 1);
      return encodePaymentSignatureHeader(copy);
    };

    for (let done = 0; done < CALLS; done += ROUND) {
      const fault = pick();
      count(`round: ${fault}`);
      const batch: Purchase[] = [];
      for (let i = 0; i < Math.min(ROUND, CALLS - done); i++) {
        const n = done + i;
        const body = { foreground: '#' + ((n * 7919) % 0xffffff).toString(16).padStart(6, '0'), background: '#ffffff', large_text: n % 2 === 0 };
        // An honest buyer's payment: with a payment-identifier, its proof for the retries that follow a fault.
        const solana = n % 4 === 3;
        const payload = withPaymentId(
          solana
            ? await solClients[n % solClients.length]!.createPaymentPayload({ x402Version: 2, resource: { url, description: '', mimeType: 'application/json' }, accepts: [solReq] })
            : await signAuthorization(devnet.buyers[n % devnet.buyers.length]!, req),
        );
        batch.push({ header: encodePaymentSignatureHeader(payload), payload, solana, body });
      }
      purchases.push(...batch);
      await setFault(fault);
      await Promise.all(
        batch.flatMap((p) => {
          const sends = [send(p)];
          if (random() < 0.3) sends.push(send(p));
          if (random() < 0.3) sends.push(send(p, forge(p), false));
          return sends;
        }),
      );
      await clearFaults();
      // Every buyer comes back until it has a final answer.
      for (const p of batch) {
        let last = 0;
        for (let attempt = 0; !p.delivered && !p.finalRefusal; attempt++) {
          assert.ok(attempt < 100, `no final answer after ${attempt} retries (last ${last}, round ${fault}); counts ${JSON.stringify(counts)}`);
          if (attempt > 0) await new Promise((r) => setTimeout(r, 150));
          if (attempt % 10 === 9) {
            await anvilRpc(devnet, 'evm_mine');
            svm.faults.landHeld();
          }
          last = await send(p);
        }
        // Once settled the signature is public: an onlooker's copy rebuilt from the chain (the exact signed
        // authorization, without the buyer's payment-identifier) gets nothing.
        if (p.delivered) {
          const onlooker = JSON.parse(JSON.stringify(p.payload)) as PaymentPayload;
          delete onlooker.extensions;
          await send(p, encodePaymentSignatureHeader(onlooker), false);
        }
      }
    }

    // The chain is the judge.
    await reconcileOnce(rig.service.ledger, (n) => rig.service.rail.chainFor(n), Date.now);
    let charged = 0;
    let chargedOnSolana = 0;
    const solanaChain = rig.service.rail.chainFor(svm.network)!;
    for (const p of purchases) {
      let tx: string | undefined;
      if (p.solana) {
        // Solana's own record: the transaction carrying the buyer's signature, found among its token account's.
        // As if bound when the run began: the search reaches back before every purchase of this run.
        const fate = await solanaChain.fate({ asset: svm.mint, payer: '', nonce: '', validBefore: 0, createdAt: started, payload: JSON.stringify(p.payload) });
        tx = fate.kind === 'used' ? fate.transaction : undefined;
        if (tx) chargedOnSolana++;
      } else {
        const a = (p.payload.payload as { authorization: { from: Hex; nonce: Hex } }).authorization;
        if ((await rig.service.rail.chain.authorizationState(devnet.asset, a.from, a.nonce)).used) tx = await rig.service.rail.chain.authorizationTransaction(devnet.asset, a.from, a.nonce);
      }
      if (tx) {
        charged++;
        assert.ok(p.delivered, `charged but not delivered (final answer ${p.finalRefusal})`);
        assert.equal(p.delivered.tx, tx, 'the receipt names the transfer that landed');
      } else {
        assert.equal(p.delivered, undefined, 'delivered without a transfer');
      }
    }
    const delivered = purchases.filter((p) => p.delivered).length;
    assert.equal(delivered, charged);
    assert.ok(chargedOnSolana > 0 && chargedOnSolana < charged, 'both chains were paid');
    assert.equal((await balanceOf(devnet, devnet.payTo)) - before, PRICE * BigInt(charged - chargedOnSolana), 'the EVM payee got exactly the price of each delivery there');
    assert.equal(svm.tokenBalance(svm.payTo) - solBefore, PRICE * BigInt(chargedOnSolana), 'the Solana payee got exactly the price of each delivery there');
    // Deliveries whose `settled` write hit an injected ledger failure are recorded by the reconciler.
    let recorded = 0;
    for (let i = 0; i < 30; i++) {
      await reconcileOnce(rig.service.ledger, (n) => rig.service.rail.chainFor(n), Date.now);
      recorded = (await rig.service.ledger.summary()).paidDeliveries - deliveredBefore;
      if (recorded === delivered) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    assert.equal(recorded, delivered, 'the ledger counts each delivery once');
    console.log(`chaos: ${purchases.length} calls (${purchases.filter((p) => p.solana).length} on Solana), ${delivered} delivered and charged once (${chargedOnSolana} on Solana), ${purchases.length - delivered} refused and not charged`);
    console.log('chaos counts: ' + JSON.stringify(Object.fromEntries(Object.entries(counts).sort()), null, 1));
  } finally {
    await anvilRpc(rig.devnet, 'evm_setAutomine', [true]).catch(() => {});
    rig.devnet.svm?.faults.release();
    await rig.close();
  }
});
