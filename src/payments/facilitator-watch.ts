/**
 * The facilitators from start-up on: preflight, the last good /supported
 * answer, and probing in the background.
 *
 * - Preflight: every configured facilitator is asked for /supported at once.
 *   One that answers without our payment kind (x402Version 2, `exact`, the
 *   configured network: all the SDK's requirement building reads from it)
 *   stops start-up with one line naming it. One that does not answer is not
 *   fatal while another passed: it is probed again until it answers.
 * - The last good answer is kept in DATA_DIR/facilitator-supported.json
 *   (written atomically). While no facilitator answers, even across a
 *   restart, the rail builds its 402s from it, so an unpaid request (a
 *   buyer's first call, a discovery crawler) still gets the normal 402; a paid
 *   one still fails closed, since verify has no facilitator to ask.
 * - /supported is asked again every few minutes, and every few seconds while
 *   a facilitator has never answered or the rail has no live answer. An
 *   outage is logged once when it begins and once when it ends.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SupportedResponse } from '@x402/core/types';
import { ConfigError } from '../config.js';
import { kindsSummary, PAYMENT_SCHEME, supportsPayment, X402_VERSION, type FacilitatorPool } from './facilitators.js';

/** While a facilitator has never answered, or the rail runs on a saved answer: how often to ask again. */
export const PROBE_RETRY_MS = 5_000;
/** How often /supported is asked again once all is well (the answer saved for the next outage). */
export const SUPPORTED_REFRESH_MS = 5 * 60_000;

export const LAST_GOOD_FILE = 'facilitator-supported.json';

type Log = { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void };

/** DATA_DIR/facilitator-supported.json: the last /supported answer that listed our payment kind. */
export class LastGoodSupported {
  private written: string | undefined;

  constructor(
    readonly file: string,
    private readonly network: string,
    private readonly log?: Log,
  ) {}

  /** The saved answer, when there is one that lists our kind (a changed network makes an old one useless). */
  load(): { answer: SupportedResponse; facilitator: string; savedAt: string } | undefined {
    let saved: { answer?: SupportedResponse; facilitator?: unknown; savedAt?: unknown };
    try {
      saved = JSON.parse(readFileSync(this.file, 'utf8')) as typeof saved;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') this.log?.warn({ file: this.file, err: (e as Error).message }, 'saved /supported answer unreadable: ignored');
      return undefined;
    }
    if (!saved?.answer || !supportsPayment(saved.answer, this.network)) return undefined;
    return { answer: { kinds: saved.answer.kinds, extensions: saved.answer.extensions ?? [], signers: saved.answer.signers ?? {} }, facilitator: String(saved.facilitator), savedAt: String(saved.savedAt) };
  }

  /** Save an answer (only when it changed): a temporary file renamed over the old one, so a crash leaves one or the other whole. */
  save(answer: SupportedResponse, facilitator: string): void {
    const body = JSON.stringify({ answer, facilitator });
    if (body === this.written) return;
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ savedAt: new Date().toISOString(), facilitator, answer }, null, 2) + '\n');
      renameSync(tmp, this.file);
      this.written = body;
    } catch (e) {
      this.log?.warn({ file: this.file, err: (e as Error).message }, 'could not save the /supported answer');
    }
  }
}

export interface WatchOptions {
  pool: FacilitatorPool;
  rail: { readonly ready: boolean; initialize(known?: SupportedResponse): Promise<void> };
  network: string;
  /** Further networks offered when the facilitators settle them (the Solana rail): a warning, not a stop, when they do not. */
  optionalNetworks?: readonly string[];
  lastGood: LastGoodSupported;
  log: Log;
  now?: () => number;
}

/**
 * Preflight, then initialize the rail from the best answer there is, then
 * keep probing. Throws a ConfigError when a facilitator answers without our
 * payment kind. Returns the function that stops the probing.
 */
export async function startFacilitators(opts: WatchOptions): Promise<() => void> {
  const { pool, rail, network, lastGood, log } = opts;
  const now = opts.now ?? Date.now;
  const verdicts = await pool.preflight();
  const refused = verdicts.find((v) => v.verdict === 'unsupported');
  if (refused && refused.verdict === 'unsupported') {
    throw new ConfigError(
      'X402_FACILITATOR_URL',
      `facilitator ${refused.facilitator} does not support x402Version ${X402_VERSION} "${PAYMENT_SCHEME}" payments on ${network} (its /supported lists ${kindsSummary(refused.answer)})`,
    );
  }
  const unreachable = verdicts.filter((v) => v.verdict === 'unreachable');
  const passed = verdicts.find((v) => v.verdict === 'ok');
  /** When the rail last took a live answer (0: never; it runs on the saved one, or has none). */
  let liveAt = 0;
  if (passed && passed.verdict === 'ok') {
    await rail.initialize(passed.answer);
    liveAt = now();
    for (const other of opts.optionalNetworks ?? []) {
      if (!supportsPayment(passed.answer, other)) {
        log.warn({ facilitator: passed.facilitator, network: other }, `facilitator ${passed.facilitator} does not settle "${PAYMENT_SCHEME}" payments on ${other} (its /supported lists ${kindsSummary(passed.answer)}): the 402s offer ${network} only`);
      }
    }
    if (unreachable.length) log.warn({ facilitators: unreachable.map((v) => v.facilitator), inRotation: verdicts.filter((v) => v.verdict === 'ok').map((v) => v.facilitator) }, `facilitator not reachable at start-up: left out of rotation, asked again every ${PROBE_RETRY_MS / 1000} s`);
  } else {
    const saved = lastGood.load();
    if (saved) {
      await rail.initialize(saved.answer);
      log.warn({ facilitators: pool.names, savedAt: saved.savedAt, file: lastGood.file }, 'no facilitator reachable: 402s are built from the last good /supported answer; paid calls answer 503 until a facilitator answers');
    } else {
      log.warn({ facilitators: pool.names }, 'no facilitator reachable yet and no saved /supported answer: paid routes answer 503 until one answers');
    }
  }

  /**
   * Whether the last ask went unanswered. An outage is logged when it starts
   * (at start-up, the warning above) and when it ends, not at every probe:
   * an offline service would otherwise log a line every PROBE_RETRY_MS.
   */
  let failing = !(passed && passed.verdict === 'ok');
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      /** Every facilitator was just asked, without an answer: none is asked twice in one probe. */
      let noneAnswered = false;
      if (liveAt === 0 || now() - liveAt >= SUPPORTED_REFRESH_MS) {
        // The pool is asked first (it saves a good answer) and the SDK takes its answer: the SDK asking
        // itself would add its own console warning on every failed probe.
        try {
          await rail.initialize(await pool.getSupported());
          if (failing) log.info({ facilitators: pool.names }, liveAt === 0 ? 'a facilitator answered /supported: paid routes open' : 'a facilitator answers /supported again');
          failing = false;
          liveAt = now();
        } catch (e) {
          // Only a live rail gets here without a warning already out (start-up gave the others theirs).
          if (!failing) log.warn({ facilitators: pool.names, err: (e as Error).message }, `no facilitator answers /supported: 402s keep the last answer; asked again every ${PROBE_RETRY_MS / 1000} s, logged again when one answers`);
          failing = true;
          noneAnswered = true;
        }
      }
      if (pool.hasUnchecked && !noneAnswered) {
        for (const v of await pool.preflight(true)) {
          if (v.verdict === 'ok') log.info({ facilitator: v.facilitator }, 'facilitator answered /supported: in rotation');
        }
      }
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), PROBE_RETRY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
