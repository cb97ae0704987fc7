/**
 * Intelligence at scale: the newswire, the graph summary and changes-since
 * on a store of 1,000 and of 100,000 synthetic newswire items.
 *
 * For each size a fresh database (SQLite in a temp dir; PostgreSQL in a fresh
 * schema when TEST_DATABASE_URL is set) is opened with `openDatabase` (all
 * migrations applied) and filled through the content store's own write path
 * (`importValue` — record validation, then `ContentStore.apply` — per record
 * at small sizes; `apply` inside large transactions at 100,000, see
 * fillStore), so versions, tags, the change log and every `lastUpdatedAt`
 * come from the store itself.
 * The records are generated deterministically (seeded PRNG) with field sizes
 * like the starter corpus: varied types, entities (a few common, most rare),
 * protocols, topics, tiers (TIER_D items are held), dates, with updates,
 * corrections and retractions interleaved.
 *
 * Measured in process, without a socket: the free routes through
 * `app.request()` on the service's own app (`createApp` with the intelligence
 * module's routes, exactly as `startService` wires them, request logging at
 * level silent), and the paid changes-since as its capability's `run` (what the
 * paid route calls once the gate has settled).
 *
 * "From indexes, not scans": every SQL statement those routes execute is
 * recorded (a driver wrapper) and its plan is read with EXPLAIN QUERY PLAN
 * (SQLite) / EXPLAIN (PostgreSQL). A plan that reads a content table with
 * SCAN / Seq Scan is reported as a scan, and so is an index read whole.
 *
 * `tsx bench/intel.ts` runs this section alone. Knobs: BENCH_INTEL_SIZES
 * (comma-separated item counts, default 1000,100000), TEST_DATABASE_URL
 * (PostgreSQL rows at the smallest size), BENCH_INTEL_PG_SCALE=1 (PostgreSQL
 * plans at the largest size even when they do not fit the time budget).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import type { Hono } from 'hono';
import pg from 'pg';
import { pino } from 'pino';
import { createApp } from '../src/app.js';
import type { Capability } from '../src/catalog/capability.js';
import { KNOWN_NETWORKS, loadConfig, type PaymentConfig } from '../src/config.js';
import type { ChangesSinceInput, ChangesSinceResponse } from '../src/intel/changes.js';
import { emptyReport, formatRejections, importValue, type ImportReport } from '../src/intel/importer.js';
import { checkRecord } from '../src/intel/records.js';
import { createIntelModule, type IntelRuntime } from '../src/intel/module.js';
import { SqlContentStore } from '../src/intel/store.js';
import { formatMicros } from '../src/intel/time.js';
import type { EvidenceTier, SourceType } from '../src/intel/tiers.js';
import { ENTITY_TYPES, RELATIONSHIP_TYPES, type ContentRecord, type EntityType, type ItemType } from '../src/intel/types.js';
import type { ModuleInit } from '../src/module.js';
import type { ChainReader } from '../src/payments/chain.js';
import { PaymentGate } from '../src/payments/gate.js';
import { PaymentRail } from '../src/payments/rail.js';
import { ownWallets } from '../src/payments/own-wallets.js';
import { openDatabase, type Database } from '../src/store/index.js';
import type { SqlDriver } from '../src/store/sql-driver.js';
import { fmt, markdownTable, round, summarize, type Summary } from './stats.js';
import { mountModules, registerModule } from '../src/http/free-routes.js';
import { Hono as HonoApp } from 'hono';
import { QUERY_PARAMETERS } from '../src/intel/api/query-parameters.js';
import { parseQuery } from '../src/intel/http.js';
import { buildNewswire } from '../src/intel/newswire.js';
import { listen, runLoadPlan, type LoadResult } from './http.js';
import { createPaidFlow, INLINE_EXECUTOR } from '../src/payments/paid-flow.js';
import { offerOf } from '../src/discovery/bazaar.js';
import { prng } from '../test/support/prng.js';

// ------------------------------------------------------------------ settings

/**
 * The section should finish within this. The SQLite rows always run; with
 * TEST_DATABASE_URL the PostgreSQL rows at the smallest size run too, and its
 * plans at the largest size only when they still fit (or BENCH_INTEL_PG_SCALE=1).
 */
const SECTION_BUDGET_MS = 90_000;
/** What replicating PostgreSQL to 100,000 items and explaining takes, roughly. */
const PG_SCALE_ESTIMATE_MS = 30_000;
/** Above this many items a per-record commit (one fsync each) is too slow: records are committed in batches. */
const PER_ITEM_FILL_MAX = 10_000;
const FILL_BATCH = 5_000;
/** In a batched fill, records validated with checkRecord: one in this many. */
const VALIDATE_EVERY = 20;
/** A row whose p50 grows more than this between the smallest and the largest size is called out. */
const GROWTH_FLAG = 3;
/** SQLite page cache during a batched fill, KiB. */
const FILL_CACHE_KIB = 512 * 1024;

interface LoopOptions {
  budgetMs: number;
  warmupMs: number;
  minIterations: number;
  maxIterations: number;
  /** Stop after this long even below minIterations (with at least 3 samples). */
  hardCapMs: number;
}

function loopOptions(items: number): LoopOptions {
  return items >= 50_000
    ? { budgetMs: 600, warmupMs: 100, minIterations: 15, maxIterations: 20_000, hardCapMs: 4_000 }
    : { budgetMs: 400, warmupMs: 80, minIterations: 15, maxIterations: 20_000, hardCapMs: 3_000 };
}

function sizesFromEnv(): number[] {
  const raw = process.env.BENCH_INTEL_SIZES;
  if (!raw) return [1_000, 100_000];
  const sizes = raw.split(',').map((s) => Number(s.trim()));
  if (!sizes.length || sizes.some((n) => !Number.isInteger(n) || n < 100 || n > 1_000_000)) {
    throw new Error('BENCH_INTEL_SIZES must be comma-separated whole numbers between 100 and 1000000');
  }
  return sizes;
}

// ------------------------------------------------------------------ deterministic synthetic content

type Rand = () => number;
const int = (r: Rand, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
/** Index in [0, n) skewed towards 0: index 0 is common, the last ones rare. */
const skewed = (r: Rand, n: number, power: number) => Math.min(n - 1, Math.floor(n * Math.pow(r(), power)));

function weighted<T extends string>(r: Rand, table: ReadonlyArray<readonly [T, number]>): T {
  let total = 0;
  for (const [, w] of table) total += w;
  let x = r() * total;
  for (const [v, w] of table) {
    x -= w;
    if (x < 0) return v;
  }
  return table[table.length - 1]![0];
}

const WORDS = (
  'agent agents payment payments protocol facilitator settlement stablecoin wallet wallets resource resources endpoint ' +
  'directory registry catalog listing listings release version support network networks chain mainnet testnet ' +
  'pricing price metered usage request requests response header challenge signature authorization transfer ' +
  'merchant buyer seller api apis tool tools server servers client clients discovery manifest schema extension ' +
  'scheme exact upto deferred batch batched session sessions budget budgets spend limit limits policy policies ' +
  'integration integrations partner partners launch launches adds ships opens expands moves publishes documents ' +
  'specification draft standard standards working group charter foundation governance maintainers repository ' +
  'commit tag changelog sdk library middleware gateway proxy cache index search ranking volume calls payers ' +
  'growth decline weekly monthly market markets observation forum thread community developers operators'
).split(' ');

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Sentences of vocabulary words, between minChars and maxChars long. */
function prose(r: Rand, minChars: number, maxChars: number): string {
  const target = int(r, minChars, maxChars);
  let out = '';
  while (out.length < target) {
    const n = int(r, 7, 16);
    const words: string[] = [];
    for (let i = 0; i < n; i++) words.push(pick(r, WORDS));
    out += (out ? ' ' : '') + capitalize(words.join(' ')) + (r() < 0.2 ? ', per the source.' : '.');
  }
  if (out.length > maxChars) out = out.slice(0, maxChars - 1).trimEnd() + '.';
  return out;
}

function headlineText(r: Rand, subject: string): string {
  const target = int(r, 45, 110);
  let out = subject;
  while (out.length < target) out += ' ' + pick(r, WORDS);
  return out.slice(0, 200);
}

const hex = (r: Rand, n: number) => {
  let s = '';
  for (let i = 0; i < n; i++) s += '0123456789abcdef'[Math.floor(r() * 16)];
  return s;
};

const ITEM_TYPE_WEIGHTS: ReadonlyArray<readonly [ItemType, number]> = [
  ['protocol_release', 20],
  ['new_product', 10],
  ['new_directory', 8],
  ['standards', 8],
  ['company_move', 8],
  ['community_signal', 8],
  ['version_update', 8],
  ['repository_release', 8],
  ['official_announcement', 6],
  ['unmet_need', 5],
  ['analysis_seed', 4],
  ['first_party_product', 3],
  ['market_snapshot', 3],
  ['daily_digest', 1],
];
const TIER_WEIGHTS: ReadonlyArray<readonly [EvidenceTier, number]> = [
  ['TIER_A', 40],
  ['TIER_B', 25],
  ['TIER_C', 30],
  ['TIER_D', 5],
];
/** Source types whose own ceiling is the tier (TIER_D items carry the weakest sources). */
const SOURCES_BY_TIER: Record<EvidenceTier, readonly SourceType[]> = {
  TIER_A: ['official_announcement', 'first_party', 'protocol_release', 'github_maintainer', 'standards_body'],
  TIER_B: ['authoritative_documentation', 'vendor_documentation', 'newsroom_original'],
  TIER_C: ['market_observation', 'public_forum'],
  TIER_D: ['market_observation', 'public_forum'],
};
const WEAKER: Record<EvidenceTier, readonly EvidenceTier[]> = { TIER_A: ['TIER_A', 'TIER_B', 'TIER_C'], TIER_B: ['TIER_B', 'TIER_C'], TIER_C: ['TIER_C'], TIER_D: ['TIER_D'] };
const HOST_BY_SOURCE: Record<SourceType, readonly string[]> = {
  official_announcement: ['blog.example-pay.com', 'newsroom.example-labs.io', 'press.example-cloud.net'],
  first_party: ['www.example-pay.com', 'example-agents.dev'],
  protocol_release: ['github.com'],
  github_maintainer: ['github.com'],
  standards_body: ['datatracker.example-standards.org', 'w3c.example.org'],
  authoritative_documentation: ['docs.example-protocol.org', 'spec.example-pay.dev'],
  vendor_documentation: ['developers.example-wallet.com', 'docs.example-cloud.net'],
  newsroom_original: ['news.example-wire.com'],
  market_observation: ['www.example-tradepress.com', 'markets.example-news.io', 'directory.example-tools.ai'],
  public_forum: ['forum.example-dev.org', 'news.example-forum.com'],
};

const TOPICS = [
  'payments', 'http-402', 'stablecoins', 'agents', 'discovery', 'mcp', 'pricing', 'facilitators', 'wallets', 'identity',
  'standards', 'directories', 'micropayments', 'settlement', 'compliance', 'security', 'tooling', 'sdk', 'marketplaces', 'data',
  'inference', 'search', 'commerce', 'subscriptions', 'metering', 'escrow', 'refunds', 'reputation', 'governance', 'funding',
  'lightning', 'evm', 'solana', 'l2', 'gas', 'custody', 'api-keys', 'rate-limits', 'observability', 'benchmarks',
];

interface EntityDef {
  id: string;
  type: EntityType;
  name: string;
}

/** 14 protocols, then the other entity types; the first of each list are the common ones. */
function entityDefs(): { protocols: EntityDef[]; others: EntityDef[] } {
  const protocols = Array.from({ length: 14 }, (_, i) => ({ id: `proto-${String(i + 1).padStart(2, '0')}`, type: 'PROTOCOL' as EntityType, name: `Synthetic protocol ${i + 1}` }));
  const prefix: Partial<Record<EntityType, string>> = {
    MARKETPLACE: 'market', WALLET_PRODUCT: 'wallet', ORGANIZATION: 'org', NETWORK: 'net', PAYMENT_RAIL: 'rail', DIRECTORY: 'dir',
    EVENT: 'conf', MCP_TOOL: 'mcp-tool', MCP_SERVER: 'mcp-server', X402_RESOURCE: 'res', ASSET: 'asset',
  };
  const counts: Partial<Record<EntityType, number>> = {
    ORGANIZATION: 120, MCP_SERVER: 40, WALLET_PRODUCT: 25, DIRECTORY: 20, X402_RESOURCE: 40, MARKETPLACE: 15, NETWORK: 12,
    PAYMENT_RAIL: 8, ASSET: 8, MCP_TOOL: 12, EVENT: 6,
  };
  const others: EntityDef[] = [];
  const r = prng(7);
  for (const type of ENTITY_TYPES) {
    if (type === 'PROTOCOL') continue;
    for (let i = 0; i < (counts[type] ?? 0); i++) others.push({ id: `${prefix[type]}-${String(i + 1).padStart(3, '0')}`, type, name: `Synthetic ${type.toLowerCase().replace(/_/g, ' ')} ${i + 1}` });
  }
  // Interleave the types so the common (low-index) entities are of several types.
  for (let i = others.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [others[i], others[j]] = [others[j]!, others[i]!];
  }
  return { protocols, others };
}

const ENTITIES = entityDefs();
/** Entities whose filtered feeds the benchmark asks for. */
const COMMON_ENTITY = ENTITIES.others[0]!.id;
const RARE_TOPIC = TOPICS[TOPICS.length - 1]!;
const COMMON_PROTOCOL = ENTITIES.protocols[0]!.id;

const FIRST_DAY_MS = Date.UTC(2022, 0, 1);
const DAYS = 1_765; // 2022-01-01 … 2026-10-31: every event date is in the past.

/**
 * Item record number `i`, always the same for the same arguments: a fresh
 * PRNG per item, so an update can regenerate the record it changes.
 */
function itemRecord(i: number, correctionOf: string | undefined, revision: number): Record<string, unknown> {
  const r = prng(0x9e3779b1 ^ Math.imul(i + 1, 0x85ebca6b));
  const type = weighted(r, ITEM_TYPE_WEIGHTS);
  const tier = weighted(r, TIER_WEIGHTS);
  const day = Math.floor(DAYS * Math.sqrt(r())); // more recent events are more frequent
  const eventDate = new Date(FIRST_DAY_MS + day * 86_400_000).toISOString().slice(0, 10);
  const protocols: string[] = [];
  const nProtocols = weighted(r, [['0', 15], ['1', 55], ['2', 22], ['3', 8]] as const);
  for (let k = 0; k < Number(nProtocols); k++) {
    const p = ENTITIES.protocols[skewed(r, ENTITIES.protocols.length, 2)]!.id;
    if (!protocols.includes(p)) protocols.push(p);
  }
  const entities: string[] = [];
  const nEntities = int(r, 1, 4);
  for (let k = 0; k < nEntities; k++) {
    const e = ENTITIES.others[skewed(r, ENTITIES.others.length, 3)]!.id;
    if (!entities.includes(e)) entities.push(e);
  }
  entities.push(...protocols);
  const topics: string[] = [];
  for (let k = int(r, 1, 3); k > 0; k--) {
    const t = TOPICS[skewed(r, TOPICS.length, 2)]!;
    if (!topics.includes(t)) topics.push(t);
  }
  const nSources = Number(weighted(r, [['1', 65], ['2', 25], ['3', 10]] as const));
  const sources: Array<Record<string, string>> = [];
  for (let k = 0; k < nSources; k++) {
    const sourceType = k === 0 ? pick(r, SOURCES_BY_TIER[tier]) : pick(r, SOURCES_BY_TIER[pick(r, WEAKER[tier])]);
    const host = pick(r, HOST_BY_SOURCE[sourceType]);
    const url =
      host === 'github.com'
        ? `https://github.com/example-${entities[0]}/${protocols[0] ?? 'sdk'}/${sourceType === 'protocol_release' ? `releases/tag/v${int(r, 0, 3)}.${int(r, 0, 30)}.${int(r, 0, 9)}` : `commit/${hex(r, 40)}`}`
        : `https://${host}/${eventDate.slice(0, 4)}/${eventDate.slice(5, 7)}/${prose(r, 20, 70).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/-+$/, '')}-${i}`;
    const src: Record<string, string> = { url, sourceType, supports: prose(r, 100, 300) };
    if (r() < 0.5) src.publishedAt = eventDate;
    sources.push(src);
  }
  const subject = capitalize((ENTITIES.others.find((e) => e.id === entities[0])?.name ?? entities[0]!).replace('Synthetic ', ''));
  const rec: Record<string, unknown> = {
    kind: 'item',
    eventId: `${eventDate}-${entities[0]}-${type.replace(/_/g, '-')}-${i.toString(36)}`,
    eventDate,
    datePrecision: weighted(r, [['day', 90], ['month', 8], ['year', 2]] as const),
    type,
    headline: headlineText(r, (correctionOf ? 'Correction: ' : '') + subject),
    summary: prose(r, 130, 400),
    whyItMatters: prose(r, 70, 190),
    entities,
    protocols,
    topics,
    sources,
    evidenceTier: tier,
  };
  if (r() < 0.15) rec.caveat = prose(r, 60, 160);
  if (r() < 0.08) rec.firstPartyInterest = true;
  if (type === 'market_snapshot') rec.marketData = { resources: int(r, 100, 20_000), distinctPayers: int(r, 10, 5_000), calls: int(r, 1_000, 5_000_000) };
  if (correctionOf) rec.correctionOf = correctionOf;
  if (revision > 0) {
    // A material edit: the headline and summary change with each revision.
    rec.headline = `${(rec.headline as string).slice(0, 180)} (rev ${revision})`;
    rec.summary = `${(rec.summary as string).slice(0, 1_900)} Revised: ${prose(r, 40, 90)}`;
  }
  return rec;
}

function censusRecord(id: string, observedAt: string, seed: number): Record<string, unknown> {
  const r = prng(seed);
  const families = ['data', 'inference', 'search', 'media', 'finance', 'tools', 'storage', 'compute'];
  const resources = [];
  for (let k = 0; k < 400; k++) {
    if (r() < 0.1) continue; // some resources come and go between snapshots
    resources.push({ id: `https://api-${k}.example-x402.com/v1/${pick(r, WORDS)}`, family: families[skewed(r, families.length, 2)]!, calls: int(r, 0, 50_000) });
  }
  return { kind: 'census', snapshotId: id, observedAt, source: 'https://directory.example-tools.ai/census', distinctPayers: int(r, 100, 2_000), resources };
}

// ------------------------------------------------------------------ drivers

/** Records every statement while `log` is set; otherwise a transparent wrapper. */
class RecordingDriver implements SqlDriver {
  readonly kind: 'sqlite' | 'postgres';
  log: Array<{ sql: string; params: unknown[] }> | undefined;
  constructor(private readonly inner: SqlDriver) {
    this.kind = inner.kind;
  }
  run(sql: string, params: unknown[] = []): Promise<number> {
    this.log?.push({ sql, params });
    return this.inner.run(sql, params);
  }
  all<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    this.log?.push({ sql, params });
    return this.inner.all<T>(sql, params);
  }
  execScript(sql: string): Promise<void> {
    return this.inner.execScript(sql);
  }
  transaction<T>(fn: (tx: Pick<SqlDriver, 'run' | 'all' | 'kind'>) => Promise<T>): Promise<T> {
    return this.inner.transaction(fn);
  }
  withMigrationLock<T>(fn: () => Promise<T>): Promise<T> {
    return this.inner.withMigrationLock(fn);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/**
 * For the batched fill: the store's own write path, but its per-record
 * transactions run inside an outer transaction the fill opens and commits
 * every FILL_BATCH records. Only the fill uses it; every measured read goes
 * through the service's driver.
 */
class BatchingDriver implements SqlDriver {
  readonly kind: 'sqlite' | 'postgres';
  constructor(private readonly inner: SqlDriver) {
    this.kind = inner.kind;
  }
  run(sql: string, params: unknown[] = []): Promise<number> {
    return this.inner.run(sql, params);
  }
  all<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.inner.all<T>(sql, params);
  }
  execScript(sql: string): Promise<void> {
    return this.inner.execScript(sql);
  }
  transaction<T>(fn: (tx: Pick<SqlDriver, 'run' | 'all' | 'kind'>) => Promise<T>): Promise<T> {
    return fn(this.inner);
  }
  withMigrationLock<T>(fn: () => Promise<T>): Promise<T> {
    return fn();
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

// ------------------------------------------------------------------ the record sequence

/** One record of the fill, in order, with what it does to the store. */
interface Step {
  record: Record<string, unknown>;
  role: 'graph' | 'new' | 'correction' | 'held' | 'update' | 'retraction';
  /** After this step half of the items are written: the fill reads the watermark here. */
  mid?: true;
}

const STATE_PUBLISHED = 1, STATE_HELD = 2, STATE_RETRACTED = 3;

/**
 * Every record of a fill of `items` items, in write order: the graph
 * (entities, relationships), two census snapshots, then the items, with an
 * update (3%), a retraction (1%) of an earlier published item now and then,
 * and 2% of the new items correcting an earlier one. Deterministic and
 * independent of the store.
 */
function* contentRecords(items: number): Generator<Step> {
  // Graph first: items name entities and protocols by id.
  const all = [...ENTITIES.protocols, ...ENTITIES.others];
  for (const e of all) yield { role: 'graph', record: { kind: 'entity', id: e.id, type: e.type, name: e.name, sourceUrl: `https://registry.example-graph.org/entities/${e.id}` } };
  const rr = prng(11);
  const relIds = new Set<string>();
  while (relIds.size < 500) {
    const from = all[skewed(rr, all.length, 2)]!.id;
    const to = all[skewed(rr, all.length, 2)]!.id;
    const type = pick(rr, RELATIONSHIP_TYPES);
    const id = `${from}--${type.toLowerCase()}--${to}`;
    if (from === to || relIds.has(id)) continue;
    relIds.add(id);
    yield { role: 'graph', record: { kind: 'relationship', from, to, type, sourceUrl: `https://registry.example-graph.org/relationships/${relIds.size}` } };
  }
  yield { role: 'graph', record: censusRecord('census-2026-10', '2026-10-01T00:00:00Z', 21) };
  yield { role: 'graph', record: censusRecord('census-2026-11', '2026-11-01T00:00:00Z', 22) };

  const state = new Uint8Array(items);
  const revisions = new Uint16Array(items);
  const corrOf = new Int32Array(items).fill(-1);
  const eventIds: string[] = new Array<string>(items);
  const seq = prng(42);
  const publishedBefore = (i: number): number => {
    for (let tries = 0; tries < 20 && i > 0; tries++) {
      const j = Math.floor(seq() * i);
      if (state[j] === STATE_PUBLISHED) return j;
    }
    return -1;
  };
  const half = Math.floor(items / 2) - 1;
  for (let i = 0; i < items; i++) {
    const steps: Step[] = [];
    const target = i >= 20 && seq() < 0.02 ? publishedBefore(i) : -1;
    corrOf[i] = target;
    const rec = itemRecord(i, target >= 0 ? eventIds[target] : undefined, 0);
    eventIds[i] = rec.eventId as string;
    const held = rec.evidenceTier === 'TIER_D';
    state[i] = held ? STATE_HELD : STATE_PUBLISHED;
    steps.push({ role: held ? 'held' : target >= 0 ? 'correction' : 'new', record: rec });
    if (seq() < 0.03) {
      const j = publishedBefore(i);
      if (j >= 0) {
        revisions[j]!++;
        steps.push({ role: 'update', record: itemRecord(j, corrOf[j]! >= 0 ? eventIds[corrOf[j]!] : undefined, revisions[j]!) });
      }
    }
    if (seq() < 0.01) {
      const j = publishedBefore(i);
      if (j >= 0) {
        steps.push({ role: 'retraction', record: { kind: 'retraction', eventId: eventIds[j], reason: `Withdrawn: ${prose(seq, 40, 120)}` } });
        state[j] = STATE_RETRACTED;
      }
    }
    if (i === half) steps[steps.length - 1]!.mid = true;
    yield* steps;
  }
}

// ------------------------------------------------------------------ fill

export interface FillResult {
  items: number;
  mode: string;
  ms: number;
  records: number;
  itemsPerSec: number;
  /** What the records did, by kind. */
  published: number;
  held: number;
  corrections: number;
  updates: number;
  retractions: number;
  /** Rows in the change log (what changes-since reads). */
  changeLog: number;
  /** The watermark after half of the item records: the `since`/`cursor` of the measured requests. */
  midCursor: string;
  watermark: string;
  /** Share of the current items tagged with the "(common)" entity and the "(rare)" topic. */
  commonEntityShare: number;
  rareTopicShare: number;
  /** SQLite file plus its WAL, bytes (undefined for PostgreSQL). */
  dbBytes?: number;
}

/**
 * Fill a fresh store. Not batched: every record through `importValue`
 * (`checkRecord`, then `store.apply` in its own transaction), as
 * `npm run intel -- import` does. Batched (SQLite, large sizes): the same
 * store write path (`store.apply`), but its per-record transactions run inside
 * one transaction per FILL_BATCH records, with a larger page cache and no
 * fsync until the end; `checkRecord` runs on every VALIDATE_EVERY-th record
 * only (the generator is the same one whose every record is validated at the
 * small size), because validation is a tenth of the write time.
 */
async function fillStore(db: SqlDriver, items: number, batched: boolean, progress: (m: string) => void): Promise<FillResult> {
  const store = new SqlContentStore(batched ? new BatchingDriver(db) : db, Date.now);
  const report: ImportReport = emptyReport();
  const counts = { published: 0, held: 0, corrections: 0, updates: 0, retractions: 0 };
  let line = 0;
  let validated = 0;
  let inBatch = 0;
  let midCursorUs = 0;
  let itemsSeen = 0;
  const progressEvery = Math.max(10_000, Math.floor(items / 5));

  // A page cache that holds the indexes being written (the default 2 MiB makes
  // every random index insert a read syscall) and no fsync per commit, for the
  // batched fill only; both are reset before anything is measured.
  const tune = batched && db.kind === 'sqlite';
  const defaultCache = tune ? Number((await db.all<{ cache_size: number }>('PRAGMA cache_size'))[0]?.cache_size ?? -2000) : 0;
  if (tune) {
    await db.run(`PRAGMA cache_size = -${FILL_CACHE_KIB}`);
    await db.run('PRAGMA synchronous = OFF');
  }
  const started = performance.now();
  if (batched) await db.run(db.kind === 'sqlite' ? 'BEGIN IMMEDIATE' : 'BEGIN');
  try {
    const nowMs = Date.now();
    for (const step of contentRecords(items)) {
      line++;
      if (batched) {
        if (line % VALIDATE_EVERY === 0) {
          const checked = checkRecord(step.record, nowMs);
          if (!checked.ok) throw new Error(`record ${line} (${String(step.record.kind)}) rejected: ${checked.rejection.reason}`);
          validated++;
        }
        const res = await store.apply(step.record as unknown as ContentRecord);
        if (!res.ok) throw new Error(`record ${line} (${String(step.record.kind)}) rejected by the store: ${res.rejection.reason}`);
        if (++inBatch >= FILL_BATCH) {
          await db.run('COMMIT');
          await db.run(db.kind === 'sqlite' ? 'BEGIN IMMEDIATE' : 'BEGIN');
          inBatch = 0;
        }
      } else {
        await importValue(store, step.record, line, Date.now(), report);
        if (report.rejected.length) throw new Error(`the synthetic content was rejected: ${formatRejections(report).slice(0, 3).join('; ')}`);
        validated++;
      }
      switch (step.role) {
        case 'new':
          counts.published++;
          break;
        case 'correction':
          counts.published++;
          counts.corrections++;
          break;
        case 'held':
          counts.held++;
          break;
        case 'update':
          counts.updates++;
          break;
        case 'retraction':
          counts.retractions++;
          break;
        case 'graph':
          break;
      }
      if (step.role === 'new' || step.role === 'correction' || step.role === 'held') {
        itemsSeen++;
        if (itemsSeen % progressEvery === 0 && itemsSeen < items) progress(`  filled ${itemsSeen} of ${items} items (${((performance.now() - started) / 1000).toFixed(1)} s)`);
      }
      if (step.mid) midCursorUs = await store.watermark();
    }
    if (batched) await db.run('COMMIT');
  } catch (e) {
    if (batched) await db.run('ROLLBACK').catch(() => 0);
    throw e;
  }
  if (tune) {
    await db.run('PRAGMA wal_checkpoint(TRUNCATE)');
    await db.run('PRAGMA synchronous = FULL');
    await db.run(`PRAGMA cache_size = ${defaultCache}`);
  }
  const ms = performance.now() - started;
  const changeLog = Number((await db.all<{ n: number | string }>('SELECT COUNT(*) AS n FROM newswire_changes'))[0]?.n ?? 0);
  const stored = Number((await db.all<{ n: number | string }>('SELECT COUNT(*) AS n FROM newswire_items'))[0]?.n ?? 0);
  if (stored !== items) throw new Error(`the store holds ${stored} items after the fill, expected ${items}`);
  const share = async (kind: string, value: string) =>
    Number(
      (
        await db.all<{ n: number | string }>(
          'SELECT COUNT(*) AS n FROM newswire_item_tags t JOIN newswire_items i ON i.event_id = t.event_id AND i.version = t.version WHERE t.tag_kind = ? AND t.tag_value = ?',
          [kind, value],
        )
      )[0]?.n ?? 0,
    ) / stored;
  return {
    items,
    mode: batched
      ? `store.apply per record inside ${FILL_BATCH.toLocaleString('en-US')}-record transactions, fsync at the end; checkRecord on ${validated.toLocaleString('en-US')} of them (1 in ${VALIDATE_EVERY})`
      : `importValue per record (checkRecord + store.apply), one transaction each${db.kind === 'sqlite' ? ' (fsync at every commit)' : ' (synchronous_commit=off)'}`,
    ms,
    records: line,
    itemsPerSec: items / (ms / 1000),
    ...counts,
    changeLog,
    midCursor: formatMicros(midCursorUs),
    watermark: formatMicros(await store.watermark()),
    commonEntityShare: await share('entity', COMMON_ENTITY),
    rareTopicShare: await share('topic', RARE_TOPIC),
  };
}

// ------------------------------------------------------------------ the service's app over a database

interface IntelApp {
  app: Hono;
  changesSince: Capability;
  /** The module's store and sources over the database it was built on. */
  runtime: IntelRuntime;
}

const NO_CHAIN: ChainReader = {
  authorizationState: () => Promise.reject(new Error('the benchmark has no chain')),
  authorizationTransaction: () => Promise.reject(new Error('the benchmark has no chain')),
  verifyTypedData: () => Promise.reject(new Error('the benchmark has no chain')),
};

/** The app `startService` builds, with only the intelligence module and a payment rail that is never contacted. */
async function buildIntelApp(db: SqlDriver, database: Database, dataDir: string): Promise<IntelApp> {
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0' });
  const log = pino({ level: 'silent' });
  const payment: PaymentConfig = {
    network: 'eip155:84532',
    payTo: '0x000000000000000000000000000000000000dEaD',
    asset: KNOWN_NETWORKS['eip155:84532']!.asset,
    facilitatorUrls: ['http://127.0.0.1:9'],
    facilitatorAuth: {},
    rpcUrl: 'http://127.0.0.1:9',
    ...config.timings,
  };
  const mod = createIntelModule({ loadStarter: false });
  const init: ModuleInit = { config, db, ledger: database.ledger, log, now: Date.now, payment, ownWallets: ownWallets(config.operatorWallets, [payment.payTo]), presence: [] };
  const catalog = await mod.capabilities!(init);
  const changesSince = catalog.find((c) => c.path === '/v1/intelligence/changes-since');
  if (!changesSince) throw new Error('the intelligence module has no changes-since capability');
  const rail = new PaymentRail({ payment, chain: NO_CHAIN });
  const gate = new PaymentGate({ ledger: database.ledger, rail, leaseMs: payment.attemptLeaseMs, log });
  const flow = createPaidFlow({ gate, executor: INLINE_EXECUTOR, describe: offerOf, clock: Date.now });
  const { ctx, mounted } = mountModules({ ...init, catalog, flow, payment }, [mod]);
  const app = createApp({ catalog, gate, flow, rail, ledger: database.ledger, publicBaseUrl: undefined, log, modules: mounted.map((m) => (a: Hono) => registerModule(a, m, ctx)) });
  return { app, changesSince, runtime: mod.runtime()! };
}

// ------------------------------------------------------------------ scenarios and timing

interface Scenario {
  key: string;
  label: string;
  /** A free route (GET through the app) or the paid capability's run. */
  path?: string;
  input?: ChangesSinceInput;
  /** Only its query plan is read; not timed. */
  explainOnly?: boolean;
}

function scenarios(fill: FillResult): Scenario[] {
  const since = encodeURIComponent(fill.midCursor);
  return [
    { key: 'newswire', label: 'GET /v1/newswire (default, limit 50)', path: '/v1/newswire' },
    { key: 'newswire-entity', label: 'GET /v1/newswire?entity=(common)&since=(mid)', path: `/v1/newswire?entity=${COMMON_ENTITY}&since=${since}` },
    { key: 'newswire-type', label: 'GET /v1/newswire?type=protocol_release&since=(mid)', path: `/v1/newswire?type=protocol_release&since=${since}` },
    { key: 'newswire-2filters', label: 'GET /v1/newswire?entity=(common)&topic=(rare)&since=(mid)', path: `/v1/newswire?entity=${COMMON_ENTITY}&topic=${RARE_TOPIC}&since=${since}` },
    { key: 'newswire-retracted', label: 'GET /v1/newswire?include_retracted=true', path: '/v1/newswire?include_retracted=true' },
    { key: 'graph', label: 'GET /v1/graph (summary)', path: '/v1/graph' },
    { key: 'changes-sample', label: 'GET /v1/intelligence/changes-since?cursor=(mid) (free sample)', path: `/v1/intelligence/changes-since?cursor=${since}` },
    { key: 'changes-100', label: 'paid changes-since run: 100 compact deltas after (mid)', input: { cursor: fill.midCursor, maxItems: 100 } },
    { key: 'changes-500-hr', label: 'paid changes-since run: 500 high-resolution deltas after (mid)', input: { cursor: fill.midCursor, include_high_resolution: true, maxItems: 500 } },
    // Plans only: the other shapes of the newswire query.
    {
      key: 'newswire-protocol-tier',
      label: 'GET /v1/newswire?protocol=(common)&min_tier=TIER_B&material_only=true&since=(mid)',
      path: `/v1/newswire?protocol=${COMMON_PROTOCOL}&min_tier=TIER_B&material_only=true&since=${since}`,
      explainOnly: true,
    },
    { key: 'newswire-until', label: 'GET /v1/newswire?until=(mid)', path: `/v1/newswire?until=${since}`, explainOnly: true },
  ];
}

export interface IntelRow {
  backend: 'sqlite' | 'postgres';
  items: number;
  key: string;
  scenario: string;
  iterations: number;
  opsPerSec: number;
  ms: Summary;
  /** The very first call on a freshly opened app (cold statement caches and memos). */
  firstMs: number;
  responseBytes: number;
  /** What came back: count, truncated. */
  result: string;
  /** For the paid run: JSON.stringify of the result, p50 ms (the paid route serializes it). */
  serializeP50Ms?: number;
}

let sink = 0;

async function timeLoop(fn: () => Promise<number>, o: LoopOptions): Promise<{ iterations: number; opsPerSec: number; ms: Summary }> {
  const warmEnd = performance.now() + o.warmupMs;
  for (let n = 0; performance.now() < warmEnd || n < 3; n++) sink = (sink + (await fn())) | 0;
  const samples: number[] = [];
  const start = performance.now();
  const more = () => {
    const now = performance.now();
    if (samples.length >= o.maxIterations) return false;
    if (now < start + o.budgetMs) return true;
    return samples.length < o.minIterations && (now < start + o.hardCapMs || samples.length < 3);
  };
  while (more()) {
    const t0 = performance.now();
    sink = (sink + (await fn())) | 0;
    samples.push(performance.now() - t0);
  }
  const elapsed = performance.now() - start;
  return { iterations: samples.length, opsPerSec: samples.length / (elapsed / 1000), ms: summarize(samples) };
}

async function getBytes(app: Hono, path: string): Promise<number> {
  const res = await app.request(path);
  const buf = await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${Buffer.from(buf).toString('utf8').slice(0, 300)}`);
  return buf.byteLength;
}

function describeResult(body: unknown): string {
  const b = body as { count?: number; truncated?: boolean; items?: unknown[]; sample?: unknown[]; moreAvailable?: boolean; latestEvents?: unknown[]; counts?: { events?: number } };
  if (Array.isArray(b.sample)) return `${b.sample.length} deltas${b.moreAvailable ? ', more available' : ''}`;
  if (Array.isArray(b.latestEvents)) return `${b.counts?.events ?? '?'} events counted, ${b.latestEvents.length} latest`;
  if (typeof b.count === 'number') return `${b.count} items${b.truncated ? ', truncated' : ''}`;
  return '';
}

async function measureScenario(
  backend: 'sqlite' | 'postgres',
  items: number,
  s: Scenario,
  ia: IntelApp,
  o: LoopOptions,
): Promise<IntelRow> {
  if (s.path !== undefined) {
    const path = s.path;
    const t0 = performance.now();
    const first = await ia.app.request(path);
    const text = await first.text();
    const firstMs = performance.now() - t0;
    if (first.status !== 200) throw new Error(`GET ${path} answered ${first.status}: ${text.slice(0, 300)}`);
    const loop = await timeLoop(() => getBytes(ia.app, path), o);
    return { backend, items, key: s.key, scenario: s.label, ...loop, firstMs, responseBytes: Buffer.byteLength(text, 'utf8'), result: describeResult(JSON.parse(text)) };
  }
  const input = s.input!;
  const cap = ia.changesSince;
  const t0 = performance.now();
  const first = (await cap.run(input)) as ChangesSinceResponse;
  const firstMs = performance.now() - t0;
  const json = JSON.stringify(first);
  const loop = await timeLoop(async () => ((await cap.run(input)) as ChangesSinceResponse).count, o);
  const ser: number[] = [];
  for (let k = 0; k < 20; k++) {
    const s0 = performance.now();
    sink = (sink + JSON.stringify(first).length) | 0;
    ser.push(performance.now() - s0);
  }
  return {
    backend,
    items,
    key: s.key,
    scenario: s.label,
    ...loop,
    firstMs,
    responseBytes: Buffer.byteLength(json, 'utf8'),
    result: `${first.count} deltas${first.truncated ? ', truncated' : ''}`,
    serializeP50Ms: summarize(ser).p50,
  };
}

// ------------------------------------------------------------------ query plans

/**
 * How a statement reads its tables, from its plan:
 * - `index`: every table is reached by an index search (a key or a key range);
 * - `index-walk`: a table is read in index order without a range (SQLite
 *   `SCAN t USING INDEX`), stopping at the statement's LIMIT;
 * - `index-sort`: index searches, but every match is sorted before the LIMIT;
 * - `index-aggregate`: index searches, and every match is counted or summed (no LIMIT);
 * - `full-index-scan`: a whole index is read (an index walk without LIMIT);
 * - `scan`: a whole table is read (SQLite `SCAN t`, PostgreSQL `Seq Scan`).
 */
export type PlanVerdict = 'index' | 'index-walk' | 'index-sort' | 'index-aggregate' | 'full-index-scan' | 'scan' | 'no-table';

export interface StatementPlan {
  backend: 'sqlite' | 'postgres';
  items: number;
  /** Scenario keys that execute this statement. */
  usedBy: string[];
  sql: string;
  plan: string[];
  verdict: PlanVerdict;
  /** Tables the statement reads. */
  tables: string[];
  /** Tables read whole (table scan or full index scan). */
  scans: string[];
}

const oneLine = (sql: string) => sql.replace(/\s+/g, ' ').trim();

const TABLE_NAME = /\b(newswire_\w+|graph_\w+|census_snapshots|payment_attempts|content_\w+|distribution_listings)\b/gi;

/** alias → table for the tables named in a statement. */
function aliases(sql: string): Map<string, string> {
  const map = new Map<string, string>();
  const re = /\b(newswire_\w+|graph_\w+|census_snapshots|payment_attempts|content_\w+|distribution_listings)\b(?:\s+(?:AS\s+)?(?!WHERE\b|JOIN\b|CROSS\b|ON\b|ORDER\b|GROUP\b|LIMIT\b|SET\b|VALUES\b)([a-z]\w*))?/gi;
  for (let m = re.exec(sql); m; m = re.exec(sql)) {
    map.set(m[1]!, m[1]!);
    if (m[2]) map.set(m[2], m[1]!);
  }
  return map;
}

interface PlanFacts {
  plan: string[];
  searched: Set<string>;
  walked: Set<string>;
  scanned: Set<string>;
  sortsBeforeLimit: boolean;
}

function verdictOf(sql: string, f: PlanFacts): { verdict: PlanVerdict; scans: string[] } {
  const limited = /\bLIMIT\b/i.test(sql);
  const aggregate = /\b(COUNT|SUM)\s*\(/i.test(sql) || /\bGROUP BY\b/i.test(sql);
  if (f.scanned.size) return { verdict: 'scan', scans: [...f.scanned] };
  if (f.walked.size && (!limited || f.sortsBeforeLimit)) return { verdict: 'full-index-scan', scans: [...f.walked] };
  if (f.walked.size) return { verdict: 'index-walk', scans: [] };
  if (!f.searched.size) return { verdict: 'no-table', scans: [] };
  if (limited && f.sortsBeforeLimit) return { verdict: 'index-sort', scans: [] };
  if (!limited && aggregate) return { verdict: 'index-aggregate', scans: [] };
  return { verdict: 'index', scans: [] };
}

async function explainSqlite(db: SqlDriver, sql: string, params: unknown[]): Promise<PlanFacts> {
  const rows = await db.all<{ id: number; parent: number; detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params);
  const depth = new Map<number, number>([[0, -1]]);
  const names = aliases(sql);
  const f: PlanFacts = { plan: [], searched: new Set(), walked: new Set(), scanned: new Set(), sortsBeforeLimit: false };
  for (const r of rows) {
    const d = (depth.get(r.parent) ?? -1) + 1;
    depth.set(r.id, d);
    f.plan.push(`${'  '.repeat(d)}${r.detail}`);
    const m = /^(SEARCH|SCAN) (\w+)( USING)?/.exec(r.detail);
    const table = m ? names.get(m[2]!) : undefined;
    if (m && table) {
      if (m[1] === 'SEARCH') f.searched.add(table);
      else if (m[3]) f.walked.add(table);
      else f.scanned.add(table);
    }
    if (/TEMP B-TREE FOR (ORDER BY|RIGHT PART OF ORDER BY)/.test(r.detail)) f.sortsBeforeLimit = true;
  }
  return f;
}

async function explainPostgres(db: SqlDriver, sql: string, params: unknown[]): Promise<PlanFacts> {
  const rows = await db.all<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params);
  const f: PlanFacts = { plan: rows.map((r) => r['QUERY PLAN']), searched: new Set(), walked: new Set(), scanned: new Set(), sortsBeforeLimit: false };
  for (const line of f.plan) {
    const seq = /Seq Scan on (\w+)/.exec(line);
    if (seq) f.scanned.add(seq[1]!);
    const idx = /(?:Index Scan|Index Only Scan)(?: Backward)? using \w+ on (\w+)|Bitmap Heap Scan on (\w+)/.exec(line);
    if (idx) f.searched.add((idx[1] ?? idx[2])!);
    if (/^\s*(->\s*)?(Incremental )?Sort\b/.test(line)) f.sortsBeforeLimit = true;
  }
  return f;
}

async function capturePlans(
  backend: 'sqlite' | 'postgres',
  items: number,
  recorder: RecordingDriver,
  ia: IntelApp,
  list: Scenario[],
  db: SqlDriver,
): Promise<StatementPlan[]> {
  const bySql = new Map<string, { params: unknown[]; usedBy: string[] }>();
  for (const s of list) {
    recorder.log = [];
    if (s.path !== undefined) await (await ia.app.request(s.path)).arrayBuffer();
    else await ia.changesSince.run(s.input!);
    const log = recorder.log;
    recorder.log = undefined;
    for (const st of log) {
      const key = oneLine(st.sql);
      const seen = bySql.get(key);
      if (seen) {
        if (!seen.usedBy.includes(s.key)) seen.usedBy.push(s.key);
      } else bySql.set(key, { params: st.params, usedBy: [s.key] });
    }
  }
  const out: StatementPlan[] = [];
  for (const [sql, v] of bySql) {
    const facts = backend === 'sqlite' ? await explainSqlite(db, sql, v.params) : await explainPostgres(db, sql, v.params);
    const tables = [...new Set([...sql.matchAll(TABLE_NAME)].map((m) => m[1]!))];
    out.push({ backend, items, usedBy: v.usedBy, sql, plan: facts.plan, tables, ...verdictOf(sql, facts) });
  }
  return out;
}

// ------------------------------------------------------------------ one backend, one size

export interface SizeResult {
  backend: 'sqlite' | 'postgres';
  items: number;
  fill: FillResult;
  rows: IntelRow[];
  plans: StatementPlan[];
  /** The newswire filter rows uncached (query + build + JSON.stringify), limit UNCACHED_LIMIT. */
  uncached: IntelRow[];
  /** Free feeds over HTTP against a bare Hono route serving the same bytes (smallest SQLite size only). */
  freeFeeds?: FreeFeedResult[];
}

/**
 * Items per answer in the uncached filter rows: every filter matches at least
 * this many items after (mid) at 1,000 items, so both sizes return the same
 * number of items and the 100k/1k ratio measures only the work that grows
 * with the store (the walk), not a larger answer.
 */
const UNCACHED_LIMIT = 3;
const RATIO_TARGET = 1.5;
const FREE_FEED_TARGET = 0.8;

export interface FreeFeedResult {
  path: string;
  bytes: number;
  feed: LoadResult;
  bare: LoadResult;
}

/** The free feeds over real HTTP (autocannon, interleaved rounds) against a bare Hono route answering the same captured bytes and headers. */
async function measureFreeFeeds(app: Hono, progress: (m: string) => void): Promise<FreeFeedResult[]> {
  const svc = await listen(app);
  const out: FreeFeedResult[] = [];
  try {
    for (const path of ['/v1/newswire', '/v1/graph']) {
      const res = await fetch(svc.url + path);
      const body = new Uint8Array(await res.arrayBuffer());
      const headers: Array<[string, string]> = [];
      res.headers.forEach((v, k) => {
        if (!['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(k)) headers.push([k, v]);
      });
      const bareApp = new HonoApp();
      bareApp.get(path, () => new Response(body, { status: 200, headers }));
      const bare = await listen(bareApp);
      try {
        progress(`  free feed ${path}: ${body.byteLength} bytes, autocannon vs a bare route`);
        const [feed, bareRes] = await runLoadPlan({
          targets: [
            { name: `service ${path}`, url: svc.url + path, expectStatus: 200 },
            { name: `bare ${path}`, url: bare.url + path, expectStatus: 200 },
          ],
          method: 'GET',
          headers: {},
          body: '',
          connections: 10,
          durationSec: 2,
          rounds: 2,
          warmupSec: 1,
        });
        out.push({ path, bytes: body.byteLength, feed: feed!, bare: bareRes! });
      } finally {
        await bare.close();
      }
    }
  } finally {
    await svc.close();
  }
  return out;
}

/** The newswire filter scenarios without the feed cache: what a changed store costs per distinct query. */
async function measureUncached(backend: 'sqlite' | 'postgres', items: number, rt: IntelRuntime, list: Scenario[], o: LoopOptions): Promise<IntelRow[]> {
  const deps = { store: rt.store, movements: rt.movements, revenue: rt.revenue, operatorWallets: [] };
  const rows: IntelRow[] = [];
  for (const s of list) {
    if (!s.path?.startsWith('/v1/newswire')) continue;
    const q = parseQuery(QUERY_PARAMETERS.newswire, new URL('http://bench' + s.path));
    if (!q.ok) throw new Error(`bad scenario ${s.path}`);
    const values = { ...q.values, limit: UNCACHED_LIMIT };
    const t0 = performance.now();
    const first = JSON.stringify(await buildNewswire(deps, values));
    const firstMs = performance.now() - t0;
    const loop = await timeLoop(async () => JSON.stringify(await buildNewswire(deps, values)).length, o);
    rows.push({ backend, items, key: s.key, scenario: `${s.label.replace('(default, limit 50)', '(default)')} uncached, limit ${UNCACHED_LIMIT}`, ...loop, firstMs, responseBytes: Buffer.byteLength(first), result: describeResult(JSON.parse(first)) });
  }
  return rows;
}

async function benchOneSize(
  backend: 'sqlite' | 'postgres',
  items: number,
  open: () => Promise<{ database: Database; dataDir: string; cleanup: () => Promise<void> }>,
  progress: (m: string) => void,
  /** Run on the filled database after the measurements, before it is dropped. */
  then?: (database: Database, fill: FillResult) => Promise<void>,
  opts: { freeFeeds?: boolean } = {},
): Promise<SizeResult> {
  const { database, dataDir, cleanup } = await open();
  try {
    const batched = backend === 'sqlite' && items > PER_ITEM_FILL_MAX;
    progress(`intel ${backend} ${items.toLocaleString('en-US')} items: filling (${batched ? `batches of ${FILL_BATCH}` : 'one transaction per record'})`);
    const fill = await fillStore(database.db, items, batched, progress);
    if (backend === 'sqlite') fill.dbBytes = sqliteBytes(dataDir);
    progress(`  filled in ${(fill.ms / 1000).toFixed(1)} s (${Math.round(fill.itemsPerSec)} items/s, ${fill.changeLog} change-log rows)`);

    const ia = await buildIntelApp(database.db, database, dataDir);
    const list = scenarios(fill);
    const rows: IntelRow[] = [];
    const o = loopOptions(items);
    for (const s of list) {
      if (s.explainOnly) continue;
      rows.push(await measureScenario(backend, items, s, ia, o));
      const last = rows[rows.length - 1]!;
      progress(`  ${s.key}: p50 ${fmt(last.ms.p50)} ms, p99 ${fmt(last.ms.p99)} ms (${last.iterations} calls)`);
    }
    const uncached = await measureUncached(backend, items, ia.runtime, list, o);
    for (const u of uncached) progress(`  ${u.key} uncached: p50 ${fmt(u.ms.p50)} ms`);
    const freeFeeds = opts.freeFeeds ? await measureFreeFeeds(ia.app, progress) : undefined;
    const recorder = new RecordingDriver(database.db);
    const plans = await capturePlans(backend, items, recorder, await buildIntelApp(recorder, database, dataDir), list, database.db);
    if (then) await then(database, fill);
    return { backend, items, fill, rows, plans, uncached, freeFeeds };
  } finally {
    await cleanup();
  }
}

function sqliteBytes(dir: string): number {
  let total = 0;
  for (const f of ['ledger.sqlite', 'ledger.sqlite-wal']) {
    try {
      total += statSync(join(dir, f)).size;
    } catch {
      // absent: nothing to add
    }
  }
  return total;
}

/** Temp dirs still in use: removed on exit too, so a run ended by the watchdog leaves no gigabyte behind. */
const liveDirs = new Set<string>();
process.on('exit', () => {
  for (const d of liveDirs) rmSync(d, { recursive: true, force: true });
});

function tempDataDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  liveDirs.add(dir);
  return dir;
}

function removeDataDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  liveDirs.delete(dir);
}

async function openSqliteFresh(): Promise<{ database: Database; dataDir: string; cleanup: () => Promise<void> }> {
  const dataDir = tempDataDir('bench-intel-');
  let database: Database;
  try {
    database = await openDatabase({ dataDir });
  } catch (e) {
    removeDataDir(dataDir);
    throw e;
  }
  return {
    database,
    dataDir,
    cleanup: async () => {
      await database.close().catch(() => {});
      removeDataDir(dataDir);
    },
  };
}

/** A fresh schema on TEST_DATABASE_URL (as test/support/pg.ts makes them), dropped afterwards. */
async function openPostgresFresh(base: string): Promise<{ database: Database; dataDir: string; cleanup: () => Promise<void> }> {
  const schema = 'bench_' + randomBytes(6).toString('hex');
  const admin = new pg.Client({ connectionString: base, connectionTimeoutMillis: 5_000 });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const u = new URL(base);
  // Commits of this schema's connections do not wait for the WAL flush (the fill's
  // one transaction per record); reads are unaffected.
  u.searchParams.set('options', `-c search_path=${schema} -c synchronous_commit=off`);
  const dataDir = tempDataDir('bench-intel-pg-');
  const drop = async () => {
    const c = new pg.Client({ connectionString: base, connectionTimeoutMillis: 5_000 });
    await c.connect();
    await c.query(`DROP SCHEMA ${schema} CASCADE`);
    await c.end();
  };
  let database: Database;
  try {
    database = await openDatabase({ dataDir, databaseUrl: u.toString() });
  } catch (e) {
    await drop().catch(() => {});
    removeDataDir(dataDir);
    throw e;
  }
  return {
    database,
    dataDir,
    cleanup: async () => {
      await database.close().catch(() => {});
      await drop().catch(() => {});
      removeDataDir(dataDir);
    },
  };
}

// ------------------------------------------------------------------ PostgreSQL at 100,000: plans only

export interface PlansAtScale {
  items: number;
  copyMs: number;
  plans: StatementPlan[];
}

/**
 * Filling PostgreSQL through the store at 100,000 items takes minutes, more
 * than the section's budget. For the plans only, the 1,000 store-written rows
 * already in the database are replicated in SQL into `items` (new ids; store
 * times shifted by whole spans, so they stay unique and in order), the
 * content tables are vacuumed and analyzed as autovacuum would, and the routes' statements
 * are recorded and explained again. Nothing is timed on these rows.
 */
async function postgresPlansAt(items: number, database: Database, seed: FillResult, progress: (m: string) => void): Promise<PlansAtScale> {
  const db = database.db;
  const have = Number((await db.all<{ n: number | string }>('SELECT COUNT(*) AS n FROM newswire_items'))[0]!.n);
  const copies = Math.ceil(items / have) - 1;
  const bounds = (await db.all<{ lo: number | string; hi: number | string }>('SELECT MIN(updated_us) AS lo, MAX(updated_us) AS hi FROM newswire_item_versions'))[0]!;
  // Shifting by more than the items' whole span of store times keeps every copy apart and in order.
  const hi = Number(bounds.hi);
  const span = hi - Number(bounds.lo) + 1_000_000;
  const t0 = performance.now();
  progress(`intel postgres: replicating the ${have.toLocaleString('en-US')} items ${copies} times in SQL for the plans at ${items.toLocaleString('en-US')}`);
  // Copies k = from…to of every original row (store time ≤ hi); run in slices so no statement meets the driver's statement timeout.
  const copy: Array<(from: number, to: number) => [string, unknown[]]> = [
    (from, to) => [
      `INSERT INTO newswire_items (event_id, slug, version, event_date, item_type, tier_rank, newsroom_state, first_party, material_type, correction_of, content_hash, published_us, updated_us, doc)
       SELECT event_id || '-c' || k, slug || '-c' || k, version, event_date, item_type, tier_rank, newsroom_state, first_party, material_type, correction_of, content_hash,
              published_us + k * CAST(? AS BIGINT), updated_us + k * CAST(? AS BIGINT), doc
       FROM newswire_items, generate_series(CAST(? AS INTEGER), CAST(? AS INTEGER)) AS k WHERE updated_us <= ?`,
      [span, span, from, to, hi],
    ],
    (from, to) => [
      `INSERT INTO newswire_item_versions (event_id, version, change_kind, material, updated_us, recorded_at, content_hash, changed_fields, doc)
       SELECT event_id || '-c' || k, version, change_kind, material, updated_us + k * CAST(? AS BIGINT), recorded_at, content_hash, changed_fields, doc
       FROM newswire_item_versions, generate_series(CAST(? AS INTEGER), CAST(? AS INTEGER)) AS k WHERE updated_us <= ?`,
      [span, from, to, hi],
    ],
    (from, to) => [
      `INSERT INTO newswire_item_tags (event_id, version, tag_kind, tag_value, updated_us)
       SELECT event_id || '-c' || k, version, tag_kind, tag_value, updated_us + k * CAST(? AS BIGINT)
       FROM newswire_item_tags, generate_series(CAST(? AS INTEGER), CAST(? AS INTEGER)) AS k WHERE updated_us <= ?`,
      [span, from, to, hi],
    ],
    (from, to) => [
      `INSERT INTO newswire_changes (changed_us, event_id, version, change_kind)
       SELECT changed_us + k * CAST(? AS BIGINT), event_id || '-c' || k, version, change_kind
       FROM newswire_changes, generate_series(CAST(? AS INTEGER), CAST(? AS INTEGER)) AS k WHERE changed_us <= ?`,
      [span, from, to, hi],
    ],
  ];
  const slice = 10;
  for (const make of copy) {
    for (let from = 1; from <= copies; from += slice) {
      const [sql, params] = make(from, Math.min(copies, from + slice - 1));
      await db.run(sql, params);
    }
  }
  await db.run('UPDATE content_clock SET last_us = (SELECT MAX(updated_us) FROM newswire_item_versions) WHERE id = 1');
  for (const t of ['newswire_items', 'newswire_item_versions', 'newswire_item_tags', 'newswire_changes']) await db.run(`VACUUM (ANALYZE) ${t}`);
  const copyMs = performance.now() - t0;
  const n = Number((await db.all<{ n: number | string }>('SELECT COUNT(*) AS n FROM newswire_items'))[0]!.n);
  const mid = (await db.all<{ m: number | string }>('SELECT changed_us AS m FROM newswire_changes ORDER BY changed_us OFFSET ? LIMIT 1', [Math.floor(n / 2)]))[0]!;
  const fill: FillResult = { ...seed, items: n, midCursor: formatMicros(Number(mid.m)) };
  const dataDir = tempDataDir('bench-intel-pg-');
  try {
    const recorder = new RecordingDriver(db);
    const plans = await capturePlans('postgres', n, recorder, await buildIntelApp(recorder, database, dataDir), scenarios(fill), db);
    return { items: n, copyMs, plans };
  } finally {
    removeDataDir(dataDir);
  }
}

// ------------------------------------------------------------------ the section

export interface IntelBenchResult {
  sizes: number[];
  elapsedMs: number;
  sqlite: SizeResult[];
  postgres: { skipped: string } | { results: SizeResult[]; plansAtScale: PlansAtScale | { skipped: string } };
}

export async function runIntelBench(progress: (m: string) => void = () => {}): Promise<IntelBenchResult> {
  const started = performance.now();
  const deadline = started + SECTION_BUDGET_MS;
  const sizes = sizesFromEnv();
  const sqlite: SizeResult[] = [];
  for (const n of sizes) sqlite.push(await benchOneSize('sqlite', n, openSqliteFresh, progress, undefined, { freeFeeds: n === Math.min(...sizes) }));

  let postgres: IntelBenchResult['postgres'];
  const base = process.env.TEST_DATABASE_URL;
  if (!base) {
    postgres = { skipped: 'TEST_DATABASE_URL is not set: PostgreSQL rows skipped (set it, e.g. postgres://postgres@127.0.0.1:5432/test)' };
  } else {
    const small = Math.min(...sizes);
    const large = Math.max(...sizes);
    const force = process.env.BENCH_INTEL_PG_SCALE === '1';
    let plansAtScale: PlansAtScale | { skipped: string } = { skipped: 'only one size requested' };
    const scaleUp = async (database: Database, fill: FillResult) => {
      if (large <= small) return;
      const used = (performance.now() - started) / 1000;
      if (!force && performance.now() > deadline - PG_SCALE_ESTIMATE_MS) {
        plansAtScale = {
          skipped: `not run: ${used.toFixed(0)} s of the section's ${SECTION_BUDGET_MS / 1000} s are used and it takes about ${PG_SCALE_ESTIMATE_MS / 1000} s more (BENCH_INTEL_PG_SCALE=1 runs it anyway)`,
        };
        return;
      }
      plansAtScale = await postgresPlansAt(large, database, fill, progress);
    };
    const results = [await benchOneSize('postgres', small, () => openPostgresFresh(base), progress, scaleUp)];
    postgres = { results, plansAtScale };
  }
  progress(`intel section done in ${((performance.now() - started) / 1000).toFixed(1)} s (checksum ${sink})`);
  return { sizes, elapsedMs: performance.now() - started, sqlite, postgres };
}

// ------------------------------------------------------------------ report

const CONTENT_TABLES = new Set(['newswire_items', 'newswire_item_tags', 'newswire_item_versions', 'newswire_changes']);

function planVerdict(p: StatementPlan): string {
  const content = p.tables.some((t) => CONTENT_TABLES.has(t));
  const strong = (text: string) => (content ? `**${text}**` : text);
  switch (p.verdict) {
    case 'index':
      return 'index search (a key or key range)';
    case 'index-walk':
      return 'index order without a range, stops at LIMIT';
    case 'index-sort':
      return strong('index search, then the matches are sorted before LIMIT');
    case 'index-aggregate':
      return 'index search; counts/sums every match (no LIMIT)';
    case 'full-index-scan':
      return strong(`whole index of ${p.scans.join(', ')} read`);
    case 'scan':
      return strong(`whole table read (${p.scans.join(', ')})`);
    case 'no-table':
      return 'no table';
  }
}

/** Statements on the newswire/change-log tables that read more than a LIMIT-bounded index range. */
function contentConcerns(plans: StatementPlan[]): StatementPlan[] {
  return plans.filter((p) => p.tables.some((t) => CONTENT_TABLES.has(t)) && !['index', 'index-walk', 'no-table'].includes(p.verdict));
}

function plansSection(title: string, plans: StatementPlan[], allKeys: string[], note: string[]): string[] {
  const out = [title, '', ...note, ''];
  const used = (p: StatementPlan) => (allKeys.every((k) => p.usedBy.includes(k)) ? 'every request' : p.usedBy.join(', '));
  out.push(
    markdownTable(
      ['stmt', 'tables', 'used by', 'how the tables are read'],
      plans.map((p, i) => [`S${i + 1}`, p.tables.join(', '), used(p), planVerdict(p)]),
      ['l', 'l', 'l', 'l'],
    ),
    '',
  );
  plans.forEach((p, i) => out.push(`S${i + 1}: \`${p.sql}\``, '```', ...p.plan, '```'));
  out.push('');
  return out;
}

/** p50 at the largest size over p50 at the smallest, by scenario key, for one backend. */
function growthBy(r: IntelBenchResult, backend: 'sqlite' | 'postgres'): Map<string, number> {
  const sizes = backend === 'sqlite' ? r.sqlite : 'results' in r.postgres ? r.postgres.results : [];
  const out = new Map<string, number>();
  if (sizes.length < 2) return out;
  const first = sizes[0]!, last = sizes[sizes.length - 1]!;
  for (const row of last.rows) {
    const base = first.rows.find((x) => x.key === row.key);
    if (base) out.set(row.key, row.ms.p50 / base.ms.p50);
  }
  return out;
}

function concernLine(plans: StatementPlan[], label: string, growth: Map<string, number> = new Map()): string {
  const scans = plans.filter((p) => p.tables.some((t) => CONTENT_TABLES.has(t)) && (p.verdict === 'scan' || p.verdict === 'full-index-scan'));
  const other = contentConcerns(plans).filter((p) => !scans.includes(p));
  const idx = (p: StatementPlan) => `S${plans.indexOf(p) + 1}`;
  const users = (p: StatementPlan) => p.usedBy.map((k) => (growth.has(k) ? `${k} [p50 ${fmt(growth.get(k)!)}× the smallest size]` : k)).join(', ');
  const parts = [
    scans.length
      ? `**${label}: ${scans.length} statement(s) on the newswire tables read a whole table or index**: ${scans.map((p) => `${idx(p)} (${p.scans.join('/')}; ${users(p)})`).join('; ')}.`
      : `${label}: no statement reads a newswire table (items, tags, versions, change log) with a SCAN or a whole index; each is an index search (key or key range) or a walk in index order that stops at its LIMIT.`,
  ];
  if (other.length) parts.push(`Index searches that sort or aggregate their matches: ${other.map((p) => `${idx(p)} (${planVerdict(p).replace(/\*/g, '')}; ${users(p)})`).join('; ')}.`);
  return parts.join(' ');
}

/** Markdown lines for the printed report. */
export function intelReport(r: IntelBenchResult): string[] {
  const out: string[] = [];
  const all = [...r.sqlite, ...('results' in r.postgres ? r.postgres.results : [])];
  out.push(
    `### Intelligence at ${r.sizes.map((n) => n.toLocaleString('en-US')).join(' and ')} items (in process: \`app.request()\` on the service's app for the free routes, the capability's \`run\` for the paid changes-since)`,
    '',
    `Each size is a fresh database filled through the content store's own write path, so versions, tags, the change log and every \`lastUpdatedAt\` come from the store: at ${PER_ITEM_FILL_MAX.toLocaleString('en-US')} items or fewer with \`importValue\` per record (validation, then \`store.apply\` in its own transaction), above that with \`store.apply\` per record inside ${FILL_BATCH.toLocaleString('en-US')}-record transactions (see each fill line). "(mid)" is the store watermark after half of the items were written: the \`since\`/\`cursor\` of the filtered feeds and of changes-since. "(common)" is the entity on the most items (${COMMON_ENTITY}), "(rare)" a topic on few (${RARE_TOPIC}); shares below. "first call" is the first request on a freshly built app (cold statement cache; graph counts are then memoized by watermark). HTTP rows include routing, query parsing, JSON.stringify and the ETag hash; the paid rows are \`cap.run(input)\` alone, with JSON.stringify of the result given separately. "p50 vs smallest" compares with the same row at the smallest size: flat means the work does not grow with the store.`,
    '',
  );
  for (const s of all) {
    const f = s.fill;
    out.push(
      `- ${s.backend} ${s.items.toLocaleString('en-US')}: filled in ${fmt(f.ms / 1000)} s (${fmt(f.itemsPerSec)} items/s; ${f.mode}); ${f.records.toLocaleString('en-US')} records: ${f.published} published (${f.corrections} corrections), ${f.held} held (TIER_D), ${f.updates} updates, ${f.retractions} retractions; ${f.changeLog.toLocaleString('en-US')} change-log rows; (common) entity on ${fmt(100 * f.commonEntityShare)}% and (rare) topic on ${fmt(100 * f.rareTopicShare)}% of the items${f.dbBytes ? `; database ${fmt(f.dbBytes / 2 ** 20)} MiB` : ''}.`,
    );
  }
  out.push('');
  const rows = all.flatMap((s) => s.rows);
  const ref = new Map(rows.filter((x) => x.items === Math.min(...r.sizes)).map((x) => [`${x.backend}:${x.key}`, x]));
  out.push(
    markdownTable(
      ['backend', 'items', 'scenario', 'ops/s', 'p50 ms', 'p99 ms', 'first call ms', 'p50 vs smallest', 'response B', 'result'],
      rows.map((x) => {
        const base = ref.get(`${x.backend}:${x.key}`);
        return [
          x.backend,
          x.items.toLocaleString('en-US'),
          x.scenario,
          fmt(x.opsPerSec),
          fmt(x.ms.p50),
          fmt(x.ms.p99),
          fmt(x.firstMs),
          base && base !== x ? `${fmt(x.ms.p50 / base.ms.p50)}×` : '',
          fmt(x.responseBytes),
          x.result + (x.serializeP50Ms !== undefined ? `; stringify p50 ${fmt(x.serializeP50Ms)} ms` : ''),
        ];
      }),
      ['l', 'r', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
    ),
    '',
  );
  // Free feeds over HTTP against a bare route (issue 15 target: >= 0.8x).
  const ff = r.sqlite.flatMap((sz) => (sz.freeFeeds ?? []).map((f) => ({ items: sz.items, ...f })));
  if (ff.length) {
    out.push(
      `#### Free feeds vs a bare Hono route serving the same bytes (req/s, autocannon, 10 connections, 2 interleaved rounds of 2 s, SQLite at ${ff[0]!.items.toLocaleString('en-US')} items; the feed answers from its cache keyed by the content generation, one indexed read per request)`,
      '',
      markdownTable(
        ['route', 'bytes', 'service req/s', 'bare req/s', 'ratio', 'target', 'met'],
        ff.map((f) => {
          const ratio = f.feed.rps / f.bare.rps;
          return [`GET ${f.path}`, fmt(f.bytes), fmt(f.feed.rps), fmt(f.bare.rps), `${fmt(ratio)}×`, `≥ ${FREE_FEED_TARGET}×`, ratio >= FREE_FEED_TARGET ? 'yes' : '**no**'];
        }),
        ['l', 'r', 'r', 'r', 'r', 'r', 'l'],
      ),
      '',
    );
  }
  // Uncached filter rows: 100k vs 1k (issue 15 target: every row <= 1.5x).
  const small = Math.min(...r.sizes);
  const large = Math.max(...r.sizes);
  const uncachedRows = (backend: 'sqlite' | 'postgres', n: number) => all.filter((sz) => sz.backend === backend && sz.items === n).flatMap((sz) => sz.uncached);
  if (large > small) {
    const lo = new Map(uncachedRows('sqlite', small).map((x) => [x.key, x]));
    const rowsOut = uncachedRows('sqlite', large).flatMap((x) => {
      const base = lo.get(x.key);
      if (!base) return [];
      const ratio = x.ms.p50 / base.ms.p50;
      return [[x.scenario, fmt(base.ms.p50), fmt(x.ms.p50), `${fmt(ratio)}×`, `≤ ${RATIO_TARGET}×`, ratio <= RATIO_TARGET ? 'yes' : '**no**', `${base.result} / ${x.result}`]];
    });
    out.push(
      `#### Newswire filters uncached, SQLite ${large.toLocaleString('en-US')} vs ${small.toLocaleString('en-US')} items (query + build + JSON.stringify, no feed cache; limit ${UNCACHED_LIMIT} so both sizes return the same number of items and the ratio measures the walk, not a larger answer)`,
      '',
      markdownTable(['scenario', `p50 ms at ${small.toLocaleString('en-US')}`, `p50 ms at ${large.toLocaleString('en-US')}`, 'ratio', 'target', 'met', 'result'], rowsOut, ['l', 'r', 'r', 'r', 'r', 'l', 'l']),
      '',
    );
  }
  const scenarioLabel = (k: string) => all.flatMap((sz) => sz.rows).find((row) => row.key === k)?.scenario ?? k;
  for (const backend of ['sqlite', 'postgres'] as const) {
    const g = growthBy(r, backend);
    if (!g.size) continue;
    const grown = [...g].filter(([, x]) => x > GROWTH_FLAG);
    out.push(
      grown.length
        ? `${backend}: p50 grows more than ${GROWTH_FLAG}× from ${Math.min(...r.sizes).toLocaleString('en-US')} to ${Math.max(...r.sizes).toLocaleString('en-US')} items for ${grown.map(([k, x]) => `**${scenarioLabel(k)}** (${fmt(x)}×)`).join(', ')}; every other row stays within ${fmt(Math.max(...[...g].filter(([, x]) => x <= GROWTH_FLAG).map(([, x]) => x)))}×.`
        : `${backend}: no row's p50 grows more than ${GROWTH_FLAG}× from ${Math.min(...r.sizes).toLocaleString('en-US')} to ${Math.max(...r.sizes).toLocaleString('en-US')} items (largest ${fmt(Math.max(...g.values()))}×).`,
    );
  }
  out.push('');

  // Plans: the largest SQLite size in full; the others compared with it.
  const keys = (sz: SizeResult) => [...new Set(sz.plans.flatMap((p) => p.usedBy))];
  const largest = r.sqlite[r.sqlite.length - 1];
  if (largest) {
    out.push(
      ...plansSection(
        `#### Query plans, SQLite at ${largest.items.toLocaleString('en-US')} items (EXPLAIN QUERY PLAN of every statement the requests above executed, recorded with their parameters)`,
        largest.plans,
        keys(largest),
        [
          concernLine(largest.plans, `SQLite at ${largest.items.toLocaleString('en-US')} items`, growthBy(r, 'sqlite')),
          'Explained but not timed: `protocol`+`min_tier`+`material_only`, and `until`. Census and graph tables are small (snapshots, entities, relationships); graph counts are memoized by watermark. The database has no ANALYZE statistics, as in production (the service never runs ANALYZE).',
        ],
      ),
    );
    for (const other of r.sqlite.slice(0, -1)) {
      const same = other.plans.length === largest.plans.length && other.plans.every((p, i) => p.sql === largest.plans[i]!.sql && p.plan.join('\n') === largest.plans[i]!.plan.join('\n'));
      out.push(`SQLite at ${other.items.toLocaleString('en-US')} items: ${same ? 'the same statements with the same plans.' : concernLine(other.plans, 'plans differ from the largest size')}`);
    }
    out.push('');
  }
  if ('skipped' in r.postgres) out.push(`PostgreSQL: ${r.postgres.skipped}.`, '');
  else {
    const pgSmall = r.postgres.results[0];
    if (pgSmall) out.push(`PostgreSQL at ${pgSmall.items.toLocaleString('en-US')} items (a sequential scan or a sort can be the cheaper plan for tables this small): ${concernLine(pgSmall.plans, 'plans')}`, '');
    const at = r.postgres.plansAtScale;
    if ('skipped' in at) out.push(`PostgreSQL plans at scale: ${at.skipped}.`, '');
    else {
      out.push(
        ...plansSection(`#### Query plans, PostgreSQL at ${at.items.toLocaleString('en-US')} items (EXPLAIN after VACUUM ANALYZE)`, at.plans, [...new Set(at.plans.flatMap((p) => p.usedBy))], [
          `The ${pgSmall ? pgSmall.items.toLocaleString('en-US') : ''} store-written items were replicated in SQL to ${at.items.toLocaleString('en-US')} (${fmt(at.copyMs / 1000)} s) for the plans only; nothing is timed on them.`,
          concernLine(at.plans, `PostgreSQL at ${at.items.toLocaleString('en-US')} items`),
        ]),
      );
    }
  }
  return out;
}

/** The `intel` section of bench/results.json. */
export function intelJson(r: IntelBenchResult) {
  const size = (s: SizeResult) => ({
    backend: s.backend,
    items: s.items,
    fill: {
      mode: s.fill.mode,
      seconds: round(s.fill.ms / 1000),
      items_per_sec: round(s.fill.itemsPerSec),
      records: s.fill.records,
      published: s.fill.published,
      held: s.fill.held,
      corrections: s.fill.corrections,
      updates: s.fill.updates,
      retractions: s.fill.retractions,
      change_log_rows: s.fill.changeLog,
      mid_cursor: s.fill.midCursor,
      common_entity_share: round(s.fill.commonEntityShare),
      rare_topic_share: round(s.fill.rareTopicShare),
      database_bytes: s.fill.dbBytes ?? null,
    },
    rows: s.rows.map((x) => ({
      scenario: x.key,
      label: x.scenario,
      iterations: x.iterations,
      ops_per_sec: round(x.opsPerSec),
      p50_ms: round(x.ms.p50),
      p99_ms: round(x.ms.p99),
      mean_ms: round(x.ms.mean),
      first_call_ms: round(x.firstMs),
      response_bytes: x.responseBytes,
      result: x.result,
      ...(x.serializeP50Ms !== undefined ? { stringify_p50_ms: round(x.serializeP50Ms) } : {}),
    })),
    plans: s.plans.map(planJson),
  });
  return {
    sizes: r.sizes,
    seconds: round(r.elapsedMs / 1000),
    sqlite: r.sqlite.map(size),
    postgres:
      'skipped' in r.postgres
        ? { skipped: r.postgres.skipped }
        : {
            results: r.postgres.results.map(size),
            plans_at_scale: 'skipped' in r.postgres.plansAtScale ? r.postgres.plansAtScale : { items: r.postgres.plansAtScale.items, copy_seconds: round(r.postgres.plansAtScale.copyMs / 1000), plans: r.postgres.plansAtScale.plans.map(planJson) },
          },
  };
}

function planJson(p: StatementPlan) {
  return { used_by: p.usedBy, sql: p.sql, tables: p.tables, verdict: p.verdict, whole: p.scans, plan: p.plan };
}

// ------------------------------------------------------------------ alone: `tsx bench/intel.ts`

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  runIntelBench((m) => process.stderr.write(`[bench] ${m}\n`)).then(
    (r) => {
      console.log(intelReport(r).join('\n'));
      process.exit(0);
    },
    (e: unknown) => {
      console.error('[bench] intel failed:', e instanceof Error ? (e.stack ?? e.message) : e);
      process.exit(1);
    },
  );
}
