/**
 * The payment rail: the x402 SDK's resource-server primitives (requirement
 * building, 402 construction, payload matching) and a facilitator client,
 * with every facilitator answer sorted into the few outcomes the gate acts
 * on. No HTTP framework here: the HTTP route and the MCP tool share it.
 */
import { x402ResourceServer, type FacilitatorClient } from '@x402/core/server';
import { FacilitatorTimeoutError, SettleError, VerifyError } from '@x402/core/types';
import type { PaymentPayload, PaymentRequired, PaymentRequirements, ResourceInfo, SettleResponse, SupportedResponse, VerifyResponse } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { ExactSvmScheme } from '@x402/svm/exact/server';
import { declarePaymentIdentifierExtension, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier';
import type { PaymentConfig } from '../config.js';
import type { ChainReader } from './chain.js';
import { EvmChain } from './chains/evm.js';
import type { PaymentChain } from './chains/payment-chain.js';
import { rpcSvmReader, SvmChain, type SvmChainReader } from './chains/svm.js';
import { facilitatorPool, provablyNotSent, type SettleTargets } from './facilitators.js';
import type { RailOffer } from './rails.js';

export type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse, SupportedResponse, VerifyResponse };

export type VerifyOutcome =
  | { kind: 'valid'; response: VerifyResponse }
  | { kind: 'invalid'; reason: string; message: string }
  | { kind: 'unavailable'; message: string };

/** `facilitator`: the one the settle was sent to (facilitators.ts names it), when the client reports it. */
export type SettleOutcome =
  | { kind: 'settled'; response: SettleResponse; facilitator?: string }
  /** The facilitator answered that the transfer did not happen. */
  | { kind: 'failed'; response: SettleResponse; facilitator?: string }
  /** The request provably never reached any facilitator. */
  | { kind: 'not-sent'; message: string }
  /** It may or may not have happened: timeout, 5xx, garbled answer. Only the chain can tell. */
  | { kind: 'unknown'; message: string; facilitator?: string };

function message(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.length > 300 ? m.slice(0, 300) + '…' : m;
}

export interface RailOptions {
  payment: PaymentConfig;
  /** The EVM chain's reader. */
  chain: ChainReader;
  /** The Solana chain's reader, when `payment.solana` is set; default: JSON-RPC at its rpcUrl. */
  svmReader?: SvmChainReader;
  /** Defaults to `defaultFacilitator(payment)`. */
  facilitator?: FacilitatorClient & Partial<SettleTargets>;
}

/** The configured facilitators as one client (facilitators.ts: failover and its money rules). */
function defaultFacilitator(payment: PaymentConfig): FacilitatorClient & SettleTargets {
  return facilitatorPool(payment);
}

export class PaymentRail {
  readonly payment: PaymentConfig;
  readonly chain: ChainReader;
  readonly facilitator: FacilitatorClient & Partial<SettleTargets>;
  readonly offers: readonly RailOffer[];
  private readonly chains = new Map<string, PaymentChain>();
  private server: x402ResourceServer;
  private readonly byPrice = new Map<string, PaymentRequirements[]>();
  private initialized = false;

  constructor(opts: RailOptions) {
    this.payment = opts.payment;
    this.chain = opts.chain;
    this.facilitator = opts.facilitator ?? defaultFacilitator(opts.payment);
    const { network, payTo, asset, solana } = opts.payment;
    this.chains.set(network, new EvmChain(network, opts.chain));
    const offers: RailOffer[] = [{ network, payTo, asset }];
    if (solana) {
      const reader = opts.svmReader ?? rpcSvmReader(solana.rpcUrl);
      this.chains.set(solana.network, new SvmChain(solana.network, solana.payTo, { mint: solana.asset.address, decimals: solana.asset.decimals }, reader));
      offers.push({ network: solana.network, payTo: solana.payTo, asset: solana.asset });
    }
    this.offers = offers;
    this.server = this.sdkServer();
  }

  chainFor(network: string): PaymentChain | undefined {
    return this.chains.get(network);
  }

  /**
   * The SDK's resource server over our facilitator client. With `known`, its
   * initialize takes that /supported answer instead of asking (the last good
   * one while no facilitator answers: facilitator-watch.ts).
   */
  private sdkServer(known?: SupportedResponse): x402ResourceServer {
    const client: FacilitatorClient = {
      verify: (p, r) => this.facilitator.verify(p, r),
      settle: (p, r) => this.facilitator.settle(p, r),
      getSupported: () => (known ? Promise.resolve(known) : this.facilitator.getSupported()),
    };
    const server = new x402ResourceServer(client).register(this.payment.network as `${string}:${string}`, new ExactEvmScheme());
    const solana = this.payment.solana;
    return solana ? server.register(solana.network as `${string}:${string}`, new ExactSvmScheme()) : server;
  }

  get ready(): boolean {
    return this.initialized;
  }

  /**
   * Learn what the facilitators support: ask them (GET /supported), or take
   * `known`, an answer already in hand. Throws when none answers; a rail
   * already initialized keeps its previous answer then.
   */
  async initialize(known?: SupportedResponse): Promise<void> {
    const server = this.sdkServer(known);
    await server.initialize();
    this.server = server;
    this.byPrice.clear();
    this.initialized = true;
  }

  /**
   * The requirements for a price, built by the SDK once per price and then
   * reused: the EVM rail's, then the Solana rail's (same price) when it is
   * configured and the facilitators settle it.
   */
  async requirements(priceAtomic: string): Promise<PaymentRequirements[]> {
    let r = this.byPrice.get(priceAtomic);
    if (!r) {
      const { network, payTo, asset, maxTimeoutSeconds, solana } = this.payment;
      r = await this.server.buildPaymentRequirements({
        scheme: 'exact',
        network: network as `${string}:${string}`,
        payTo,
        maxTimeoutSeconds,
        price: { amount: priceAtomic, asset: asset.address, extra: { name: asset.name, version: asset.version } },
      });
      if (solana && this.server.getSupportedKind(2, solana.network as `${string}:${string}`, 'exact')) {
        r = r.concat(
          await this.server.buildPaymentRequirements({
            scheme: 'exact',
            network: solana.network as `${string}:${string}`,
            payTo: solana.payTo,
            maxTimeoutSeconds,
            price: { amount: priceAtomic, asset: solana.asset.address },
          }),
        );
      }
      this.byPrice.set(priceAtomic, r);
    }
    return r;
  }

  /** True when the facilitators settle every configured chain (a Solana rail they do not settle is left out of the 402s). */
  get settlesEveryChain(): boolean {
    const solana = this.payment.solana;
    return !solana || Boolean(this.server.getSupportedKind(2, solana.network as `${string}:${string}`, 'exact'));
  }

  async paymentRequired(
    requirements: PaymentRequirements[],
    resource: ResourceInfo & { description: string; mimeType: string },
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
    const outcome = await this.settleOnce(payload, requirements);
    const facilitator = this.facilitator.takeSettleTarget?.(payload);
    return facilitator && outcome.kind !== 'not-sent' ? { ...outcome, facilitator } : outcome;
  }

  private async settleOnce(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleOutcome> {
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
      if (!(e instanceof FacilitatorTimeoutError) && provablyNotSent(e)) return { kind: 'not-sent', message: message(e) };
      return { kind: 'unknown', message: message(e) };
    }
  }
}
