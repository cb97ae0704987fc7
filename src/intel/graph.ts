/**
 * The entity graph: dataset summary (`GET /v1/graph`) and its three
 * collections. Events are the published newswire items seen as dated,
 * sourced events; entities and relationships are imported records joined by
 * explicit id only.
 */
import type { ContentStore } from './store/contract.js';
import { formatMicros } from './time.js';
import { GRAPH_PROTOCOL, type Entity, type GraphEvent } from './types.js';

export const GRAPH_PATHS = {
  summary: '/v1/graph',
  entities: '/v1/graph/entities',
  events: '/v1/graph/events',
  relationships: '/v1/graph/relationships',
} as const;

/**
 * The methodology flags. Each is a property of the code, not a setting, and
 * each has a test that fails if the code stops keeping it
 * (test/intel-graph.test.ts, "methodology:" tests):
 * - noFabricatedBackfill: an event exists only as an imported or collected
 *   item with at least one source URL and an eventDate that is a real date
 *   not after the import day (records.ts); collectors date an item by the
 *   day they observed it unless the source states the date (collectors/*);
 *   nothing here synthesizes events.
 * - similarNamesDoNotMerge: entities are keyed by id; references are checked
 *   by id and never resolved by name (store/item-writes.ts, store/graph-writes.ts).
 * - censusPublicationIndependent: market movements come only from imported
 *   census snapshots (census.ts), never from this service's ledger or traffic.
 * - http402IsNotRevenue: independent revenue counts settled attempts with a
 *   stored response only (ledger-facts.ts, the ledger's paid-delivery rule).
 * - trafficIsNotABuyer: no request is ever written to the content store or
 *   counted as a payer; payers come from census sources and settled payments
 *   (the on-chain census counts mined transfers only, and excludes
 *   self-payments, circular flows and dust: collectors/chain-census.ts).
 */
const METHODOLOGY = {
  adapters: ['operator_ndjson_import', 'admin_api', 'census_snapshot_import', 'starter_corpus', 'collector:discovery', 'collector:npm-releases', 'collector:chain-census'],
  noFabricatedBackfill: true,
  similarNamesDoNotMerge: true,
  censusPublicationIndependent: true,
  http402IsNotRevenue: true,
  trafficIsNotABuyer: true,
} as const;

export interface GraphSummary {
  protocol: string;
  datasetId: string;
  title: string;
  description: string;
  generatedAt: string;
  methodology: typeof METHODOLOGY;
  counts: Awaited<ReturnType<ContentStore['graphCounts']>>;
  entities: Array<Pick<Entity, 'id' | 'type' | 'name' | 'firstParty'>>;
  latestEvents: GraphEvent[];
  machine: { entities: string; events: string; relationships: string };
}

const SUMMARY_ENTITY_LIMIT = 200;
const SUMMARY_EVENT_LIMIT = 10;

export async function buildGraphSummary(store: ContentStore): Promise<GraphSummary> {
  const watermarkUs = await store.watermark();
  const [counts, entities, events] = await Promise.all([
    store.graphCounts(),
    store.entities({ limit: SUMMARY_ENTITY_LIMIT }),
    store.events({ limit: SUMMARY_EVENT_LIMIT }),
  ]);
  return {
    protocol: GRAPH_PROTOCOL,
    datasetId: 'machine-economy-graph',
    title: 'Machine-economy graph',
    description:
      'Protocols, organizations, directories, payment rails and tools of the machine economy, the sourced relationships between them, and dated events taken from the newswire. Every record carries its source URL.',
    generatedAt: formatMicros(watermarkUs),
    methodology: METHODOLOGY,
    counts,
    entities: entities.items.map((e) => ({ id: e.id, type: e.type, name: e.name, firstParty: e.firstParty })),
    latestEvents: events.items,
    machine: { entities: GRAPH_PATHS.entities, events: GRAPH_PATHS.events, relationships: GRAPH_PATHS.relationships },
  };
}
