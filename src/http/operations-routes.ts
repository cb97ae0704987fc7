/**
 * /healthz, /readyz and /metrics: served by every app whatever its modules,
 * described in OpenAPI like any free route.
 */
import type { Context } from 'hono';
import { errorBody } from '../errors.js';
import type { FreeRoute } from '../module.js';
import { registry } from '../observability/metrics.js';
import type { Ledger } from '../store/ledger.js';

/**
 * What readiness asks: the ledger can be written now (its `ping` is a write
 * probe, and fails while its latest real write failed: store/write-outcomes.ts),
 * the facilitator answers, the process is not shutting down.
 */
export interface ReadinessProbes {
  ledger: Pick<Ledger, 'ping'>;
  rail: { readonly ready: boolean; initialize(): Promise<void>; facilitator: { getSupported(): Promise<unknown> } };
  /** `draining` is set when shutdown begins: readiness turns 503 at once so the load balancer stops sending. */
  lifecycle?: { readonly draining: boolean };
  /** When set, /metrics needs `Authorization: Bearer <token>`. */
  metricsToken?: string;
}

/**
 * How long one facilitator answer stands for readiness. Probes come every few
 * seconds from every load balancer; asking the facilitator's /supported each
 * time would make our probes its load.
 */
const FACILITATOR_CHECK_TTL_MS = 5_000;

/** The facilitator check, remembered for FACILITATOR_CHECK_TTL_MS; concurrent probes share one call. */
function cachedFacilitatorCheck(rail: ReadinessProbes['rail']): () => Promise<boolean> {
  let last: { at: number; ok: boolean } | undefined;
  let inFlight: Promise<boolean> | undefined;
  const ask = async () => {
    try {
      if (!rail.ready) await rail.initialize();
      await rail.facilitator.getSupported();
      return true;
    } catch {
      return false;
    }
  };
  return () => {
    if (last && Date.now() - last.at < FACILITATOR_CHECK_TTL_MS) return Promise.resolve(last.ok);
    inFlight ??= ask().then((ok) => {
      last = { at: Date.now(), ok };
      inFlight = undefined;
      return ok;
    });
    return inFlight;
  };
}

/**
 * How long a successful ledger write probe stands for readiness. The probe
 * is a durable write (an fsync on SQLite) and /readyz is public and not rate
 * limited: without this, a flood of probes would queue fsyncs in front of
 * paid calls' writes. Concurrent probes share one write. A failed probe is
 * not remembered, so recovery shows at the next probe; while the ledger
 * fails, at most one probe is in flight (each bounded by the ledger's own
 * deadline).
 */
const LEDGER_CHECK_TTL_MS = 1_000;

function cachedLedgerCheck(ledger: ReadinessProbes['ledger']): () => Promise<boolean> {
  let lastOk = -Infinity;
  let inFlight: Promise<boolean> | undefined;
  return () => {
    if (Date.now() - lastOk < LEDGER_CHECK_TTL_MS) return Promise.resolve(true);
    inFlight ??= ledger
      .ping()
      .then(
        () => {
          lastOk = Date.now();
          return true;
        },
        () => false,
      )
      .finally(() => (inFlight = undefined));
    return inFlight;
  };
}

const statusSchema = { type: 'object', properties: { status: { type: 'string' }, checks: { type: 'object' } } };
const json = (description: string, schema: Record<string, unknown>) => ({ description, content: { 'application/json': { schema } } });

/** The operations routes as OpenAPI describes them; their handlers need the service's probes (operationsRoutes). */
export const OPERATIONS_DESCRIBED = [
  {
    method: 'GET',
    path: '/healthz',
    operation: { operationId: 'getHealth', summary: 'Liveness: 200 when the process is up', tags: ['operations'], security: [], responses: { '200': json('Up', { type: 'object', properties: { status: { type: 'string', const: 'ok' } } }) } },
  },
  {
    method: 'GET',
    path: '/readyz',
    operation: {
      operationId: 'getReadiness',
      summary: 'Readiness: 200 only when the ledger can write (a durable write probe, enough free disk for SQLite, and its latest real write did not fail in the last 5 s; a success is cached 1 s) and a facilitator has answered /supported at least once; `status` is `ready` while one answers now (cached 5 s) and `degraded` while none does (402s are still built from the last good answer, paid calls answer 503); 503 once shutdown has begun',
      tags: ['operations'],
      security: [],
      responses: { '200': json('Ready', statusSchema), '503': json('Not ready', statusSchema) },
    },
  },
  {
    method: 'GET',
    path: '/metrics',
    operation: {
      operationId: 'getMetrics',
      summary: 'Prometheus metrics: requests by route and status, payment attempts by state, settlements, facilitator and ledger latency, reconciler runs',
      description: 'Prometheus text exposition format. Public unless the operator sets METRICS_TOKEN; then `Authorization: Bearer <token>` is required.',
      tags: ['operations'],
      security: [],
      responses: {
        '200': { description: 'Metrics', content: { 'text/plain': { schema: { type: 'string' } } } },
        '401': json('METRICS_TOKEN is set and the bearer token is missing or wrong', { $ref: '#/components/schemas/Error' }),
      },
    },
  },
] as const satisfies ReadonlyArray<Omit<FreeRoute, 'handle'>>;

export function operationsRoutes(probes: ReadinessProbes): FreeRoute[] {
  const facilitatorOk = cachedFacilitatorCheck(probes.rail);
  const ledgerWritable = cachedLedgerCheck(probes.ledger);
  const ready = async (c: Context) => {
    if (probes.lifecycle?.draining) {
      return c.json({ status: 'shutting_down', checks: { shutdown: 'draining' } }, 503, { 'Cache-Control': 'no-store', Connection: 'close' });
    }
    const checks: Record<string, string> = {};
    // Both at once: a slow ledger answer (bounded by its own deadline) does not add the facilitator's.
    const [ledgerOk, facilitatorUp] = await Promise.all([ledgerWritable(), facilitatorOk()]);
    checks.ledger = ledgerOk ? 'ok' : 'unavailable';
    // No facilitator answering is an outage every instance shares: taking this one out of
    // rotation fixes nothing and would hide the 402s it still builds from the last good
    // /supported answer (and every free route). It stays in, degraded; paid calls answer
    // 503 until a facilitator is back. Only an instance that has never had an answer is not ready.
    checks.facilitator = facilitatorUp ? 'ok' : probes.rail.ready ? 'unreachable' : 'unavailable';
    const ok = ledgerOk && checks.facilitator !== 'unavailable';
    const status = !ok ? 'not_ready' : facilitatorUp ? 'ready' : 'degraded';
    return c.json({ status, checks }, ok ? 200 : 503, { 'Cache-Control': 'no-store' });
  };
  const [health, readiness, metrics] = OPERATIONS_DESCRIBED;
  return [
    { ...health, handle: (c) => c.json({ status: 'ok' }) },
    { ...readiness, handle: ready },
    {
      ...metrics,
      handle: async (c) => {
        if (probes.metricsToken !== undefined && c.req.header('authorization') !== `Bearer ${probes.metricsToken}`) {
          return c.json(errorBody('unauthorized', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.'), 401, { 'WWW-Authenticate': 'Bearer' });
        }
        return c.body(await registry.metrics(), 200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' });
      },
    },
  ];
}
