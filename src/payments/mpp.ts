/**
 * MPP: the IETF 'Payment' HTTP authentication scheme (draft-httpauth-payment),
 * method `evm`, intent `charge`, as mppx (wevm) speaks it. It is a second way
 * of carrying the same thing x402 carries: an EIP-3009
 * TransferWithAuthorization for our price, asset, payee and chain. So an MPP
 * credential is read here, checked against the challenge we issued, and
 * turned into the x402 exact PaymentPayload the gate takes: from there on it
 * is the same payment (same local checks, same bind by payer + nonce before
 * anything is sent, verify and settle through our facilitator, same ledger).
 *
 * The challenge: `id` is mppx's HMAC-SHA256 (MPP_SECRET_KEY) over realm,
 * method, intent, request, expires, digest and opaque, so we keep no state
 * per challenge. The authorization's nonce must be keccak256(id ‖ realm)
 * (mppx's `challengeHash`), so each 402 must carry a challenge of its own:
 * two equal challenges would give one payer the same nonce for two
 * purchases. `opaque` carries a per-instance counter (and the route, so a
 * challenge for one route pays no other).
 *
 * Where the credential travels: `Authorization: Payment …` by default, or
 * `Payment-Authorization: Payment …` when the challenge selected that field
 * with its `header` auth-param (the draft's only alternative), so that a
 * request keeps `Authorization` for another scheme (a proxy's or the
 * client's own authentication). The selection is bound into the id like
 * every other field, and a credential counts only in the field its challenge
 * selected (the draft's rule): `admit` checks it.
 *
 * Why a challenge proves who may receive a stored result (redelivery.ts):
 * only its hash goes on chain, as the nonce; the challenge itself (its HMAC
 * id) was sent to the buyer alone and cannot be rebuilt from the hash.
 */
import { createHash, createSecretKey, createHmac, randomBytes, type KeyObject } from 'node:crypto';
import { Challenge, Credential, Receipt, evm } from 'mppx';
import { getAddress, isAddress, type Hex } from 'viem';
import type { PaymentPayload, PaymentRequirements } from './rail.js';

export const MPP_METHOD = 'evm';
export const MPP_INTENT = 'charge';

/** The one field besides Authorization a challenge may select for its credential (draft-httpauth-payment, `header`). */
export const PAYMENT_AUTHORIZATION = 'Payment-Authorization';
/** The HTTP field a Payment credential travels in. */
export type CredentialField = 'Authorization' | typeof PAYMENT_AUTHORIZATION;

/** The draft's problem types (RFC 9457 `type`), as mppx names them. */
export const MPP_PROBLEMS = {
  malformed: { type: 'https://paymentauth.org/problems/malformed-credential', title: 'Malformed Credential', status: 402 },
  invalidChallenge: { type: 'https://paymentauth.org/problems/invalid-challenge', title: 'Invalid Challenge', status: 402 },
  verificationFailed: { type: 'https://paymentauth.org/problems/verification-failed', title: 'Verification Failed', status: 402 },
  expired: { type: 'https://paymentauth.org/problems/payment-expired', title: 'Payment Expired', status: 402 },
  methodUnsupported: { type: 'https://paymentauth.org/problems/method-unsupported', title: 'Method Unsupported', status: 400 },
  paymentRequired: { type: 'https://paymentauth.org/problems/payment-required', title: 'Payment Required', status: 402 },
} as const;
export type MppProblem = keyof typeof MPP_PROBLEMS;

export type MppChallenge = Challenge.Challenge;
export type MppCredential = Credential.Credential<unknown, MppChallenge>;

/** A challenge issued for one 402: the object (MCP carries it as JSON) and its WWW-Authenticate value. */
export interface IssuedChallenge {
  challenge: MppChallenge;
  header: string;
}

export interface MppTerms {
  network: string;
  payTo: string;
  asset: { address: string; decimals: number };
  /** The challenge lives as long as an x402 authorization may (the mppx client signs validBefore = expires). */
  maxTimeoutSeconds: number;
}

export type MppAdmission =
  | { ok: true; payment: PaymentPayload }
  | { ok: false; problem: MppProblem; code: 'payment_invalid'; message: string };

/** The least MPP_SECRET_KEY may hold, in bytes (HMAC-SHA256's block of security). */
export const MPP_SECRET_MIN_BYTES = 32;

const CHALLENGE_ID_CHARS = 43; // base64url of 32 bytes, unpadded

/** Authorization: Payment … (a credential), or undefined when the header carries no Payment scheme. */
export function paymentScheme(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  return Credential.extractPaymentScheme(authorization) ?? undefined;
}

/**
 * Every `Payment …` credential in a header value, as mppx finds one (a
 * comma-separated scheme starting with `Payment`): a field sent twice
 * arrives joined with ", ", and base64url has no comma.
 */
export function paymentSchemes(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => /^Payment\s+/i.test(s));
}

/** The field a challenge selected for its credential: its `header` (only Payment-Authorization is issued), else Authorization. */
export function selectedField(challenge: MppChallenge): string {
  const h = challenge.header;
  return h === undefined || h.toLowerCase() === 'authorization' ? 'Authorization' : h;
}

/** The credential in an `Authorization: Payment` value, or undefined when it is not base64url JSON of one. */
export function credentialFromHeader(value: string): MppCredential | undefined {
  if (value.length > 16_384) return undefined;
  try {
    return Credential.deserialize(value) as MppCredential;
  } catch {
    return undefined;
  }
}

/** The credential an MCP call carries in `_meta["org.paymentauth/credential"]` (mppx's object form), or undefined. */
export function credentialFromObject(value: unknown): MppCredential | undefined {
  if (!value || typeof value !== 'object' || !('challenge' in value) || !('payload' in value)) return undefined;
  try {
    return Credential.deserialize(Credential.serialize(value as MppCredential)) as MppCredential;
  } catch {
    return undefined;
  }
}

/** The `Payment-Receipt` value for a settled payment: base64url JSON, reference = the transfer's transaction. */
export function receiptHeader(transaction: string, at: number): string {
  return Receipt.serialize(receiptOf(transaction, at));
}

export function receiptOf(transaction: string, at: number): Receipt.Receipt {
  return { method: MPP_METHOD, reference: transaction, status: 'success', timestamp: new Date(at).toISOString() };
}

/** Per resource and price, what every challenge for it shares. */
interface Offer {
  realm: string;
  /** The route's tag in the opaque: 64 bits of SHA-256 of its path (short: every 402 carries it). */
  route: string;
  request: Record<string, unknown>;
  /** base64url(JCS(request)): the `request` auth-param and its slot in the HMAC input. */
  requestB64: string;
  /**
   * base64url of the opaque JSON up to the counter, `{"r":"<route tag>","s":"<instance>.`,
   * padded to a multiple of 3 bytes so that the counter's part can be encoded alone and appended.
   */
  opaquePrefix: string;
  /** The header up to the id, and from realm to the expires value. */
  headerHead: string;
  /** The HMAC input up to the expires value. */
  macHead: string;
  /** An upper bound of the header's length (see headerBytes): challenges selecting Authorization, and Payment-Authorization. */
  headerBytes?: number;
  headerBytesSelecting?: number;
}

/** One issued challenge: the header is built at once, the object (MCP's form) only when asked for. */
class Issued implements IssuedChallenge {
  constructor(
    private readonly offer: Offer,
    private readonly id: string,
    private readonly expires: string,
    private readonly opaque: string,
    private readonly field: CredentialField | undefined,
    readonly header: string,
  ) {}

  get challenge(): MppChallenge {
    const { realm, request } = this.offer;
    const header = this.field === PAYMENT_AUTHORIZATION ? { header: PAYMENT_AUTHORIZATION } : undefined;
    return { id: this.id, realm, method: MPP_METHOD, intent: MPP_INTENT, request, expires: this.expires, ...header, opaque: this.opaque } as MppChallenge;
  }
}

export class MppCharge {
  private readonly secret: string;
  private readonly key: KeyObject;
  private readonly terms: MppTerms;
  private readonly chainId: number;
  private readonly now: () => number;
  /** Unique per instance; the counter makes each challenge it issues unique. */
  private readonly instance = randomBytes(6).toString('base64url');
  private counter = 0;
  private readonly offers = new Map<string, Offer>();
  private expiresAt = { second: -1, iso: '' };

  constructor(secretKey: string, terms: MppTerms, now: () => number = Date.now) {
    if (Buffer.byteLength(secretKey) < MPP_SECRET_MIN_BYTES) throw new Error(`MPP secret key must be at least ${MPP_SECRET_MIN_BYTES} bytes`);
    this.secret = secretKey;
    // mppx keys its HMAC with the UTF-8 bytes of the secret string.
    this.key = createSecretKey(Buffer.from(secretKey, 'utf8'));
    this.terms = terms;
    // Config accepts eip155 networks only (X402_NETWORK).
    this.chainId = Number(terms.network.split(':')[1]);
    this.now = now;
  }

  /**
   * A fresh challenge for one 402 of `resourceUrl` at `priceAtomic`, its
   * credential to travel in `field` (Authorization when not given). Built
   * without mppx's Challenge.from, whose parse and canonicalisation would run
   * on the path every unpaid call takes (decision 0004); the unit test checks
   * that mppx reads, verifies and hashes it exactly as we do.
   */
  issue(resourceUrl: string, priceAtomic: string, field?: CredentialField): IssuedChallenge {
    const offer = this.offerOf(resourceUrl, priceAtomic);
    const expires = this.expires();
    const opaque = offer.opaquePrefix + Buffer.from(`${(this.counter++).toString(36)}"}`).toString('base64url');
    if (field === PAYMENT_AUTHORIZATION) {
      // mppx binds a selected field in a slot of its own just before the opaque (Challenge.verify reads it there).
      const id = createHmac('sha256', this.key).update(`${offer.macHead}${expires}||${PAYMENT_AUTHORIZATION}|${opaque}`).digest('base64url');
      return new Issued(offer, id, expires, opaque, field, `Payment id="${id}"${offer.headerHead}${expires}", header="${PAYMENT_AUTHORIZATION}", opaque="${opaque}"`);
    }
    // mppx's id: HMAC-SHA256 over realm|method|intent|request|expires|digest|opaque (no digest here).
    const id = createHmac('sha256', this.key).update(`${offer.macHead}${expires}||${opaque}`).digest('base64url');
    return new Issued(offer, id, expires, opaque, undefined, `Payment id="${id}"${offer.headerHead}${expires}", opaque="${opaque}"`);
  }

  /**
   * An upper bound of the WWW-Authenticate value's length for this resource,
   * price and credential field (what a header budget must leave room for):
   * one challenge's length plus room for a longer counter.
   */
  headerBytes(resourceUrl: string, priceAtomic: string, field?: CredentialField): number {
    const offer = this.offerOf(resourceUrl, priceAtomic);
    if (field === PAYMENT_AUTHORIZATION) return (offer.headerBytesSelecting ??= this.issue(resourceUrl, priceAtomic, field).header.length + 16);
    return (offer.headerBytes ??= this.issue(resourceUrl, priceAtomic).header.length + 16);
  }

  /**
   * A credential for `resourceUrl` at `priceAtomic`, come in `field` (over
   * HTTP; none: MCP's `_meta`, where only the default applies), checked
   * against the challenge we issued and turned into the x402 payload the gate takes
   * (`accepted` = the matching requirements). Nothing here writes or sends:
   * the gate's own local checks (EIP-712 signature of `from`, time window)
   * run next. An expired challenge is let through when its authorization is
   * expired too (validBefore never outlives the challenge): the gate then
   * refuses it as a new payment and serves it only as a redelivery.
   */
  admit(credential: MppCredential, resourceUrl: string, priceAtomic: string, requirements: PaymentRequirements[], field?: CredentialField): MppAdmission {
    const c = credential.challenge;
    const fail = (problem: MppProblem, message: string): MppAdmission => ({ ok: false, problem, code: 'payment_invalid', message });
    if (c.method !== MPP_METHOD || c.intent !== MPP_INTENT) return fail('methodUnsupported', `Only method "${MPP_METHOD}", intent "${MPP_INTENT}" is accepted (got "${c.method}", "${c.intent}").`);
    if (!this.issued(c)) return fail('invalidChallenge', 'The challenge was not issued by this service (its id does not verify); answer a fresh challenge.');
    // From here the challenge is one `issue` built (the id binds every field): an opaque naming its route, an expires, no digest.
    const offer = this.offerOf(resourceUrl, priceAtomic);
    if (c.realm !== offer.realm || routeOf(c) !== offer.route) return fail('invalidChallenge', 'The challenge was issued for another resource; answer this resource\'s challenge.');
    // The draft: a credential satisfies its challenge only in the field the challenge selected.
    const selected = selectedField(c);
    if (selected !== (field ?? 'Authorization')) {
      return fail('invalidChallenge', `The challenge selected the ${selected} header for its credential, which counts only there (it came ${field ? `in ${field}` : 'outside an HTTP header'}); send it in ${selected}.`);
    }
    if (JSON.stringify(canonicalRequest(c.request)) !== JSON.stringify(offer.request)) {
      return fail('invalidChallenge', 'The challenge asks for another amount, currency, recipient or chain than this resource now does; answer a fresh challenge.');
    }
    const expires = Date.parse(c.expires!);
    const p = authorizationPayload(credential.payload);
    if (!p) return fail('malformed', 'The credential payload is not an EIP-3009 authorization (type "authorization", from, to, value, validAfter, validBefore, nonce, signature).');
    if (p.to.toLowerCase() !== this.terms.payTo.toLowerCase() || p.value !== priceAtomic) return fail('verificationFailed', 'The authorization does not pay the challenge\'s amount to its recipient.');
    if (p.nonce.toLowerCase() !== evm.challengeHash(c).toLowerCase()) return fail('verificationFailed', 'The authorization nonce is not the challenge hash (keccak256 of id and realm).');
    if (Number(p.validBefore) > Math.floor(expires / 1000)) return fail('verificationFailed', 'The authorization is valid for longer than its challenge (validBefore after expires).');
    if (credential.source !== undefined && credential.source !== `did:pkh:eip155:${this.chainId}:${getAddress(p.from)}`) return fail('verificationFailed', 'The credential source is not the authorization\'s payer.');
    const accepted = requirements.find((r) => r.amount === priceAtomic && r.payTo.toLowerCase() === this.terms.payTo.toLowerCase() && r.asset.toLowerCase() === this.terms.asset.address.toLowerCase());
    if (!accepted) return fail('invalidChallenge', 'This resource has no requirements matching the challenge.');
    const { from, to, value, validAfter, validBefore, nonce, signature } = p;
    return { ok: true, payment: { x402Version: 2, accepted, payload: { signature, authorization: { from, to, value, validAfter, validBefore, nonce } } } as PaymentPayload };
  }

  /**
   * True when `challenge` is one we issued (its HMAC id verifies) and hashes
   * to `nonce`: the holder received the challenge the authorization was
   * signed for (a redelivery proof; see the file comment). Expiry does not
   * matter here: a stored result stays fetchable.
   */
  proves(challenge: MppChallenge, nonce: string): boolean {
    return this.issued(challenge) && evm.challengeHash(challenge).toLowerCase() === nonce.toLowerCase();
  }

  private issued(c: MppChallenge): boolean {
    // A credential's challenge went through mppx's Challenge schema (strings, a request record): verify cannot throw.
    return c.id.length === CHALLENGE_ID_CHARS && Challenge.verify(c, { secretKey: this.secret });
  }

  private offerOf(resourceUrl: string, priceAtomic: string): Offer {
    const k = `${resourceUrl}|${priceAtomic}`;
    let o = this.offers.get(k);
    if (!o) {
      const u = new URL(resourceUrl);
      const request = canonicalRequest({
        amount: priceAtomic,
        currency: getAddress(this.terms.asset.address),
        recipient: getAddress(this.terms.payTo),
        methodDetails: { chainId: this.chainId, credentialTypes: ['authorization'], decimals: this.terms.asset.decimals },
      });
      const requestB64 = Buffer.from(JSON.stringify(request)).toString('base64url');
      const route = createHash('sha256').update(u.pathname).digest('base64url').slice(0, 11);
      // JCS of {r, s}: keys in order, base64url string values, so the JSON text is canonical.
      const bare = `{"r":"${route}","s":"${this.instance}`;
      // Padded with zeros to a multiple of 3 bytes (ASCII), so its base64 ends on a boundary.
      const head = `${bare}${'0'.repeat((3 - ((bare.length + 1) % 3)) % 3)}.`;
      o = {
        realm: u.host,
        route,
        request,
        requestB64,
        opaquePrefix: Buffer.from(head).toString('base64url'),
        headerHead: `, realm="${u.host}", method="${MPP_METHOD}", intent="${MPP_INTENT}", request="${requestB64}", expires="`,
        macHead: `${u.host}|${MPP_METHOD}|${MPP_INTENT}|${requestB64}|`,
      };
      // Bounded: Host headers are caller-controlled.
      if (this.offers.size >= 256) this.offers.clear();
      this.offers.set(k, o);
    }
    return o;
  }

  /** now + maxTimeoutSeconds, to the second (cached per second). */
  private expires(): string {
    const second = Math.floor(this.now() / 1000);
    if (this.expiresAt.second !== second) this.expiresAt = { second, iso: new Date((second + this.terms.maxTimeoutSeconds) * 1000).toISOString().replace('.000Z', 'Z') };
    return this.expiresAt.iso;
  }
}

/** The route tag a challenge `issue` built names in its opaque. */
function routeOf(c: MppChallenge): string {
  return (JSON.parse(Buffer.from(c.opaque!, 'base64url').toString('utf8')) as { r: string }).r;
}

/** A charge request with its keys in JCS order (what PaymentRequest.serialize produces). */
function canonicalRequest(r: Record<string, unknown>): Record<string, unknown> {
  const sort = (v: unknown): unknown =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort((v as Record<string, unknown>)[k])]))
      : Array.isArray(v)
        ? v.map(sort)
        : v;
  return sort(r) as Record<string, unknown>;
}

const UINT = /^[0-9]{1,78}$/;

/** mppx's evm authorization payload, shape-checked (the gate checks the signature). */
function authorizationPayload(p: unknown): { from: Hex; to: Hex; value: string; validAfter: string; validBefore: string; nonce: Hex; signature: Hex } | undefined {
  if (!p || typeof p !== 'object') return undefined;
  const { type, from, to, value, validAfter, validBefore, nonce, signature } = p as Record<string, unknown>;
  if (type !== 'authorization') return undefined;
  if (typeof from !== 'string' || !isAddress(from, { strict: true }) || typeof to !== 'string' || !isAddress(to, { strict: true })) return undefined;
  for (const n of [value, validAfter, validBefore]) if (typeof n !== 'string' || !UINT.test(n)) return undefined;
  if (typeof nonce !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(nonce)) return undefined;
  if (typeof signature !== 'string' || !/^0x([0-9a-fA-F]{2})+$/.test(signature)) return undefined;
  return { from: from as Hex, to: to as Hex, value: value as string, validAfter: validAfter as string, validBefore: validBefore as string, nonce: nonce as Hex, signature: signature as Hex };
}

/** The draft's problem type for a gate outcome to an MPP credential (every transport's): its own checks name one; the gate's codes map to the nearest. */
export function mppProblemOf(outcome: { code: string; mppProblem?: MppProblem }): MppProblem {
  if (outcome.mppProblem) return outcome.mppProblem;
  return outcome.code === 'payment_expired' ? 'expired' : outcome.code === 'payment_required' ? 'paymentRequired' : 'verificationFailed';
}
