/**
 * The chains a paid call can be paid on, as the discovery documents and
 * pages name them: the EVM rail always, the Solana rail when configured. The
 * 402 itself lists the same (rail.ts builds it); the facilitators decide
 * whether the Solana one is settled, and the 402 leaves it out when not.
 */
import { DEVNET_NETWORK, KNOWN_NETWORKS, KNOWN_SVM_NETWORKS, type PaymentConfig } from '../config.js';

/** One chain a payment may be made on, as the gate names it in the 402's price sentence. */
export interface RailOffer {
  network: string;
  payTo: string;
  asset: { address: string; symbol: string; decimals: number };
}

export interface RailFacts {
  protocol: 'x402';
  x402_version: 2;
  scheme: 'exact';
  network: string;
  /** `evm`: an EIP-3009 authorization; `solana`: a buyer-signed transaction the facilitator sends as fee payer. */
  chain: 'evm' | 'solana';
  asset: string;
  asset_symbol: string;
  decimals: number;
  pay_to: string;
}

export function railFacts(payment: PaymentConfig): RailFacts[] {
  const evm: RailFacts = { protocol: 'x402', x402_version: 2, scheme: 'exact', network: payment.network, chain: 'evm', asset: payment.asset.address, asset_symbol: payment.asset.symbol, decimals: payment.asset.decimals, pay_to: payment.payTo };
  const s = payment.solana;
  return s ? [evm, { protocol: 'x402', x402_version: 2, scheme: 'exact', network: s.network, chain: 'solana', asset: s.asset.address, asset_symbol: s.asset.symbol, decimals: s.asset.decimals, pay_to: s.payTo }] : [evm];
}

/** "network …, asset … (USDC, 6 decimals), payTo …", then "; or network …" for each further rail. */
export function railsSentence(payment: PaymentConfig): string {
  return railFacts(payment)
    .map((r) => `network ${r.network}, asset ${r.asset} (${r.asset_symbol}, ${r.decimals} decimals), payTo ${r.pay_to}`)
    .join('; or ');
}

/**
 * The chains for people: "Base or Solana"; on the devnet "the local EVM chain
 * or the local Solana runtime" (its Solana has the Solana Devnet's id, but it
 * runs in the service's process); an unknown network by its id.
 */
export function railNames(payment: PaymentConfig): string {
  const devnet = payment.network === DEVNET_NETWORK;
  return railFacts(payment)
    .map((r) => (devnet ? (r.chain === 'evm' ? 'the local EVM chain' : 'the local Solana runtime') : (r.chain === 'evm' ? KNOWN_NETWORKS[r.network]?.label : KNOWN_SVM_NETWORKS[r.network]?.label) ?? r.network))
    .join(' or ');
}

/** The networks, for a sentence: "eip155:8453" or "eip155:8453 or solana:5eykt…". */
export function railNetworks(payment: PaymentConfig): string {
  return railFacts(payment)
    .map((r) => r.network)
    .join(' or ');
}
