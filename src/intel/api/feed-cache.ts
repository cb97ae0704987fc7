/**
 * Cached bytes of the free feeds. A feed's answer is a function of its route,
 * its normalized query and the content it reads, and that content changes
 * only with a write, which advances the store's content generation in the
 * same transaction (store/clock.ts). So the encoded body and its ETag are
 * kept per (route, normalized query, version), where the version is the
 * generation plus whatever else the body shows (the newswire adds its
 * revenue figure), and a request costs one indexed read of the generation
 * instead of the query, JSON.stringify and SHA-256.
 *
 * Why read the generation on every request rather than trust a TTL: another
 * instance on the same PostgreSQL may write at any time; the one-row read is
 * how this instance learns it, and it is what makes "never stale after a
 * write" hold across instances, not just within this one.
 *
 * Bounded by bytes (least recently used first out). Concurrent misses of one
 * key share one build.
 */
import type { Context } from 'hono';
import { ifNoneMatchHits, parseQuery, strongEtag, type ParameterDef, type ParsedQuery } from '../http.js';

const DEFAULT_FEED_CACHE_BYTES = 32 * 1024 * 1024;

interface Entry {
  body: Uint8Array<ArrayBuffer>;
  etag: string;
}

export class FeedCache {
  private readonly entries = new Map<string, Entry>();
  private readonly building = new Map<string, Promise<Entry>>();
  private bytes = 0;
  private readonly encoder = new TextEncoder();

  constructor(readonly maxBytes: number = DEFAULT_FEED_CACHE_BYTES) {}

  /** Bytes held now (bodies only). */
  get size(): number {
    return this.bytes;
  }

  get count(): number {
    return this.entries.size;
  }

  /**
   * Answer with the cached bytes for (key, version), building them on a miss;
   * 304 when If-None-Match matches. `key` is route + normalized query.
   */
  async serve(c: Context, key: string, version: string, build: () => Promise<unknown>): Promise<Response> {
    const entry = await this.entry(`${version}\n${key}`, build);
    const headers = { ETag: entry.etag, 'Cache-Control': 'no-cache' };
    if (ifNoneMatchHits(c.req.header('if-none-match'), entry.etag)) return new Response(null, { status: 304, headers });
    return new Response(entry.body, { status: 200, headers: { 'Content-Type': 'application/json', ...headers } });
  }

  private async entry(full: string, build: () => Promise<unknown>): Promise<Entry> {
    const hit = this.entries.get(full);
    if (hit) {
      // Most recently used last: re-insert.
      this.entries.delete(full);
      this.entries.set(full, hit);
      return hit;
    }
    const pending = this.building.get(full);
    if (pending) return pending;
    const made = (async () => {
      const text = JSON.stringify(await build());
      return { body: this.encoder.encode(text) as Uint8Array<ArrayBuffer>, etag: strongEtag(text) };
    })();
    this.building.set(full, made);
    try {
      const e = await made;
      this.remember(full, e);
      return e;
    } finally {
      this.building.delete(full);
    }
  }

  private remember(full: string, e: Entry): void {
    if (e.body.byteLength > this.maxBytes) return;
    this.entries.set(full, e);
    this.bytes += e.body.byteLength;
    for (const [k, old] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= old.body.byteLength;
    }
  }
}

/** The cache key of a parsed query: its values in name order (defaults included, so `?limit=50` and no limit share bytes). */
export function normalizedQuery(values: Record<string, unknown>): string {
  return JSON.stringify(
    Object.keys(values)
      .filter((k) => values[k] !== undefined)
      .sort()
      .map((k) => [k, values[k]]),
  );
}

/** Parsed queries by their raw text: a poller repeats the same query string, so it is parsed once. */
export class QueryMemo {
  private readonly memo = new Map<string, { parsed: Extract<ParsedQuery, { ok: true }>; key: string }>();

  constructor(
    private readonly defs: readonly ParameterDef[],
    private readonly max = 1024,
  ) {}

  /** The parsed query and its normalized key; a bad query is parsed every time (and never kept). */
  parse(url: string): { parsed: Extract<ParsedQuery, { ok: false }> } | { parsed: Extract<ParsedQuery, { ok: true }>; key: string } {
    const at = url.indexOf('?');
    const raw = at < 0 ? '' : url.slice(at + 1);
    const hit = this.memo.get(raw);
    if (hit) return hit;
    const parsed = parseQuery(this.defs, new URL(url));
    if (!parsed.ok) return { parsed };
    const entry = { parsed, key: normalizedQuery(parsed.values) };
    if (this.memo.size >= this.max) this.memo.clear();
    this.memo.set(raw, entry);
    return entry;
  }
}
