/**
 * Proof of the payer's key: x402's `sign-in-with-x` extension (CAIP-122:
 * EIP-4361 on EVM, SIWS on Solana), declared on every 402 and checked here.
 * Without a payment it gets the signer the result it paid for (gate.ts);
 * with one, it proves that payment's buyer (redelivery.ts).
 *
 * Why: once a payment settles, its signature is public on chain, so
 * presenting it again proves nothing. A fresh signature by the payer over a
 * message we issued for this resource does. Each 402 carries a message of its
 * own: its nonce is 12 random hex digits followed by an HMAC of them, the
 * resource URL and the message's times, so only messages this service issued
 * (or an instance sharing the secret) are accepted, with nothing stored per
 * 402. A message is accepted once: the ledger records its nonce when it is
 * used (`spendSignIn`), so a captured sign-in recovers nothing a second time,
 * on any instance sharing the ledger.
 *
 * The declaration is built once per resource with a placeholder stamp (the
 * nonce and the times): the gate caches the 402 around it, and each answer
 * replaces the stamp, in the object (`stamped`) or in what is already
 * encoded (`restampText` says what it becomes; src/http/stamped-encoding.ts
 * writes it into the bytes): the stamp has a fixed length, so the cached
 * encodings are never rebuilt per 402. Decision 0048.
 */
import { createHmac, randomFillSync, timingSafeEqual } from 'node:crypto';
import { buildSIWxSchema, parseSIWxHeader, verifySIWxSignature, SIGN_IN_WITH_X, type SIWxPayload } from '@x402/extensions/sign-in-with-x';
import type { PaymentRequired } from './rail.js';

export { SIGN_IN_WITH_X };

/** How long a sign-in message we issue may be signed and sent back, by default (the SDK's default expiry, and its validator's maximum age). */
export const SIGN_IN_LIFETIME_SECONDS = 300;
/** Clock skew tolerated on `issuedAt` (the message's time is ours, but instances' clocks differ slightly). */
const SKEW_SECONDS = 30;
// Short: every 402 carries it, and every payment echoes the 402's extensions back within a header budget (src/http/challenge-fit.ts).
export const SIGN_IN_STATEMENT = 'Sign in to get a result you paid for again. No funds move.';

/** The part of a sign-in message that is fresh in every 402. Fixed lengths: 32 hex digits, and ISO times to the second. */
export interface SignInStamp {
  nonce: string;
  issuedAt: string;
  expirationTime: string;
}

const PLACEHOLDER: SignInStamp = { nonce: '0'.repeat(32), issuedAt: '1970-01-01T00:00:00Z', expirationTime: '1970-01-01T00:00:00Z' };

/** A time as the message states it: ISO 8601 to the second (fixed length, like the placeholder's). */
const isoSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** The stamp as JSON.stringify writes it inside `info` (the three keys are declared in this order, next to each other): ASCII, of one length. */
export const stampText = (s: SignInStamp) => `"nonce":"${s.nonce}","issuedAt":"${s.issuedAt}","expirationTime":"${s.expirationTime}"`;
/** Where a declaration written as JSON holds its stamp: the text `restampText` replaces (an encoding may write it at this text's offset). */
export const PLACEHOLDER_TEXT = stampText(PLACEHOLDER);

/** `text` (JSON that holds a declaration made by `declare`) with the placeholder stamp replaced. */
export function restampText(text: string, stamp: SignInStamp): string {
  return text.replace(PLACEHOLDER_TEXT, stampText(stamp));
}

/** A PaymentRequired whose sign-in declaration carries `stamp` (a copy; `pr` is the cached one and is never written to). */
export function stamped(pr: PaymentRequired, stamp: SignInStamp): PaymentRequired {
  const declared = pr.extensions?.[SIGN_IN_WITH_X] as { info: Record<string, unknown> } | undefined;
  if (!declared) return pr;
  return { ...pr, extensions: { ...pr.extensions, [SIGN_IN_WITH_X]: { ...declared, info: { ...declared.info, ...stamp } } } };
}

/** `address` as the ledger keys payers: EVM lower case, Solana base58 as it is. */
export type SignInCheck =
  | { ok: true; address: string; network: string; nonce: string; expiresAt: number }
  | { ok: false; code: SignInRefusal; reason: string };

/** Why a sign-in proves nothing, as a stable word (logs, and the 402 that answers it). */
export type SignInRefusal = 'unreadable' | 'other_resource' | 'not_issued_here' | 'expired' | 'bad_signature' | 'already_used' | 'not_the_payer';

/** How each chain's wallets sign in (CAIP-122): EIP-191 on EVM chains, ed25519 (SIWS) on Solana. */
const signatureType = (network: string) => (network.startsWith('solana:') ? 'ed25519' : 'eip191');

/** 48 random bits per nonce: they keep two 402s of one second apart, the HMAC after them makes the nonce ours. */
const SALT_BYTES = 6;

const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

export class SignInWithX {
  private readonly secret: Buffer;
  private readonly networks: readonly string[];
  private readonly supportedChains: ReadonlyArray<{ chainId: string; type: string }>;
  private readonly schema = buildSIWxSchema();
  private readonly lifetimeMs: number;
  /** `networks`: the chains payments are taken on (a payer signs in on the chain it paid on). */
  constructor(networks: string | readonly string[], secret?: Uint8Array, lifetimeSeconds = SIGN_IN_LIFETIME_SECONDS) {
    this.lifetimeMs = lifetimeSeconds * 1000;
    this.networks = typeof networks === 'string' ? [networks] : networks;
    this.supportedChains = this.networks.map((chainId) => ({ chainId, type: signatureType(chainId) }));
    this.secret = secret ? Buffer.from(secret) : randomFillSync(Buffer.alloc(32));
  }

  /**
   * The `sign-in-with-x` entry for a PaymentRequired's extensions, as the
   * SDK's `declareSIWxExtension` describes it once a server fills it in
   * (domain and URI from our own origin, every chain we take payments on,
   * statement, expiry), with the placeholder stamp: answer it only through
   * `stamped` / `restampText`.
   */
  declare(resourceUrl: string): Record<string, unknown> {
    const url = new URL(resourceUrl);
    return {
      [SIGN_IN_WITH_X]: {
        info: { domain: url.host, uri: resourceUrl, statement: SIGN_IN_STATEMENT, version: '1', ...PLACEHOLDER },
        supportedChains: this.supportedChains,
        schema: this.schema,
      },
    };
  }

  /** Random bytes for salts, drawn from the system a page at a time (one draw per 402 would be a system call each). */
  private readonly random = Buffer.alloc(SALT_BYTES * 1024);
  private randomAt = this.random.length;
  /** The times of the second last stamped (every 402 of that second states the same). */
  private times = { second: -1, issuedAt: '', expirationTime: '' };

  /** A fresh stamp for one 402 of `resourceUrl`. */
  stamp(resourceUrl: string, nowMs: number): SignInStamp {
    const second = Math.floor(nowMs / 1000);
    if (this.times.second !== second) this.times = { second, issuedAt: isoSeconds(nowMs), expirationTime: isoSeconds(second * 1000 + this.lifetimeMs) };
    const { issuedAt, expirationTime } = this.times;
    if (this.randomAt + SALT_BYTES > this.random.length) {
      randomFillSync(this.random);
      this.randomAt = 0;
    }
    const salt = this.random.toString('hex', this.randomAt, (this.randomAt += SALT_BYTES));
    return { nonce: salt + this.mac(salt, resourceUrl, issuedAt, expirationTime), issuedAt, expirationTime };
  }

  /**
   * The address that signed a message we issued for `resourceUrl` and that
   * has not expired, or why it proves nothing. Whether it was used before is
   * the ledger's to say (`spendSignIn`), once the rest holds.
   */
  async check(header: string, resourceUrl: string, nowMs: number): Promise<SignInCheck> {
    let p: SIWxPayload;
    try {
      p = parseSIWxHeader(header);
    } catch (e) {
      return { ok: false, code: 'unreadable', reason: e instanceof Error ? e.message : 'unreadable sign-in' };
    }
    const notOurs = { ok: false as const, code: 'not_issued_here' as const, reason: 'the sign-in is not the message this service issued' };
    if (p.uri !== resourceUrl || p.domain !== new URL(resourceUrl).host) return { ok: false, code: 'other_resource', reason: 'the sign-in names another resource, domain or URI' };
    if (!this.networks.includes(p.chainId) || p.version !== '1' || p.statement !== SIGN_IN_STATEMENT) return notOurs;
    // The SDK's clients name the signature type; one that does not is checked by its chain's type all the same.
    if (p.type !== undefined && p.type !== signatureType(p.chainId)) return notOurs;
    if (p.notBefore !== undefined || p.requestId !== undefined || (p.resources !== undefined && (p.resources.length !== 1 || p.resources[0] !== resourceUrl))) return notOurs;
    if (p.expirationTime === undefined || !ISO_SECONDS.test(p.issuedAt) || !ISO_SECONDS.test(p.expirationTime)) return notOurs;
    const issued = Date.parse(p.issuedAt);
    const expires = Date.parse(p.expirationTime);
    if (!Number.isFinite(issued) || !Number.isFinite(expires) || expires - issued !== this.lifetimeMs) return notOurs;
    if (issued > nowMs + SKEW_SECONDS * 1000 || expires <= nowMs) return { ok: false, code: 'expired', reason: 'the sign-in message has expired (or is dated ahead of this service\'s clock); sign the declaration of a new 402' };
    if (!/^[0-9a-f]{32}$/.test(p.nonce)) return notOurs;
    const salt = p.nonce.slice(0, 12);
    const expected = Buffer.from(this.mac(salt, resourceUrl, p.issuedAt, p.expirationTime));
    if (!timingSafeEqual(Buffer.from(p.nonce.slice(12)), expected)) return { ...notOurs, reason: 'the sign-in nonce was not issued by this service' };
    const verified = await verifySIWxSignature(p).catch(() => ({ isValid: false as const }));
    if (!verified.isValid) return { ok: false, code: 'bad_signature', reason: 'the sign-in signature does not verify' };
    return { ok: true, address: signatureType(p.chainId) === 'eip191' ? p.address.toLowerCase() : p.address, network: p.chainId, nonce: p.nonce, expiresAt: expires };
  }

  private mac(salt: string, resourceUrl: string, issuedAt: string, expirationTime: string): string {
    // SIWE nonces are alphanumeric: hex, 20 digits (80 bits) of the HMAC after the 12 of the salt. A
    // forged nonce must be guessed online, one signed request per try; the salt only keeps two 402s apart.
    return createHmac('sha256', this.secret).update(`${salt}\n${resourceUrl}\n${issuedAt}\n${expirationTime}`).digest('hex').slice(0, 20);
  }
}
