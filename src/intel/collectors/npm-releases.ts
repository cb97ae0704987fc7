/**
 * Releases collector: versions of x402 ecosystem packages from the npm
 * registry's package documents (`GET {registry}/{name}`: `dist-tags`,
 * `versions`, `time`).
 *
 * Rules (src/intel/README.md, "Collectors"):
 * - First sight of a package: only its current `latest` is reported (no
 *   history flood); every version listed then counts as seen. Afterwards
 *   every version whose registry `time` is newer than the newest one seen,
 *   oldest first, at most 20 per run.
 * - Dated by the registry's `time[version]`: the source states the date.
 * - Source type `protocol_release` (the registry entry is the release's
 *   primary record), so TIER_A.
 * - A reported version the registry marks `deprecated` → a correction item
 *   (`correctionOf` the release item), dated the day it was observed.
 * - A reported version the registry no longer lists (unpublished) → the
 *   release item is retracted with that reason.
 */
import { isCalendarDate, parseTimestamp } from '../time.js';
import { clip, idFragment, loadState, newReport, provenanceOf, recordFailure, saveState, slugFragment, utcDay, write, type CollectorContext, type CollectorReport } from './context.js';
import { fetchJson } from './fetch.js';
import type { ItemRecord } from '../types.js';

export const NPM_COLLECTOR = 'npm-releases';
export const DEFAULT_NPM_REGISTRY = 'https://registry.npmjs.org';
export const DEFAULT_NPM_PACKAGES = ['@x402/core', '@x402/evm', '@x402/fetch', '@x402/hono', '@x402/extensions', 'x402', 'x402-fetch', 'x402-axios'];
const MAX_VERSIONS_PER_RUN = 20;

export interface NpmOptions {
  registry: string;
  packages: string[];
}

interface ReportedVersion {
  eventId: string;
  deprecated: boolean;
  retracted: boolean;
}

interface PackageState {
  /** Registry time of the newest version reported. */
  newestTime: string;
  reported: Record<string, ReportedVersion>;
}

interface NpmState {
  packages: Record<string, PackageState>;
}

interface RegistryDoc {
  name: string;
  distTags: Record<string, string>;
  versions: Record<string, { deprecated?: unknown }>;
  time: Record<string, string>;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The parts of a registry document the collector reads, or why it cannot be read. */
export function readRegistryDoc(json: unknown, expectedName: string): RegistryDoc | string {
  if (!isObject(json)) return 'the document is not a JSON object';
  if (json.name !== expectedName) return `the document names ${JSON.stringify(json.name)}, not ${expectedName}`;
  const tags = json['dist-tags'];
  const versions = json.versions;
  const time = json.time;
  if (!isObject(tags) || !isObject(versions) || !isObject(time)) return 'dist-tags, versions and time must be objects';
  const distTags: Record<string, string> = {};
  for (const [k, v] of Object.entries(tags)) if (typeof v === 'string') distTags[k] = v;
  const times: Record<string, string> = {};
  // Only real timestamps count; a version without one is never reported (no invented date).
  for (const [k, v] of Object.entries(time)) if (typeof v === 'string' && parseTimestamp(v) !== undefined) times[k] = v;
  const vs: Record<string, { deprecated?: unknown }> = {};
  for (const [k, v] of Object.entries(versions)) if (isObject(v)) vs[k] = v;
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

interface ReleaseContext {
  ctx: CollectorContext;
  report: CollectorReport;
  url: string;
  excerptHash: string;
  retrievedAtMs: number;
  /** Protocol tags for the package's items: x402 when the graph has the entity and the package is in its family. */
  protocols: string[];
}

function releaseItem(rc: ReleaseContext, doc: RegistryDoc, version: string): ItemRecord {
  const when = doc.time[version]!;
  const tags = Object.entries(doc.distTags).filter(([, v]) => v === version).map(([k]) => k);
  const tagText = tags.length ? ` It carries the dist-tag${tags.length > 1 ? 's' : ''} ${tags.join(', ')}.` : '';
  return {
    kind: 'item',
    eventId: releaseEventId(doc.name, version),
    eventDate: when.slice(0, 10),
    type: 'version_update',
    headline: clip(`${doc.name} ${version} published on npm`, 200),
    summary: clip(`The npm registry lists version ${version} of ${doc.name}, published at ${when}.${tagText}`, 2000),
    whyItMatters: 'Agents and services pin these packages to pay and get paid with x402; a new version can change payment behaviour, networks or schemes.',
    entities: rc.protocols,
    protocols: rc.protocols,
    topics: ['releases', 'npm'],
    sources: [{ url: rc.url, sourceType: 'protocol_release', supports: clip(`time["${version}"] = ${when}`, 2000), publishedAt: when }],
    evidenceTier: 'TIER_A',
    observedAt: new Date(rc.retrievedAtMs).toISOString(),
    provenance: [provenanceOf(NPM_COLLECTOR, rc.url, rc.excerptHash, rc.retrievedAtMs)],
  };
}

function deprecationItem(rc: ReleaseContext, doc: RegistryDoc, version: string, message: string, original: string): ItemRecord {
  return {
    kind: 'item',
    eventId: `${original}-deprecated`.slice(0, 128),
    // The registry does not date a deprecation: the item is dated the day it was observed.
    eventDate: utcDay(rc.retrievedAtMs),
    type: 'version_update',
    headline: clip(`${doc.name} ${version} deprecated by its maintainers`, 200),
    summary: clip(`The npm registry now marks ${doc.name} ${version} deprecated: "${message}".`, 2000),
    whyItMatters: 'A deprecated release should not be installed; agents pinned to it should move to a supported version.',
    entities: rc.protocols,
    protocols: rc.protocols,
    topics: ['releases', 'npm'],
    sources: [{ url: rc.url, sourceType: 'protocol_release', supports: clip(`versions["${version}"].deprecated = ${JSON.stringify(message)}`, 2000) }],
    evidenceTier: 'TIER_A',
    correctionOf: original,
    observedAt: new Date(rc.retrievedAtMs).toISOString(),
    provenance: [provenanceOf(NPM_COLLECTOR, rc.url, rc.excerptHash, rc.retrievedAtMs)],
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
  if (!state) {
    const latest = doc.distTags.latest;
    return latest && doc.time[latest] && doc.versions[latest] ? [latest] : [];
  }
  const after = parseTimestamp(state.newestTime)!;
  return Object.keys(doc.versions)
    .filter((v) => doc.time[v] !== undefined && parseTimestamp(doc.time[v]!)! > after && !state.reported[v])
    .sort((a, b) => parseTimestamp(doc.time[a]!)! - parseTimestamp(doc.time[b]!)!)
    .slice(0, MAX_VERSIONS_PER_RUN);
}

async function collectPackage(ctx: CollectorContext, report: CollectorReport, opts: NpmOptions, state: NpmState, name: string): Promise<void> {
  const url = packageUrl(opts.registry, name);
  const got = await fetchJson(url, ctx.limits);
  if (!got.ok) return recordFailure(report, got);
  const doc = readRegistryDoc(got.json, name);
  if (typeof doc === 'string') {
    report.failures.push({ url, failure: 'malformed', detail: doc });
    return;
  }
  const x402 = isX402Package(name) && (await ctx.store.entity('x402'))?.type === 'PROTOCOL';
  const rc: ReleaseContext = { ctx, report, url, excerptHash: got.excerptHash, retrievedAtMs: ctx.now(), protocols: x402 ? ['x402'] : [] };
  const pkgState = state.packages[name];
  const fresh = versionsToReport(doc, pkgState);
  // First sight: everything listed now counts as seen, so later runs report only what is published after it.
  const next: PackageState = pkgState ?? { newestTime: newestListed(doc), reported: {} };
  for (const v of fresh) {
    const item = releaseItem(rc, doc, v);
    if (!isCalendarDate(item.eventDate)) continue;
    if (await write(ctx, report, item)) {
      next.reported[v] = { eventId: item.eventId, deprecated: false, retracted: false };
      if (parseTimestamp(doc.time[v]!)! > parseTimestamp(next.newestTime)!) next.newestTime = doc.time[v]!;
      report.notes.push(`${name} ${v}: reported (registry time ${doc.time[v]}).`);
    }
  }
  for (const [v, r] of Object.entries(next.reported)) {
    if (r.retracted) continue;
    const listed = doc.versions[v];
    if (!listed) {
      const ok = await write(ctx, report, { kind: 'retraction', eventId: r.eventId, reason: `The npm registry no longer lists ${name} ${v} (unpublished); observed ${new Date(rc.retrievedAtMs).toISOString()}.` });
      if (ok) {
        r.retracted = true;
        report.notes.push(`${name} ${v}: no longer listed, release item retracted.`);
      }
      continue;
    }
    if (!r.deprecated && typeof listed.deprecated === 'string' && listed.deprecated.trim() !== '') {
      if (await write(ctx, report, deprecationItem(rc, doc, v, listed.deprecated, r.eventId))) {
        r.deprecated = true;
        report.notes.push(`${name} ${v}: deprecated, correction published.`);
      }
    }
  }
  state.packages[name] = next;
}

export async function collectNpmReleases(ctx: CollectorContext, opts: NpmOptions): Promise<CollectorReport> {
  const report = newReport(NPM_COLLECTOR);
  const state = await loadState<NpmState>(ctx, NPM_COLLECTOR, () => ({ packages: {} }));
  for (const name of opts.packages) await collectPackage(ctx, report, opts, state, name);
  await saveState(ctx, NPM_COLLECTOR, state);
  return report;
}
