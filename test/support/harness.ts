/**
 * Test harness: a real devnet (anvil + DevUSDC + SDK facilitator), optionally
 * behind the fault-injecting proxy, and the real service wired to it exactly
 * as production is (X402_NETWORK, X402_PAY_TO, X402_FACILITATOR_URL …).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { x402Client, wrapFetchWithPayment, decodePaymentResponseHeader } from '@x402/fetch';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { generatePaymentId } from '@x402/extensions/payment-identifier';
import { privateKeyToAccount } from 'viem/accounts';
import { startDevnet, balanceOf, transferLogs, type Devnet, type DevnetAccount, type StartDevnetOptions } from '../../devnet/index.js';
import { devnetRailEnv } from '../../devnet/env.js';
import { loadConfig } from '../../src/config.js';
import { startService, type RunningService, type ServiceOptions } from '../../src/service.js';
import { startFaultyFacilitator, type FaultyFacilitator } from './faulty-facilitator.js';

export { balanceOf, transferLogs, decodePaymentResponseHeader, decodePaymentRequiredHeader, encodePaymentSignatureHeader };
export type { Devnet, RunningService, FaultyFacilitator, PaymentPayload, PaymentRequired };

export function tempDir(prefix = 'svc-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** The environment that points a service at this devnet, as an operator would (`npm run devnet`'s, devnet/env.ts), for a test. */
export function devnetEnv(devnet: Devnet, facilitatorUrl = devnet.facilitatorUrl, extra: Record<string, string> = {}): Record<string, string> {
  return {
    // The devnet's Solana rail too (on unless started with svm: false): every 402 offers both, as in production with both configured.
    ...devnetRailEnv(devnet),
    X402_FACILITATOR_URL: facilitatorUrl,
    X402_FACILITATOR_TIMEOUT_MS: '3000',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    // The suite sends thousands of free calls from one address; the tests of the limit set their own.
    RATE_LIMIT_PER_MINUTE: '0',
    ...extra,
  };
}

export interface Rig {
  devnet: Devnet;
  proxy: FaultyFacilitator;
  service: RunningService;
  close(): Promise<void>;
}

/** Devnet + fault proxy (passing by default) + service. */
export async function startRig(opts: { env?: Record<string, string>; service?: ServiceOptions; dataDir?: string; devnet?: StartDevnetOptions } = {}): Promise<Rig> {
  const devnet = await startDevnet(opts.devnet);
  const proxy = await startFaultyFacilitator(devnet.facilitatorUrl);
  const env = devnetEnv(devnet, proxy.url, { DATA_DIR: opts.dataDir ?? tempDir(), ...opts.env });
  const service = await startService(loadConfig(env), { ...opts.service });
  return {
    devnet,
    proxy,
    service,
    async close() {
      await service.close().catch(() => {});
      await proxy.close().catch(() => {});
      await devnet.stop().catch(() => {});
    },
  };
}

/** The official x402 client for a devnet buyer, allowed to pay the devnet token. */
export function buyerClient(devnet: Devnet, buyer: DevnetAccount = devnet.buyer): x402Client {
  const client = new x402Client().register('eip155:*', new ExactEvmScheme(privateKeyToAccount(buyer.privateKey)));
  client.setSpendControls({ allowedAssets: [{ network: devnet.network, asset: devnet.asset, maxAmountPerPayment: '1000000' }] });
  return client;
}

export function payingFetch(devnet: Devnet, buyer?: DevnetAccount) {
  return wrapFetchWithPayment(fetch, buyerClient(devnet, buyer));
}

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

/** Ask for the 402 and sign it: a PAYMENT-SIGNATURE header value for exactly this request. */
/**
 * A signed payment for `body` at `url`, as an honest buyer following the README makes it: with a fresh
 * x402 payment-identifier (its proof for a redelivery), unless `paymentId: false`.
 */
export async function signFor(
  url: string,
  body: unknown,
  devnet: Devnet,
  opts: { buyer?: DevnetAccount; mutate?: (p: PaymentRequired) => void; extensions?: Record<string, unknown>; paymentId?: false } = {},
) {
  const res = await postJson(url, body);
  if (res.status !== 402) throw new Error(`expected 402, got ${res.status}: ${await res.text()}`);
  const pr = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
  opts.mutate?.(pr);
  const client = buyerClient(devnet, opts.buyer);
  client.setSpendControls(false);
  const payload = await client.createPaymentPayload(pr);
  if (opts.paymentId !== false) payload.extensions = { ...(payload.extensions ?? {}), 'payment-identifier': { info: { required: false, id: generatePaymentId() } } };
  if (opts.extensions) payload.extensions = { ...(payload.extensions ?? {}), ...opts.extensions };
  return { header: encodePaymentSignatureHeader(payload), payload, paymentRequired: pr };
}

/** `payload` as an honest buyer sends it: with a fresh x402 payment-identifier, its proof when it asks for the same result again. */
export function withPaymentId<T extends PaymentPayload>(payload: T): T {
  return { ...payload, extensions: { ...(payload.extensions ?? {}), 'payment-identifier': { info: { required: false, id: generatePaymentId() } } } };
}

/** One anvil JSON-RPC call (evm_setAutomine, evm_mine, anvil_dropTransaction, evm_increaseTime …). */
export async function anvilRpc(devnet: Pick<Devnet, 'rpcUrl'>, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(devnet.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

export const CONTRAST = '/x402/v1/accessibility-contrast-calculator';
export const BLACK_ON_WHITE = { foreground: '#000000', background: '#ffffff', large_text: false };

/** A request that gives up after `limitMs` instead of hanging the test (fault tests: "never a hang"), timed. */
export async function timedFetch(url: string, init: RequestInit, limitMs: number) {
  const t0 = Date.now();
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(limitMs) });
    text = await res.text();
  } catch (e) {
    throw new Error(`${init.method ?? 'GET'} ${new URL(url).pathname}: no answer within ${limitMs} ms (${(e as Error).name})`);
  }
  return { status: res.status, headers: res.headers, json: () => JSON.parse(text), ms: Date.now() - t0 };
}
