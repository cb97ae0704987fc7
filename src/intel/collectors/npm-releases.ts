/**
 * Releases collector: versions of x402 ecosystem packages from the npm
 * registry's package documents (`GET {registry}/{name}`: `dist-tags`,
 * `versions`, `time`).
 *
 * Rules (src/intel/README.md, "Collectors"):
 * - First sight of a package: only its current `latest` is reported (no
 *   history flood); every version listed then counts as seen. Afterwards
 *   every version whose registry `time` is newer than the newest one seen,
 *   oldest first, at most 20 per package per run.
 * - Releases of one package family (an npm scope such as `@x402`; an
 *   unscoped package is its own family) published within one window
 *   (FAMILY_WINDOW_MS between the first and the last) make one item naming
 *   each package and version, whether one run finds them or several: a
 *   coordinated release of eight packages over an afternoon is one piece of
 *   news, not eight. A later run adds to the family's last item (a material
 *   update) while its releases stay in the window and none of them was
 *   deprecated or unpublished; otherwise it starts a new item.
 * - Dated by the registry's `time`: the source states the date.
 * - Source type `protocol_release` (the registry entry is the release's
 *   primary record), so TIER_A — for the registry's structured facts only
 *   (names, versions, times), and only strings of their formal shape.
 * - The registry's free text (a `deprecated` message) is the maintainers'
 *   claim: quoted as theirs, never stated as fact, and the item it is in is
 *   caveated, TIER_B — never TIER_A on first sight.
 * - A reported version the registry marks `deprecated` → a correction item
 *   (`correctionOf` the release item), dated the day it was observed.
 * - A reported version the registry no longer lists (unpublished) → the
 *   release item is retracted with that reason; when the item also names
 *   releases still listed, a correction says which one went.
 * - Each package document is a source with a budget per run and per UTC day
 *   (context.ts `SourceBudgets`).
 */
import { isCalendarDate, parseTimestamp } from '../time.js';
import {
  clip,
  DEFAULT_SOURCE_BUDGET,
  idFragment,
  loadState,
  newReport,
  provenanceOf,
  quoteClaim,
  recordFailure,
  saveState,
  slugFragment,
  SourceBudgets,
  utcDay,
  write,
  type CollectorContext,
  type CollectorReport,
  type DayUse,
} from './context.js';
import { fetchJson } from './fetch.js';
import type { ContentRecord, ItemRecord, ItemSourceRecord, SourceProvenance } from '../types.js';

export const NPM_COLLECTOR = 'npm-releases';
export const DEFAULT_NPM_REGISTRY = 'https://registry.npmjs.org';
export const DEFAULT_NPM_PACKAGES = ['@x402/core', '@x402/evm', '@x402/fetch', '@x402/hono', '@x402/extensions', 'x402', 'x402-fetch', 'x402-axios'];
const MAX_VERSIONS_PER_RUN = 20;
/** Releases of one family published within this span are one piece of news. */
const FAMILY_WINDOW_MS = 24 * 3600_000;

export interface NpmOptions {
  registry: string;
  packages: string[];
}

interface ReportedVersion {
  /** The item that reported it (a single release, or its family's item). */
  eventId: string;
  deprecated: boolean;
  /** Unpublished and dealt with (the item retracted, or corrected when it names other releases). */
  retracted: boolean;
}

interface PackageState {
  /** Registry time of the newest version reported. */
  newestTime: string;
  reported: Record<string, ReportedVersion>;
}

/** An item naming several releases: which, and which of them the registry no longer lists. */
interface FamilyItemState {
  releases: string[];
  gone: string[];
}

interface NpmState {
  packages: Record<string, PackageState>;
  /** Every release item this collector wrote (one release or several), by eventId. */
  items?: Record<string, FamilyItemState>;
  /** The last release item of each family, which later releases in its window join. */
  lastOfFamily?: Record<string, string>;
  budgets?: Record<string, DayUse>;
}

interface RegistryDoc {
  name: string;
  distTags: Record<string, string>;
  versions: Record<string, { deprecated?: unknown }>;
  time: Record<string, string>;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A version string as npm publishes it (semver 2.0, bounded). Anything else
 * is a maintainer's free text in a version's place and is never reported:
 * it would reach a TIER_A headline.
 */
const SEMVER = /^(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})(-[0-9A-Za-z-]{1,20}(\.[0-9A-Za-z-]{1,20}){0,4})?(\+[0-9A-Za-z-]{1,20}(\.[0-9A-Za-z-]{1,20}){0,4})?$/;
const DIST_TAG = /^[A-Za-z][A-Za-z0-9._-]{0,31}$/;

/** The parts of a registry document the collector reads, or why it cannot be read. */
function readRegistryDoc(json: unknown, expectedName: string): RegistryDoc | string {
  if (!isObject(json)) return 'the document is not a JSON object';
  if (json.name !== expectedName) return `the document names ${JSON.stringify(json.name)}, not ${expectedName}`;
  const tags = json['dist-tags'];
  const versions = json.versions;
  const time = json.time;
  if (!isObject(tags) || !isObject(versions) || !isObject(time)) return 'dist-tags, versions and time must be objects';
  const distTags: Record<string, string> = {};
  for (const [k, v] of Object.entries(tags)) if (typeof v === 'string' && DIST_TAG.test(k) && SEMVER.test(v)) distTags[k] = v;
  const times: Record<string, string> = {};
  // Only real timestamps count; a version without one is never reported (no invented date).
  for (const [k, v] of Object.entries(time)) if (typeof v === 'string' && parseTimestamp(v) !== undefined) times[k] = v;
  const vs: Record<string, { deprecated?: unknown }> = {};
  for (const [k, v] of Object.entries(versions)) if (isObject(v) && SEMVER.test(k)) vs[k] = v;
  return { name: json.name, distTags, versions: vs, time: times };
}

function packageUrl(registry: string, name: string): string {
  return `${registry}/${name.replace('/', '%2f')}`;
}

function releaseEventId(pkg: string, version: string): string {
  // The hash keeps "@x402/core" and "x402-core" apart: similar names never merge.
  return `npm-${slugFragment(pkg, 40)}-${idFragment(pkg, 6)}-${slugFragment(version, 40)}`;
}

function isX402Package(name: string): boolean {
  return name.startsWith('@x402/') || name === 'x402' || name.startsWith('x402-');
}

/** A package's family: its npm scope (owned by one organisation), or the package itself when unscoped. */
function packageFamily(name: string): string {
  return name.startsWith('@') ? name.slice(0, name.indexOf('/')) : name;
}

/** One package document, read. */
interface PackageRead {
  name: string;
  url: string;
  doc: RegistryDoc;
  excerptHash: string;
  retrievedAtMs: number;
  /** Protocol tags for the package's items: x402 when the graph has the entity and the package is in its family. */
  protocols: string[];
}

interface Release {
  read: PackageRead;
  version: string;
  time: string;
}

const label = (r: { read: PackageRead; version: string }) => `${r.read.name} ${r.version}`;

function provenanceFor(reads: PackageRead[]): SourceProvenance[] {
  return reads.map((r) => provenanceOf(NPM_COLLECTOR, r.url, r.excerptHash, r.retrievedAtMs));
}

/** Each distinct package of `list`, in order of first appearance. */
function packagesOf<T extends { read: PackageRead }>(list: T[]): PackageRead[] {
  return [...new Map(list.map((x) => [x.read.name, x.read])).values()];
}

/** The item reporting `releases` (one release, or one family's releases in one window), as `eventId` when it extends one. */
function releasesItem(releases: Release[], eventId?: string): ItemRecord {
  const reads = packagesOf(releases);
  const newest = releases.reduce((a, b) => (parseTimestamp(b.time)! > parseTimestamp(a.time)! ? b : a));
  const protocols = reads[0]!.protocols;
  const sources: ItemSourceRecord[] = reads.map((read) => {
    const mine = releases.filter((r) => r.read === read);
    const latest = mine.reduce((a, b) => (parseTimestamp(b.time)! > parseTimestamp(a.time)! ? b : a));
    return { url: read.url, sourceType: 'protocol_release', supports: clip(mine.map((r) => `time["${r.version}"] = ${r.time}`).join('; '), 2000), publishedAt: latest.time };
  });
  const common = {
    kind: 'item' as const,
    // Dated by the registry: the newest release's time (each release's own time is in its source).
    eventDate: newest.time.slice(0, 10),
    type: 'version_update' as const,
    whyItMatters: 'Agents and services pin these packages to pay and get paid with x402; a new version can change payment behaviour, networks or schemes.',
    entities: protocols,
    protocols,
    topics: ['releases', 'npm'],
    sources,
    evidenceTier: 'TIER_A' as const,
    observedAt: new Date(reads[0]!.retrievedAtMs).toISOString(),
    provenance: provenanceFor(reads),
  };
  if (releases.length === 1) {
    const { read, version, time } = releases[0]!;
    const tags = Object.entries(read.doc.distTags).filter(([, v]) => v === version).map(([k]) => k);
    const tagText = tags.length ? ` It carries the dist-tag${tags.length > 1 ? 's' : ''} ${tags.join(', ')}.` : '';
    return {
      ...common,
      eventId: eventId ?? releaseEventId(read.name, version),
      headline: clip(`${read.name} ${version} published on npm`, 200),
      summary: clip(`The npm registry lists version ${version} of ${read.name}, published at ${time}.${tagText}`, 2000),
    };
  }
  const family = packageFamily(reads[0]!.name);
  const names = releases.map(label).sort();
  return {
    ...common,
    eventId: eventId ?? `npm-family-${slugFragment(family, 40)}-${idFragment(family, 6)}-${idFragment(names.join('\n'), 12)}`,
    headline: clip(`${family}: ${releases.length} releases published on npm (${names.join(', ')})`, 200),
    summary: clip(`The npm registry lists ${releases.length} new releases of the ${family} packages: ${releases.map((r) => `${label(r)} (published ${r.time})`).join(', ')}.`, 2000),
  };
}

interface Deprecation {
  read: PackageRead;
  version: string;
  message: string;
}

/**
 * The correction of a release item for versions the maintainers now mark
 * deprecated. The mark is the registry's fact; the message is the
 * maintainers' claim (it may say anything: "all versions leak keys, move
 * your funds to 0x…"), so it is quoted as theirs, the item is caveated and
 * TIER_B, and the headline carries none of it.
 */
function deprecationItem(original: string, coversOneRelease: boolean, deps: Deprecation[]): ItemRecord {
  const reads = packagesOf(deps);
  const names = deps.map(label).sort();
  const protocols = reads[0]!.protocols;
  const quoted = deps.map((d) => `${label(d)}: ${quoteClaim(d.message, Math.floor(1500 / deps.length))}`).join('; ');
  return {
    kind: 'item',
    eventId: (coversOneRelease ? `${original}-deprecated` : `${original}-deprecated-${idFragment(names.join('\n'), 8)}`).slice(0, 128),
    // The registry does not date a deprecation: the item is dated the day it was observed.
    eventDate: utcDay(reads[0]!.retrievedAtMs),
    type: 'version_update',
    headline: clip(`${names.join(', ')} marked deprecated on npm`, 200),
    summary: clip(`The npm registry marks ${names.join(', ')} deprecated. The maintainers' deprecation message${deps.length > 1 ? 's' : ''}, quoted as published and not verified by this newsroom: ${quoted}.`, 2000),
    whyItMatters: 'A deprecated release should not be installed; agents pinned to it should move to a supported version.',
    entities: protocols,
    protocols,
    topics: ['releases', 'npm'],
    sources: reads.map((read) => ({
      url: read.url,
      sourceType: 'protocol_release' as const,
      supports: clip(`${deps.filter((d) => d.read === read).map((d) => `versions["${d.version}"].deprecated is set`).join('; ')} (the maintainers' message, quoted in the summary).`, 2000),
    })),
    evidenceTier: 'TIER_B',
    caveat: 'The deprecation message is the package maintainers’ own claim, quoted as published; what it says has not been verified.',
    correctionOf: original,
    observedAt: new Date(reads[0]!.retrievedAtMs).toISOString(),
    provenance: provenanceFor(reads),
  };
}

/** The registry time of the newest version listed (the epoch when none is dated). */
function newestListed(doc: RegistryDoc): string {
  let best = '1970-01-01T00:00:00Z';
  for (const v of Object.keys(doc.versions)) {
    const t = doc.time[v];
    if (t !== undefined && parseTimestamp(t)! > parseTimestamp(best)!) best = t;
  }
  return best;
}

/** Versions to report now: the current latest on first sight; afterwards everything newer than what was reported. */
function versionsToReport(doc: RegistryDoc, state: PackageState | undefined): string[] {
  const dated = (v: string) => doc.time[v] !== undefined && isCalendarDate(doc.time[v]!.slice(0, 10));
  if (!state) {
    const latest = doc.distTags.latest;
    return latest && dated(latest) && doc.versions[latest] ? [latest] : [];
  }
  const after = parseTimestamp(state.newestTime)!;
  return Object.keys(doc.versions)
    .filter((v) => dated(v) && parseTimestamp(doc.time[v]!)! > after && !state.reported[v])
    .sort((a, b) => parseTimestamp(doc.time[a]!)! - parseTimestamp(doc.time[b]!)!)
    .slice(0, MAX_VERSIONS_PER_RUN);
}

async function readPackage(ctx: CollectorContext, report: CollectorReport, opts: NpmOptions, name: string): Promise<PackageRead | undefined> {
  const url = packageUrl(opts.registry, name);
  const got = await fetchJson(url, ctx.limits);
  if (!got.ok) {
    recordFailure(report, got);
    return undefined;
  }
  const doc = readRegistryDoc(got.json, name);
  if (typeof doc === 'string') {
    report.failures.push({ url, failure: 'malformed', detail: doc });
    return undefined;
  }
  const x402 = isX402Package(name) && (await ctx.store.entity('x402'))?.type === 'PROTOCOL';
  return { name, url, doc, excerptHash: got.excerptHash, retrievedAtMs: ctx.now(), protocols: x402 ? ['x402'] : [] };
}

class NpmRun {
  readonly budget: SourceBudgets;
  readonly items: Record<string, FamilyItemState>;
  readonly lastOfFamily: Record<string, string>;

  constructor(
    readonly ctx: CollectorContext,
    readonly report: CollectorReport,
    readonly state: NpmState,
  ) {
    this.budget = new SourceBudgets(ctx.budget ?? DEFAULT_SOURCE_BUDGET, (state.budgets ??= {}), utcDay(ctx.now()));
    this.items = state.items ??= {};
    this.lastOfFamily = state.lastOfFamily ??= {};
  }

  /**
   * The family's last item when `fresh` joins it: every release it names is
   * still read this run, listed, neither deprecated nor unpublished, and all
   * of them with `fresh` fall within FAMILY_WINDOW_MS.
   */
  private openItem(family: string, fresh: Release[], reads: PackageRead[]): { eventId: string; releases: Release[] } | undefined {
    const eventId = this.lastOfFamily[family];
    const item = eventId === undefined ? undefined : this.items[eventId];
    if (!eventId || !item || item.gone.length) return undefined;
    const releases: Release[] = [];
    for (const name of item.releases) {
      const at = name.lastIndexOf(' ');
      const read = reads.find((r) => r.name === name.slice(0, at));
      const version = name.slice(at + 1);
      const time = read?.doc.time[version];
      const reported = read && this.state.packages[read.name]?.reported[version];
      if (!read || !time || !read.doc.versions[version] || !reported || reported.deprecated || reported.retracted) return undefined;
      releases.push({ read, version, time });
    }
    const times = [...releases, ...fresh].map((r) => parseTimestamp(r.time)! / 1000);
    return Math.max(...times) - Math.min(...times) <= FAMILY_WINDOW_MS ? { eventId, releases } : undefined;
  }

  /** Write a record charged to `source`'s budget; false when it does not fit or is rejected. */
  private async charge(source: string, record: ContentRecord, cost = { items: 1, records: 1 }): Promise<boolean> {
    return this.budget.spend(source, cost) && write(this.ctx, this.report, record);
  }

  /** New releases of every package read, one item per family. */
  async releases(reads: PackageRead[]): Promise<void> {
    const byFamily = new Map<string, Release[]>();
    for (const read of reads) {
      const known = this.state.packages[read.name];
      const fresh = versionsToReport(read.doc, known);
      // First sight: everything listed now counts as seen, so later runs report only what is published after it.
      if (!known && fresh.length === 0) this.state.packages[read.name] = { newestTime: newestListed(read.doc), reported: {} };
      if (fresh.length === 0) continue;
      // The family's item costs each member package's source one item; a package over its budget waits for a later run.
      if (!this.budget.spend(read.url, { resources: 0, items: 1, records: 1 })) continue;
      const family = packageFamily(read.name);
      const list = byFamily.get(family) ?? [];
      list.push(...fresh.map((version) => ({ read, version, time: read.doc.time[version]! })));
      byFamily.set(family, list);
    }
    for (const [family, fresh] of byFamily) {
      const open = this.openItem(family, fresh, reads);
      const releases = open ? [...open.releases, ...fresh] : fresh;
      const item = releasesItem(releases, open?.eventId);
      if (!(await write(this.ctx, this.report, item))) continue;
      this.items[item.eventId] = { releases: releases.map(label), gone: [] };
      this.lastOfFamily[family] = item.eventId;
      for (const r of fresh) {
        const pkg = (this.state.packages[r.read.name] ??= { newestTime: newestListed(r.read.doc), reported: {} });
        pkg.reported[r.version] = { eventId: item.eventId, deprecated: false, retracted: false };
        if (parseTimestamp(r.time)! > parseTimestamp(pkg.newestTime)!) pkg.newestTime = r.time;
        this.report.notes.push(`${label(r)}: reported (registry time ${r.time})${releases.length > 1 ? ` in ${item.eventId}` : ''}${open ? ', joining the family’s release of the same window' : ''}.`);
      }
    }
  }

  /** Reported versions the registry now marks deprecated or no longer lists. */
  async revisions(reads: PackageRead[]): Promise<void> {
    const deprecations = new Map<string, Deprecation[]>();
    const gone = new Map<string, Array<{ read: PackageRead; version: string }>>();
    for (const read of reads) {
      const pkg = this.state.packages[read.name];
      if (!pkg) continue;
      for (const [version, r] of Object.entries(pkg.reported)) {
        if (r.retracted) continue;
        const listed = read.doc.versions[version];
        if (!listed) {
          gone.set(r.eventId, [...(gone.get(r.eventId) ?? []), { read, version }]);
          continue;
        }
        if (!r.deprecated && typeof listed.deprecated === 'string' && listed.deprecated.trim() !== '') {
          deprecations.set(r.eventId, [...(deprecations.get(r.eventId) ?? []), { read, version, message: listed.deprecated }]);
        }
      }
    }
    for (const [eventId, list] of gone) await this.unpublished(eventId, list);
    for (const [eventId, list] of deprecations) {
      const coversOne = (this.items[eventId]?.releases.length ?? 1) === 1;
      if (await this.charge(list[0]!.read.url, deprecationItem(eventId, coversOne, list))) {
        for (const d of list) {
          this.state.packages[d.read.name]!.reported[d.version]!.deprecated = true;
          this.report.notes.push(`${label(d)}: deprecated, correction published (the maintainers' message quoted as their claim).`);
        }
      }
    }
  }

  private async unpublished(eventId: string, list: Array<{ read: PackageRead; version: string }>): Promise<void> {
    const family = this.items[eventId];
    const names = list.map(label);
    const observed = new Date(list[0]!.read.retrievedAtMs).toISOString();
    const remaining = family ? family.releases.filter((x) => !family.gone.includes(x) && !names.includes(x)) : [];
    let ok: boolean;
    if (remaining.length === 0) {
      ok = await this.charge(list[0]!.read.url, { kind: 'retraction', eventId, reason: clip(`The npm registry no longer lists ${names.join(', ')} (unpublished); observed ${observed}.`, 2000) });
    } else {
      // The item names releases that still stand: it is corrected, not retracted.
      const reads = packagesOf(list);
      ok = await this.charge(list[0]!.read.url, {
        kind: 'item',
        eventId: `${eventId}-unpublished-${idFragment(names.sort().join('\n'), 8)}`.slice(0, 128),
        eventDate: utcDay(list[0]!.read.retrievedAtMs),
        type: 'version_update',
        headline: clip(`${names.join(', ')} unpublished from npm`, 200),
        summary: clip(`The npm registry no longer lists ${names.join(', ')} (observed ${observed}); ${remaining.join(', ')} ${remaining.length === 1 ? 'is' : 'are'} still listed.`, 2000),
        whyItMatters: 'An unpublished release cannot be installed; agents pinned to it must move to a listed version.',
        entities: reads[0]!.protocols,
        protocols: reads[0]!.protocols,
        topics: ['releases', 'npm'],
        sources: reads.map((read) => ({ url: read.url, sourceType: 'protocol_release' as const, supports: clip(`versions no longer lists ${names.filter((n) => n.startsWith(`${read.name} `)).join(', ')}.`, 2000) })),
        evidenceTier: 'TIER_A',
        correctionOf: eventId,
        observedAt: observed,
        provenance: provenanceFor(reads),
      });
    }
    if (!ok) return;
    if (family) family.gone.push(...names);
    for (const { read, version } of list) this.state.packages[read.name]!.reported[version]!.retracted = true;
    this.report.notes.push(`${names.join(', ')}: no longer listed, ${remaining.length === 0 ? 'release item retracted' : 'release item corrected'}.`);
  }
}

export async function collectNpmReleases(ctx: CollectorContext, opts: NpmOptions): Promise<CollectorReport> {
  const report = newReport(NPM_COLLECTOR);
  const state = await loadState<NpmState>(ctx, NPM_COLLECTOR, () => ({ packages: {} }));
  const reads: PackageRead[] = [];
  for (const name of opts.packages) {
    const read = await readPackage(ctx, report, opts, name);
    if (read) reads.push(read);
  }
  const run = new NpmRun(ctx, report, state);
  await run.releases(reads);
  await run.revisions(reads);
  report.notes.push(...run.budget.notes());
  await saveState(ctx, NPM_COLLECTOR, state);
  return report;
}
