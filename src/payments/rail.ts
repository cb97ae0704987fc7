/**
 * The payment rail: the x402 SDK's resource-server primitives (requirement
 * building, 402 construction, payload matching) and a facilitator client,
 * with every facilitator answer sorted into the few outcomes the gate acts
 * on. No HTTP framework here: the HTTP route and the MCP tool share it.
 */
import { x402ResourceServer, type FacilitatorClient } from '@x402/core/server';
import { FacilitatorTimeoutError, SettleError, VerifyError } from '@x402/core/types';
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { declarePaymentIdentifierExtension, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier';
import type { PaymentConfig } from '../config.js';
import type { ChainReader } from './chain.js';
import { facilitatorHttpClient } from './facilitator-http.js';

export type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse, VerifyResponse };

export type VerifyOutcome =
  | { kind: 'valid'; response: VerifyResponse }
  | { kind: 'invalid'; reason: string; message: string }
  | { kind: 'unavailable'; message: string };

export type SettleOutcome =
  | { kind: 'settled'; response: SettleResponse }
  /** The facilitator answered that the transfer did not happen. */
  | { kind: 'failed'; response: SettleResponse }
  /** The request provably never reached the facilitator. */
  | { kind: 'not-sent'; message: string }
  /** It may or may not have happened: timeout, 5xx, garbled answer. Only the chain can tell. */
  | { kind: 'unknown'; message: string };

/** Errors that prove the request never left this process or never reached the peer. */
function neverSent(e: unknown): boolean {
  const codes = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'];
  let cur: unknown = e;
  for (let i = 0; i < 4 && cur; i++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && codes.includes(code)) return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}

function message(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.length > 300 ? m.slice(0, 300) + '…' : m;
}

export interface RailOptions {
  payment: PaymentConfig;
  chain: ChainReader;
  /** Defaults to `defaultFacilitator(payment)`. */
  facilitator?: FacilitatorClient;
}

/** The configured facilitators as one client. */
export function defaultFacilitator(payment: PaymentConfig): FacilitatorClient {
  return facilitatorHttpClient(payment.facilitatorUrls[0]!, payment);
}

export class PaymentRail {
  readonly payment: PaymentConfig;
  readonly chain: ChainReader;
  readonly facilitator: FacilitatorClient;
  private readonly server: x402ResourceServer;
  private readonly byPrice = new Map<string, PaymentRequirements[]>();
  private initialized = false;

  constructor(opts: RailOptions) {
    this.payment = opts.payment;
    this.chain = opts.chain;
    this.facilitator = opts.facilitator ?? defaultFacilitator(opts.payment);
    this.server = new x402ResourceServer(this.facilitator).register(opts.payment.network as `${string}:${string}`, new ExactEvmScheme());
  }

  get ready(): boolean {
    return this.initialized;
  }

  /** Ask the facilitator what it supports (GET /supported). Throws when it cannot be reached. */
  async initialize(): Promise<void> {
    await this.server.initialize();
    this.initialized = true;
  }

  /** The requirements for a price, built by the SDK once per price and then reused. */
  async requirements(priceAtomic: string): Promise<PaymentRequirements[]> {
    let r = this.byPrice.get(priceAtomic);
    if (!r) {
      const { network, payTo, asset, maxTimeoutSeconds } = this.payment;
      r = await this.server.buildPaymentRequirements({
        scheme: 'exact',
        network: network as `${string}:${string}`,
        payTo,
        maxTimeoutSeconds,
        price: { amount: priceAtomic, asset: asset.address, extra: { name: asset.name, version: asset.version } },
      });
      this.byPrice.set(priceAtomic, r);
    }
    return r;
  }

  async paymentRequired(
    requirements: PaymentRequirements[],
    resource: { url: string; description: string; mimeType: string },
    error?: string,
    extra: Record<string, unknown> = {},
  ): Promise<PaymentRequired> {
    const extensions = { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false), ...extra };
    return this.server.createPaymentRequiredResponse(requirements, resource, error, extensions);
  }

  /** The SDK's matcher: the payload's `accepted` must equal what we ask for (price, asset, payee, network, scheme). */
  match(requirements: PaymentRequirements[], payload: PaymentPayload): PaymentRequirements | undefined {
    try {
      return this.server.findMatchingRequirements(requirements, payload);
    } catch {
      return undefined;
    }
  }

  async verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyOutcome> {
    try {
      const r = await this.server.verifyPayment(payload, requirements);
      if (r.isValid) return { kind: 'valid', response: r };
      return { kind: 'invalid', reason: r.invalidReason ?? 'invalid_payment', message: r.invalidMessage ?? r.invalidReason ?? 'the facilitator rejected the payment' };
    } catch (e) {
      if (e instanceof VerifyError && e.statusCode < 500) {
        return { kind: 'invalid', reason: e.invalidReason ?? 'invalid_payment', message: e.invalidMessage ?? e.message };
      }
      return { kind: 'unavailable', message: message(e) };
    }
  }

  async settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleOutcome> {
    try {
      const r = await this.server.settlePayment(payload, requirements);
      if (r.success && r.transaction) return { kind: 'settled', response: r };
      if (r.success) return { kind: 'unknown', message: 'facilitator reported success without a transaction hash' };
      return { kind: 'failed', response: r };
    } catch (e) {
      if (e instanceof SettleError && e.statusCode < 500) {
        return {
          kind: 'failed',
          response: {
            success: false,
            errorReason: e.errorReason ?? 'settle_failed',
            errorMessage: e.errorMessage,
            payer: e.payer,
            transaction: e.transaction ?? '',
            network: e.network ?? (requirements.network as `${string}:${string}`),
          },
        };
      }
      if (!(e instanceof FacilitatorTimeoutError) && neverSent(e)) return { kind: 'not-sent', message: message(e) };
      return { kind: 'unknown', message: message(e) };
    }
  }
}
