/**
 * The presence catalog (`GET /v1/distribution`): where this service can be
 * found. Three honest sources only:
 * - its own discovery surfaces, marked live when this instance actually
 *   serves the route (read from the app's route table at request time);
 * - external listings the operator verified and imported (kind "listing");
 * - for the ecosystem, the directories in the graph and what sourced
 *   LISTED_ON / INDEXES relationships say is on them.
 * Nothing is inferred: no listing is claimed without an imported record.
 */
import type { ContentStore } from './store/contract.js';
import { type Entity, type Listing } from './types.js';

const DISTRIBUTION_SCHEMA_VERSION = 'distribution/1.0';

export const SURFACE_KINDS = ['openapi', 'well_known_manifest', 'agent_card', 'services', 'mcp', 'llms_txt', 'router', 'newswire', 'newswire_pages', 'graph', 'changes_since', 'distribution'] as const;
export type SurfaceKind = (typeof SURFACE_KINDS)[number];

/** One of this service's own discovery surfaces and the route that serves it. */
export interface SelfSurface {
  id: string;
  kind: SurfaceKind;
  method: 'GET' | 'POST' | 'ANY';
  path: string;
}


export interface RouteEntry {
  method: string;
  path: string;
}

export interface DistributionCatalog {
  schemaVersion: string;
  generatedAt: string;
  service: { baseUrl: string; surfaces: Array<{ id: string; kind: SurfaceKind; url: string; status: 'live' | 'not_deployed'; lastVerifiedAt: string }> };
  listings: Listing[];
  ecosystem: {
    directories: Array<{ id: string; name: string; type: string; sourceUrl: string; entries: Array<{ entityId: string; name: string; relationship: 'LISTED_ON' | 'INDEXES'; sourceUrl: string }> }>;
  };
  notes: string[];
}

function serves(routes: readonly RouteEntry[], method: 'GET' | 'POST' | 'ANY', path: string): boolean {
  return routes.some((r) => r.path === path && (method === 'ANY' || r.method === method || r.method === 'ALL' || (method === 'GET' && r.method === 'HEAD')));
}

const PAGE = 500;

async function allOf<T extends { id: string }>(fetchPage: (afterId: string | undefined) => Promise<{ items: T[]; more: boolean }>): Promise<T[]> {
  const out: T[] = [];
  let after: string | undefined;
  for (;;) {
    const p = await fetchPage(after);
    out.push(...p.items);
    if (!p.more || p.items.length === 0) return out;
    after = p.items[p.items.length - 1]!.id;
  }
}

export interface DistributionInput {
  /** The surfaces to report on: every one the product's modules declare (ModuleInit.presence). */
  surfaces: readonly SelfSurface[];
  /** This instance's route table at the time of the request. */
  routes: readonly RouteEntry[];
  baseUrl: string;
  nowMs: number;
}

export async function buildDistribution(store: ContentStore, { surfaces, routes, baseUrl, nowMs }: DistributionInput): Promise<DistributionCatalog> {
  const verifiedAt = new Date(nowMs).toISOString();
  const [listings, directories, listedOn, indexes] = await Promise.all([
    store.listings(),
    allOf((afterId) => store.entities({ type: 'DIRECTORY', afterId, limit: PAGE })),
    allOf((afterId) => store.relationships({ type: 'LISTED_ON', afterId, limit: PAGE })),
    allOf((afterId) => store.relationships({ type: 'INDEXES', afterId, limit: PAGE })),
  ]);
  const names = new Map<string, Entity>();
  for (const id of new Set([...listedOn.map((r) => r.from), ...indexes.map((r) => r.to)])) {
    const e = await store.entity(id);
    if (e) names.set(id, e);
  }
  const notes = [
    'Surface status is this instance’s own route table at the time of this response: live means the route answers here now.',
    'External listings appear only after the operator has checked them and imported a listing record; lastVerifiedAt is when that check happened.',
    'Ecosystem entries come from sourced graph relationships (LISTED_ON, INDEXES); each carries its source URL.',
  ];
  if (listings.length === 0) notes.push('No external listing of this service has been imported yet.');
  return {
    schemaVersion: DISTRIBUTION_SCHEMA_VERSION,
    generatedAt: verifiedAt,
    service: {
      baseUrl,
      surfaces: surfaces.map((s) => ({ id: s.id, kind: s.kind, url: baseUrl + s.path, status: serves(routes, s.method, s.path) ? 'live' : 'not_deployed', lastVerifiedAt: verifiedAt })),
    },
    listings,
    ecosystem: {
      directories: directories.map((d) => ({
        id: d.id,
        name: d.name,
        type: d.type,
        sourceUrl: d.sourceUrl,
        entries: [
          ...listedOn.filter((r) => r.to === d.id).map((r) => ({ entityId: r.from, name: names.get(r.from)?.name ?? r.from, relationship: 'LISTED_ON' as const, sourceUrl: r.sourceUrl })),
          ...indexes.filter((r) => r.from === d.id).map((r) => ({ entityId: r.to, name: names.get(r.to)?.name ?? r.to, relationship: 'INDEXES' as const, sourceUrl: r.sourceUrl })),
        ],
      })),
    },
    notes,
  };
}
