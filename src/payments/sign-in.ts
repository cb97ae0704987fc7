/**
 * Proof of the payer's key for a redelivery: x402's `sign-in-with-x`
 * extension (CAIP-122 / EIP-4361 messages), challenged by us and checked here.
 *
 * Why: once a payment settles, its EIP-3009 signature is public calldata, so
 * presenting the bound PAYMENT-SIGNATURE again proves nothing. A fresh
 * signature by the payer over a message we issued for this resource does: the
 * message carries a nonce that is an HMAC of the resource URL and the times
 * of the message, so only messages this service issued (or any instance
 * sharing the secret) within the last few minutes are accepted, without
 * keeping any state per challenge.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { parseSIWxHeader, verifySIWxSignature, SIGN_IN_WITH_X, type SIWxPayload } from '@x402/extensions/sign-in-with-x';

export { SIGN_IN_WITH_X };

/** How long a sign-in message we issued may be signed and sent back. */
const SIGN_IN_LIFETIME_SECONDS = 300;
/** Clock skew tolerated on `issuedAt` (the message's time is ours, but instances' clocks differ slightly). */
const SKEW_SECONDS = 30;
const STATEMENT = 'Prove you hold the wallet that paid, to receive the result you already paid for. This signature moves no funds.';

/** `address` as the ledger keys payers: EVM lower case, Solana base58 as it is. */
export type SignInCheck = { ok: true; address: string; network: string } | { ok: false; reason: string };

/** How each chain's wallets sign in (CAIP-122): EIP-191 on EVM chains, ed25519 (SIWS) on Solana. */
const signatureType = (network: string) => (network.startsWith('solana:') ? 'ed25519' : 'eip191');

export class SignInWithX {
  private readonly secret: Buffer;
  private readonly networks: readonly string[];
  /** `networks`: the chains payments are taken on (a payer signs in on the chain it paid on). */
  constructor(networks: string | readonly string[], secret?: Uint8Array) {
    this.networks = typeof networks === 'string' ? [networks] : networks;
    this.secret = secret ? Buffer.from(secret) : randomBytes(32);
  }

  /** The `sign-in-with-x` entry for a PaymentRequired's extensions (the shape the SDK's clients read). */
  challenge(resourceUrl: string, nowMs: number): Record<string, unknown> {
    const url = new URL(resourceUrl);
    const issuedAt = new Date(Math.floor(nowMs / 1000) * 1000).toISOString();
    const expirationTime = new Date(Date.parse(issuedAt) + SIGN_IN_LIFETIME_SECONDS * 1000).toISOString();
    return {
      [SIGN_IN_WITH_X]: {
        info: { domain: url.host, uri: resourceUrl, statement: STATEMENT, version: '1', nonce: this.nonce(resourceUrl, issuedAt, expirationTime), issuedAt, expirationTime },
        supportedChains: this.networks.map((chainId) => ({ chainId, type: signatureType(chainId) })),
      },
    };
  }

  /** The address that signed a message we issued for `resourceUrl`, or why it proves nothing. */
  async check(header: string, resourceUrl: string, nowMs: number): Promise<SignInCheck> {
    let p: SIWxPayload;
    try {
      p = parseSIWxHeader(header);
    } catch (e) {
      return { ok: false, reason: e instanceof Error ? e.message : 'unreadable sign-in' };
    }
    if (p.uri !== resourceUrl || p.domain !== new URL(resourceUrl).host) return { ok: false, reason: 'the sign-in names another resource' };
    if (!this.networks.includes(p.chainId) || p.version !== '1' || p.statement !== STATEMENT) return { ok: false, reason: 'the sign-in is not the message this service issued' };
    if (p.type !== undefined && p.type !== signatureType(p.chainId)) return { ok: false, reason: 'the sign-in is not the message this service issued' };
    if (p.notBefore !== undefined || p.requestId !== undefined || p.resources !== undefined || p.expirationTime === undefined) {
      return { ok: false, reason: 'the sign-in is not the message this service issued' };
    }
    const issued = Date.parse(p.issuedAt);
    const expires = Date.parse(p.expirationTime);
    if (!Number.isFinite(issued) || !Number.isFinite(expires) || issued > nowMs + SKEW_SECONDS * 1000 || expires <= nowMs || expires - issued > SIGN_IN_LIFETIME_SECONDS * 1000) {
      return { ok: false, reason: 'the sign-in message has expired; sign the new challenge' };
    }
    const expected = Buffer.from(this.nonce(resourceUrl, p.issuedAt, p.expirationTime));
    const given = Buffer.from(p.nonce);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'the sign-in nonce was not issued by this service' };
    const verified = await verifySIWxSignature(p).catch(() => ({ isValid: false as const, invalidMessage: 'unverifiable signature' }));
    if (!verified.isValid) return { ok: false, reason: 'the sign-in signature does not verify' };
    return { ok: true, address: signatureType(p.chainId) === 'eip191' ? p.address.toLowerCase() : p.address, network: p.chainId };
  }

  private nonce(resourceUrl: string, issuedAt: string, expirationTime: string): string {
    // SIWE nonces are alphanumeric: hex of the HMAC, 32 characters.
    return createHmac('sha256', this.secret).update(`${resourceUrl}\n${issuedAt}\n${expirationTime}`).digest('hex').slice(0, 32);
  }
}
