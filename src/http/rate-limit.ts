/**
 * Per-client rate limit of the free routes: a fixed one-minute window
 * counted in memory, or in Redis when several instances serve the same
 * clients (REDIS_URL). Paid routes are not limited here: every call that does
 * work is paid for, and the unpaid 402 answer is cheap and cached.
 *
 * The limit protects capacity, not money, so a Redis that does not answer
 * lets the request through (logged) instead of failing the free routes.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { errorBody } from '../errors.js';
import type { ClientKey } from '../foundation/client-key.js';
import { metrics } from '../observability/metrics.js';

const RATE_WINDOW_MS = 60_000;

/** Counts hits of one key in one window. */
export interface RateLimitStore {
  readonly kind: 'memory' | 'redis';
  /** Count this hit and return how many the key has had in `window` (this one included). */
  hit(key: string, window: number): Promise<number>;
  close(): Promise<void>;
}

/** One process's counters. Only the current window is kept, so memory stays bounded by one minute's clients. */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly kind = 'memory';
  private window = -1;
  private counts = new Map<string, number>();

  async hit(key: string, window: number): Promise<number> {
    if (window !== this.window) {
      this.window = window;
      this.counts = new Map();
    }
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    return n;
  }

  async close(): Promise<void> {}
}

/** Counters shared by every instance using the same Redis: INCR on a key per window, expiring after it. */
export class RedisRateLimitStore implements RateLimitStore {
  readonly kind = 'redis';
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'agent-pay:ratelimit:',
  ) {}

  async hit(key: string, window: number): Promise<number> {
    const k = `${this.prefix}${window}:${key}`;
    const replies = await this.redis.multi().incr(k).pexpire(k, RATE_WINDOW_MS * 2).exec();
    const [err, count] = replies?.[0] ?? [new Error('no reply from Redis'), 0];
    if (err) throw err;
    return Number(count);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

export interface RateLimitOptions {
  perMinute: number;
  store: RateLimitStore;
  /** The client a request counts against: its host's key, as every per-client limit counts it (clientKey). */
  clientOf(c: Context): ClientKey;
  /** Requests that are never limited (paid routes, probes, preflight). */
  exempt(c: Context): boolean;
  log?: Logger;
}

export function rateLimit(opts: RateLimitOptions): MiddlewareHandler {
  let warned = 0;
  return async (c, next) => {
    if (opts.exempt(c)) return next();
    const now = Date.now();
    const window = Math.floor(now / RATE_WINDOW_MS);
    let count: number;
    try {
      count = await opts.store.hit(opts.clientOf(c), window);
    } catch (e) {
      // At most one warning a minute: a Redis outage must not flood the log.
      if (now - warned > RATE_WINDOW_MS) {
        warned = now;
        opts.log?.warn({ err: e instanceof Error ? e.message : String(e), store: opts.store.kind }, 'rate-limit store unavailable: letting free requests through');
      }
      return next();
    }
    if (count <= opts.perMinute) return next();
    metrics.rateLimited.inc();
    const retryAfter = Math.max(1, Math.ceil(((window + 1) * RATE_WINDOW_MS - now) / 1000));
    return c.json(
      errorBody('rate_limited', `More than ${opts.perMinute} requests a minute to free routes from this client; retry after ${retryAfter} s. Paid routes are not limited.`),
      429,
      { 'Retry-After': String(retryAfter) },
    );
  };
}
