/**
 * Readers of the three x402 discovery formats, each turning an untrusted JSON
 * document into resource observations (URL, price, payee, network, family):
 * - a Bazaar discovery API page (`GET …/discovery/resources`, CDP format:
 *   `{x402Version, items: [{resource, type, accepts: [PaymentRequirements],
 *   lastUpdated, metadata}], pagination: {limit, offset, total}}`);
 * - an origin's `/.well-known/x402` (`{version, resources: [url, …]}`);
 * - an OpenAPI document whose operations carry `x-payment-info`.
 * Every value is type-checked; an entry that fails is skipped and counted,
 * never guessed at. A document of the wrong shape is refused as a whole.
 */

export interface ResourceObservation {
  /** The resource's exact URL: its identity (similar URLs never merge). */
  url: string;
  payTo: string | null;
  network: string | null;
  asset: string | null;
  /** Price in the asset's atomic units, as a decimal string. */
  amount: string | null;
  family: string;
  description: string | null;
}

export interface ReadResult {
  resources: ResourceObservation[];
  skipped: number;
  /** Bazaar pagination: how many resources the directory says it has in total, when it says. */
  total?: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const MAX_URL = 2048;

function str(v: unknown, max: number, pattern?: RegExp): string | null {
  if (typeof v !== 'string' || v.length === 0 || v.length > max) return null;
  return pattern && !pattern.test(v) ? null : v;
}

/** An absolute http(s) URL, or null. */
function resourceUrl(v: unknown): string | null {
  const s = str(v, MAX_URL);
  if (!s) return null;
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.toString() : null;
  } catch {
    return null;
  }
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const ATOMIC = /^[0-9]{1,40}$/;
const NETWORK = /^[A-Za-z0-9:_-]{1,64}$/;
const FAMILY = /^[A-Za-z0-9 _./-]{1,64}$/;

/** Payment terms from one PaymentRequirements-like object (x402 v2 `amount`, v1 `maxAmountRequired`). */
function terms(req: unknown): Pick<ResourceObservation, 'payTo' | 'network' | 'asset' | 'amount'> | null {
  if (!isObject(req)) return null;
  const payTo = str(req.payTo, 64, ADDRESS);
  const amount = str(req.amount, 40, ATOMIC) ?? str(req.maxAmountRequired, 40, ATOMIC) ?? str(req.amount_atomic, 40, ATOMIC);
  if (!payTo || !amount) return null;
  return { payTo: payTo.toLowerCase(), network: str(req.network, 64, NETWORK), asset: str(req.asset, 64, ADDRESS)?.toLowerCase() ?? null, amount };
}

function family(v: unknown): string {
  const f = str(v, 64, FAMILY);
  return f ? f.toLowerCase() : 'uncategorized';
}

function description(v: unknown): string | null {
  return typeof v === 'string' && v.trim() !== '' ? v.slice(0, 500) : null;
}

export function readBazaarPage(json: unknown): ReadResult | string {
  if (!isObject(json) || !Array.isArray(json.items)) return 'not a discovery resources page (items must be an array)';
  const out: ResourceObservation[] = [];
  let skipped = 0;
  for (const it of json.items) {
    const url = isObject(it) ? resourceUrl(it.resource) : null;
    const accepts = isObject(it) && Array.isArray(it.accepts) ? it.accepts : [];
    const t = accepts.map(terms).find((x) => x !== null);
    if (!isObject(it) || !url || !t) {
      skipped++;
      continue;
    }
    const meta = isObject(it.metadata) ? it.metadata : {};
    out.push({ url, ...t, family: family(meta.category), description: description(it.description) ?? description(meta.description) });
  }
  const pagination = isObject(json.pagination) ? json.pagination : {};
  const total = typeof pagination.total === 'number' && Number.isSafeInteger(pagination.total) && pagination.total >= 0 ? pagination.total : undefined;
  return total === undefined ? { resources: out, skipped } : { resources: out, skipped, total };
}

export function readWellKnown(json: unknown): ReadResult | string {
  if (!isObject(json) || !Array.isArray(json.resources)) return 'not an x402 manifest (resources must be an array)';
  const out: ResourceObservation[] = [];
  let skipped = 0;
  for (const r of json.resources) {
    // Entries are URLs; some manifests give objects with a `resource`/`url` and payment terms.
    const url = resourceUrl(isObject(r) ? (r.resource ?? r.url) : r);
    if (!url) {
      skipped++;
      continue;
    }
    const t = isObject(r) ? (Array.isArray(r.accepts) ? r.accepts.map(terms).find((x) => x !== null) : terms(r)) : null;
    out.push({ url, payTo: t?.payTo ?? null, network: t?.network ?? null, asset: t?.asset ?? null, amount: t?.amount ?? null, family: 'uncategorized', description: null });
  }
  return { resources: out, skipped };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Paid operations of an OpenAPI document, resolved against its first server URL (or the document's origin). */
export function readOpenApi(json: unknown, documentUrl: string): ReadResult | string {
  if (!isObject(json) || typeof json.openapi !== 'string' || !isObject(json.paths)) return 'not an OpenAPI document (openapi and paths are required)';
  const servers = Array.isArray(json.servers) ? json.servers : [];
  // A relative server URL is relative to the document (OpenAPI 3, "Server Object").
  const declared = isObject(servers[0]) ? str(servers[0].url, MAX_URL) : null;
  let server = new URL(documentUrl).origin;
  if (declared) {
    try {
      server = resourceUrl(new URL(declared, documentUrl).toString()) ?? server;
    } catch {
      // unparsable: the document's own origin
    }
  }
  const base = server.replace(/\/+$/, '');
  const byUrl = new Map<string, ResourceObservation>();
  let skipped = 0;
  for (const [path, item] of Object.entries(json.paths)) {
    if (!isObject(item) || !path.startsWith('/')) continue;
    for (const m of METHODS) {
      const op = item[m];
      if (!isObject(op) || op['x-payment-info'] === undefined) continue;
      const info = op['x-payment-info'];
      const protocols = isObject(info) && Array.isArray(info.protocols) ? info.protocols : [];
      const fromProtocols = protocols.map((p) => (isObject(p) ? terms(p.x402) : null)).find((x) => x !== null);
      const t = fromProtocols ?? terms(info);
      const url = resourceUrl(base + path);
      if (!t || !url) {
        skipped++;
        continue;
      }
      const tags = Array.isArray(op.tags) ? op.tags.filter((x) => typeof x === 'string' && x !== 'paid') : [];
      if (!byUrl.has(url)) byUrl.set(url, { url, ...t, family: family(tags[0]), description: description(op.summary) });
    }
  }
  return { resources: [...byUrl.values()], skipped };
}
