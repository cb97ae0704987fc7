/**
 * Several facilitators as one `FacilitatorClient`, in the operator's order of
 * preference (X402_FACILITATOR_URL, comma-separated). The rail and the SDK see
 * one client; this pool decides which facilitator each call goes to.
 *
 * A facilitator is in rotation once its /supported listed our payment kind
 * (x402Version 2, `exact`, the configured network). A call to it that gets no
 * answer (network error, timeout, 5xx, garbled body) puts it in back-off for
 * a short while: it is asked again only after the healthy ones.
 *
 * Money rules (facilitators.test.ts, test/facilitator-failover.test.ts):
 *
 * 1. Verify moves no money: when a facilitator gives no answer the next one
 *    is asked. A refusal (isValid false, a 4xx verdict) is an answer and is
 *    final.
 * 2. A settle goes to the facilitator that verified the payment, unless it is
 *    in back-off; then (or when no verify was seen: a restart, another
 *    instance) to the first healthy one.
 * 3. A settle is re-sent to another facilitator ONLY when the previous one
 *    provably never received it (`not-sent`: connection refused, unknown
 *    host, unreachable network).
 * 4. A settle whose outcome is unknown (timeout, 5xx, reset, garbled) is never
 *    sent to another facilitator by the pool, and within one settle of the
 *    rail (the SDK re-sends a "settlement pending" once) only the facilitator
 *    that received it is asked again. The next settle of that authorization
 *    is the gate's, which sends one only after the chain shows the
 *    authorization unused and still valid (gate.ts chainStep); that one may
 *    go to any facilitator, by rules 2 and 3. One EIP-3009 authorization can
 *    transfer at most once, whoever broadcasts it.
 * 5. The facilitator that received a settle is reported to the rail
 *    (`takeSettleTarget`), which hands it to the gate for the ledger.
 *
 * Facilitators are named by their URL's origin and path: never its
 * credentials or query (an API key may sit there), in logs, metrics and the
 * ledger alike.
 */
import { createHash } from 'node:crypto';
import type { FacilitatorClient } from '@x402/core/server';
import { SettleError, VerifyError } from '@x402/core/types';
import type { PaymentPayload, PaymentRequirements, SettleResponse, SupportedResponse, VerifyResponse } from '@x402/core/types';
import type { PaymentConfig } from '../config.js';
import { metrics } from '../observability/metrics.js';
import { facilitatorHttpClient } from './facilitator-http.js';

/** How long a facilitator that gave no answer is asked only after the others. */
const FACILITATOR_BACKOFF_MS = 30_000;

/** Authorizations whose verifier or settle target is remembered (oldest forgotten first). */
const REMEMBERED = 10_000;

/** The payment kind every facilitator must support: the only one the rail builds. */
export const PAYMENT_SCHEME = 'exact';
export const X402_VERSION = 2;

/** A facilitator's name: its URL's origin and path, without credentials, query or fragment. */
export function facilitatorName(url: string): string {
  try {
    const u = new URL(url);
    return u.origin + u.pathname.replace(/\/+$/, '');
  } catch {
    return '(unparseable facilitator URL)';
  }
}

/** Errors that prove the request never left this process or never reached the peer. */
export function provablyNotSent(e: unknown): boolean {
  const codes = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'];
  let cur: unknown = e;
  for (let i = 0; i < 4 && cur; i++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && codes.includes(code)) return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}

/** Whether a /supported answer lists the one payment kind the rail builds requirements for. */
export function supportsPayment(answer: SupportedResponse, network: string): boolean {
  return Array.isArray(answer?.kinds) && answer.kinds.some((k) => k?.x402Version === X402_VERSION && k.scheme === PAYMENT_SCHEME && k.network === network);
}

/** What a /supported answer lists, in one short line (facilitator-controlled text: printable, bounded). */
export function kindsSummary(answer: SupportedResponse): string {
  const kinds = Array.isArray(answer?.kinds) ? answer.kinds : [];
  const text = kinds.length ? kinds.map((k) => `v${String(k?.x402Version)} ${String(k?.scheme)} on ${String(k?.network)}`).join(', ') : 'no kinds';
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 200 ? clean.slice(0, 200) + '…' : clean;
}

function errText(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.length > 200 ? m.slice(0, 200) + '…' : m;
}

/** Settle's routing needs to know which facilitator got a settle; the rail asks after each one. */
export interface SettleTargets {
  /**
   * The facilitator the latest settle of this payment was sent to (received,
   * or possibly received), forgetting it: the next settle of the same
   * authorization is a new decision (rule 4). Undefined when none was sent.
   */
  takeSettleTarget(payload: PaymentPayload): string | undefined;
}

export type ProbeVerdict =
  | { facilitator: string; verdict: 'ok'; answer: SupportedResponse }
  | { facilitator: string; verdict: 'unsupported'; answer: SupportedResponse }
  | { facilitator: string; verdict: 'unreachable'; error: string };

interface Member {
  name: string;
  client: FacilitatorClient;
  /** `ok`: its /supported listed our kind; only those get verify and settle. */
  checked: 'unchecked' | 'ok' | 'unsupported';
  /** Until when it is asked only after the healthy ones (ms). */
  downUntil: number;
}

export interface PoolOptions {
  network: string;
  backoffMs?: number;
  now?: () => number;
  /** Called with every good /supported answer (the last good one is persisted: facilitator-watch.ts). */
  onSupported?: (answer: SupportedResponse, facilitator: string) => void;
  log?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

/** Identifies one authorization across verify and settle: its signature (enrichment before settle only adds fields). */
function authorizationKey(payload: PaymentPayload): string {
  const p = payload.payload as Record<string, unknown> | undefined;
  const basis = typeof p?.signature === 'string' ? p.signature : JSON.stringify(p ?? null);
  return createHash('sha256').update(basis).digest('hex');
}

/** A Map that forgets its oldest entries past `REMEMBERED`. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > REMEMBERED) map.delete(map.keys().next().value!);
}

export class FacilitatorPool implements FacilitatorClient, SettleTargets {
  private readonly members: Member[];
  private readonly network: string;
  private readonly backoffMs: number;
  private readonly now: () => number;
  private readonly onSupported: PoolOptions['onSupported'];
  private readonly log: NonNullable<PoolOptions['log']>;
  /** Who verified an authorization: its settle goes there (rule 2). */
  private readonly verifiedBy = new Map<string, Member>();
  /** Who received the settle of an authorization, until the rail takes it (rules 4 and 5). */
  private readonly sentTo = new Map<string, Member>();

  constructor(facilitators: Array<{ name: string; client: FacilitatorClient }>, opts: PoolOptions) {
    if (facilitators.length === 0) throw new Error('a facilitator pool needs at least one facilitator');
    const seen = new Map<string, number>();
    this.members = facilitators.map(({ name, client }) => {
      // Two URLs differing only in credentials or query share a name; keep series and log lines apart.
      const n = (seen.get(name) ?? 0) + 1;
      seen.set(name, n);
      return { name: n === 1 ? name : `${name} (${n})`, client, checked: 'unchecked' as const, downUntil: 0 };
    });
    this.network = opts.network;
    this.backoffMs = opts.backoffMs ?? FACILITATOR_BACKOFF_MS;
    this.now = opts.now ?? Date.now;
    this.onSupported = opts.onSupported;
    this.log = opts.log ?? { warn() {}, error() {} };
    for (const m of this.members) metrics.facilitatorUp.set({ facilitator: m.name }, 0);
  }

  /** The facilitators' names, in order of preference. */
  get names(): string[] {
    return this.members.map((m) => m.name);
  }

  /** Some facilitator has not answered /supported yet (unreachable so far). */
  get hasUnchecked(): boolean {
    return this.members.some((m) => m.checked === 'unchecked');
  }

  // ------------------------------------------------------------------ health

  private answered(m: Member): void {
    m.downUntil = 0;
    metrics.facilitatorUp.set({ facilitator: m.name }, m.checked === 'ok' ? 1 : 0);
  }

  private failed(m: Member, e: unknown, op: string): void {
    if (m.downUntil <= this.now()) this.log.warn({ facilitator: m.name, op, err: errText(e), backoffMs: this.backoffMs }, 'facilitator gave no answer: asked after the others for a while');
    m.downUntil = this.now() + this.backoffMs;
    metrics.facilitatorUp.set({ facilitator: m.name }, 0);
  }

  private healthy(m: Member): boolean {
    return m.downUntil <= this.now();
  }

  /** Facilitators in rotation: healthy ones first, each group in order of preference. */
  private inRotation(first?: Member): Member[] {
    const ok = this.members.filter((m) => m.checked === 'ok');
    const healthy = ok.filter((m) => this.healthy(m));
    const head = first && healthy.includes(first) ? [first] : [];
    return [...head, ...healthy.filter((m) => m !== first), ...ok.filter((m) => !this.healthy(m))];
  }

  /** Made only when no facilitator was tried (an Error captures a stack trace). */
  private noFacilitator(op: string): Error {
    return new Error(`no facilitator to ${op}: none has answered /supported with ${PAYMENT_SCHEME} on ${this.network} yet`);
  }

  // ------------------------------------------------------------------ /supported

  /** Record what one /supported answer says about a facilitator. */
  private judge(m: Member, answer: SupportedResponse): ProbeVerdict {
    if (!supportsPayment(answer, this.network)) {
      if (m.checked !== 'unsupported') {
        this.log.error({ facilitator: m.name, lists: kindsSummary(answer) }, `facilitator does not support ${PAYMENT_SCHEME} on ${this.network} (x402Version ${X402_VERSION}): left out of rotation`);
      }
      m.checked = 'unsupported';
      metrics.facilitatorUp.set({ facilitator: m.name }, 0);
      return { facilitator: m.name, verdict: 'unsupported', answer };
    }
    m.checked = 'ok';
    this.answered(m);
    this.onSupported?.(answer, m.name);
    return { facilitator: m.name, verdict: 'ok', answer };
  }

  private async probe(m: Member): Promise<ProbeVerdict> {
    try {
      return this.judge(m, await m.client.getSupported());
    } catch (e) {
      this.failed(m, e, 'supported');
      return { facilitator: m.name, verdict: 'unreachable', error: errText(e) };
    }
  }

  /**
   * Ask every facilitator (or only those that never answered) for /supported,
   * all at once, and put each that lists our kind in rotation. Verdicts in
   * order of preference.
   */
  async preflight(onlyUnchecked = false): Promise<ProbeVerdict[]> {
    return Promise.all(this.members.filter((m) => !onlyUnchecked || m.checked === 'unchecked').map((m) => this.probe(m)));
  }

  /**
   * The first good /supported answer, healthy facilitators first in order of
   * preference (readiness and the SDK's initialize ask this). Throws when no
   * facilitator answers with our kind.
   */
  async getSupported(): Promise<SupportedResponse> {
    const candidates = this.members.filter((m) => m.checked !== 'unsupported');
    const order = [...candidates.filter((m) => this.healthy(m)), ...candidates.filter((m) => !this.healthy(m))];
    const problems: string[] = [];
    for (const m of order) {
      const v = await this.probe(m);
      if (v.verdict === 'ok') return v.answer;
      problems.push(`${m.name}: ${v.verdict === 'unreachable' ? v.error : `lists ${kindsSummary(v.answer)}`}`);
    }
    throw new Error(`no facilitator answered /supported with ${PAYMENT_SCHEME} on ${this.network} (${problems.join('; ') || 'none left in rotation'})`);
  }

  // ------------------------------------------------------------------ verify and settle

  /** Rule 1: the first answer wins; no answer moves on to the next facilitator. */
  async verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse> {
    const key = authorizationKey(payload);
    let last: unknown;
    for (const m of this.inRotation()) {
      try {
        const r = await m.client.verify(payload, requirements);
        this.answered(m);
        if (r.isValid) remember(this.verifiedBy, key, m);
        return r;
      } catch (e) {
        if (e instanceof VerifyError && e.statusCode < 500) {
          this.answered(m);
          throw e;
        }
        this.failed(m, e, 'verify');
        last = e;
      }
    }
    throw last ?? this.noFacilitator('verify');
  }

  /** Rules 2 to 4: the verifier first; another facilitator only after a provable not-sent. */
  async settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse> {
    const key = authorizationKey(payload);
    const received = this.sentTo.get(key);
    // A settle a facilitator received (the SDK re-sending "settlement pending") goes only there.
    const order = received ? [received] : this.inRotation(this.verifiedBy.get(key));
    let last: unknown;
    for (const m of order) {
      try {
        const r = await m.client.settle(payload, requirements);
        this.answered(m);
        remember(this.sentTo, key, m);
        return r;
      } catch (e) {
        if (e instanceof SettleError && e.statusCode < 500) {
          this.answered(m);
          remember(this.sentTo, key, m);
          throw e;
        }
        this.failed(m, e, 'settle');
        if (provablyNotSent(e)) {
          last = e;
          continue;
        }
        // It may have been received, and broadcast: nobody else gets it (rule 4).
        remember(this.sentTo, key, m);
        throw e;
      }
    }
    throw last ?? this.noFacilitator('settle');
  }

  takeSettleTarget(payload: PaymentPayload): string | undefined {
    const key = authorizationKey(payload);
    const m = this.sentTo.get(key);
    this.sentTo.delete(key);
    this.verifiedBy.delete(key);
    return m?.name;
  }
}

export interface PoolWiring {
  /** Wrap each facilitator's client (metrics and logs per facilitator). */
  instrument?: (client: FacilitatorClient, name: string) => FacilitatorClient;
  /** Use this client instead of HTTP for the first configured facilitator (fault-injection tests). */
  client?: FacilitatorClient;
  onSupported?: PoolOptions['onSupported'];
  log?: PoolOptions['log'];
  backoffMs?: number;
}

/** The configured facilitators as one pool, in order of preference. */
export function facilitatorPool(payment: PaymentConfig, wiring: PoolWiring = {}): FacilitatorPool {
  const urls = wiring.client ? payment.facilitatorUrls.slice(0, 1) : payment.facilitatorUrls;
  const members = urls.map((url) => {
    const name = facilitatorName(url);
    const client = wiring.client ?? facilitatorHttpClient(url, payment);
    return { name, client: wiring.instrument ? wiring.instrument(client, name) : client };
  });
  return new FacilitatorPool(members, { network: payment.network, onSupported: wiring.onSupported, log: wiring.log, backoffMs: wiring.backoffMs });
}
