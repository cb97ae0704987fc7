/**
 * The newswire feed (`GET /v1/newswire`): current published items, newest
 * eventDate first, with market movements and this service's independent
 * revenue. Two ways to read it:
 *
 * - Latest (neither `since` nor `until`): the `limit` newest items (newest
 *   eventDate, then newest lastUpdatedAt) stored up to the watermark. `truncated`
 *   says older items exist; `olderCursor` pages back through them (an opaque
 *   keyset, exact across items that share an eventDate). `nextCursor` is
 *   generatedAt: poll from there with `since`.
 * - Polling (`since` and/or `until`): items whose lastUpdatedAt falls in
 *   (since or the epoch, min(until, watermark)]. When more match than `limit`, the
 *   oldest-updated ones are kept, `truncated` is true and `nextCursor` is the
 *   lastUpdatedAt of the last kept item; the next poll with since=nextCursor
 *   continues exactly there. Otherwise `nextCursor` equals `generatedAt`.
 *   Because lastUpdatedAt is unique and every write commits in timestamp
 *   order, a chain of polls never skips or repeats an item version.
 *
 * `since` is store time ("stored since": when the item last changed here);
 * `event_since` filters by when the event happened (eventDate, day precision).
 */
import { computeMovements, NO_CENSUS_SENTENCE, zeroMovements } from './census.js';
import { decodePageCursor, encodePageCursor, type QueryValues } from './http.js';
import type { PaidRevenueSource } from './ledger-facts.js';
import type { ContentStore } from './store/contract.js';
import { EPOCH_ISO, formatMicros, isCalendarDate, parseTimestamp, utcDate } from './time.js';
import { tierRank, type EvidenceTier } from './tiers.js';
import {
  NEWSWIRE_PRODUCT,
  NEWSWIRE_SCHEMA_VERSION,
  USAGE_RIGHTS,
  type CensusRecord,
  type ItemType,
  type MarketMovements,
  type NewswireItem,
} from './types.js';

export interface NewswireFeed {
  schemaVersion: string;
  product: string;
  since: string;
  generatedAt: string;
  nextCursor: string;
  count: number;
  truncated: boolean;
  /** Latest mode: the cursor of the next (older) page; null when there is none or when polling. */
  olderCursor: string | null;
  materialOnly: boolean;
  marketMovements: MarketMovements;
  items: NewswireItem[];
  usageRights: string;
  independentRevenueUsd: number;
}

/** An older-page cursor: the (eventDate, lastUpdatedAt) keyset of the last item shown. */
function encodeOlderCursor(it: Pick<NewswireItem, 'eventDate' | 'lastUpdatedAt'>): string {
  return encodePageCursor([it.eventDate, it.lastUpdatedAt]);
}

export function decodeOlderCursor(text: string): { date: string; us: number } | undefined {
  const parts = decodePageCursor(text, 2);
  if (!parts || !isCalendarDate(parts[0]!)) return undefined;
  const us = parseTimestamp(parts[1]!);
  return us === undefined ? undefined : { date: parts[0]!, us };
}

/** `event_since` as the calendar date eventDate is compared with (eventDate has day precision). */
export function eventSinceDateOf(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const us = parseTimestamp(text);
  return us === undefined ? undefined : utcDate(Math.floor(us / 1000));
}

/** A cursor or `since` as store microseconds; anything before the epoch reads as the epoch. */
export function cursorMicros(text: string | undefined): number {
  if (text === undefined) return 0;
  return Math.max(0, parseTimestamp(text) ?? 0);
}

/** Newest eventDate first; ties by most recent change, then id, so the order is total. */
function byEventDateDesc(a: NewswireItem, b: NewswireItem): number {
  if (a.eventDate !== b.eventDate) return a.eventDate < b.eventDate ? 1 : -1;
  if (a.lastUpdatedAt !== b.lastUpdatedAt) return a.lastUpdatedAt < b.lastUpdatedAt ? 1 : -1;
  return a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0;
}

/**
 * Market movements between the two latest census snapshots. Snapshots are
 * immutable by id, so the result is memoized by the pair of ids and only the
 * (indexed) id lookup runs per request.
 */
export class MarketMovementsSource {
  private memo: { key: string; value: MarketMovements } | undefined;
  constructor(private readonly store: ContentStore) {}

  async current(): Promise<MarketMovements> {
    const ids = await this.store.latestCensusIds(2);
    if (ids.length < 2) return zeroMovements([NO_CENSUS_SENTENCE]);
    const key = ids.join('\n');
    if (this.memo?.key === key) return this.memo.value;
    const snaps: CensusRecord[] = await this.store.latestCensus(2);
    const value = computeMovements(snaps[1]!, snaps[0]!);
    this.memo = { key: snaps.map((s) => s.snapshotId).join('\n'), value };
    return value;
  }
}

/** Atomic units (6 decimals, USDC) → US dollars. */
function atomicToUsd(atomic: bigint): number {
  const whole = atomic / 1_000_000n;
  const frac = atomic % 1_000_000n;
  return Number(`${whole}.${frac.toString().padStart(6, '0')}`);
}

export interface NewswireDeps {
  store: ContentStore;
  movements: MarketMovementsSource;
  revenue: PaidRevenueSource;
  /** Their payments are not independent revenue. */
  operatorWallets: readonly string[];
}

export async function buildNewswire(deps: NewswireDeps, q: QueryValues): Promise<NewswireFeed> {
  // `until` bounds a polling window too: (since or the epoch, until], oldest-updated first.
  const polling = q.since !== undefined || q.until !== undefined;
  const sinceUs = cursorMicros(q.since as string | undefined);
  const untilUs = q.until === undefined ? undefined : cursorMicros(q.until as string);
  const materialOnly = q.material_only === true;
  const before = !polling && q.cursor !== undefined ? decodeOlderCursor(q.cursor as string) : undefined;
  const page = await deps.store.queryItems({
    order: polling ? 'since' : 'newest',
    sinceUs,
    untilUs,
    before,
    eventSinceDate: eventSinceDateOf(q.event_since as string | undefined),
    limit: (q.limit as number | undefined) ?? 50,
    type: q.type as ItemType | undefined,
    topic: q.topic as string | undefined,
    entity: q.entity as string | undefined,
    protocol: q.protocol as string | undefined,
    maxTierRank: q.min_tier === undefined ? undefined : tierRank(q.min_tier as EvidenceTier),
    firstParty: q.first_party as boolean | undefined,
    includeRetracted: q.include_retracted === true,
    materialOnly,
  });
  const generatedAt = formatMicros(page.upperUs);
  const last = page.items[page.items.length - 1];
  const nextCursor = polling && page.truncated ? last!.lastUpdatedAt : generatedAt;
  const [marketMovements, revenue] = await Promise.all([deps.movements.current(), deps.revenue.paidRevenue(deps.operatorWallets)]);
  return {
    schemaVersion: NEWSWIRE_SCHEMA_VERSION,
    product: NEWSWIRE_PRODUCT,
    since: q.since === undefined ? EPOCH_ISO : formatMicros(sinceUs),
    generatedAt,
    nextCursor,
    count: page.items.length,
    truncated: page.truncated,
    olderCursor: !polling && page.truncated && last ? encodeOlderCursor(last) : null,
    materialOnly,
    marketMovements,
    items: polling ? [...page.items].sort(byEventDateDesc) : page.items,
    usageRights: USAGE_RIGHTS,
    independentRevenueUsd: atomicToUsd(revenue.atomic),
  };
}
