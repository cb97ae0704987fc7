/**
 * /healthz and /readyz: served by every app whatever its modules, described
 * in OpenAPI like any free route.
 */
import type { Context } from 'hono';
import type { FreeRoute } from '../module.js';
import type { Ledger } from '../store/ledger.js';

/** What readiness asks: the ledger can be written, the facilitator answers. */
export interface ReadinessProbes {
  ledger: Pick<Ledger, 'ping'>;
  rail: { readonly ready: boolean; initialize(): Promise<void>; facilitator: { getSupported(): Promise<unknown> } };
}

const statusSchema = { type: 'object', properties: { status: { type: 'string' }, checks: { type: 'object' } } };
const json = (description: string, schema: Record<string, unknown>) => ({ description, content: { 'application/json': { schema } } });

export function operationsRoutes(probes: ReadinessProbes): FreeRoute[] {
  const ready = async (c: Context) => {
    const checks: Record<string, string> = {};
    try {
      await probes.ledger.ping();
      checks.ledger = 'ok';
    } catch {
      checks.ledger = 'unavailable';
    }
    try {
      if (!probes.rail.ready) await probes.rail.initialize();
      await probes.rail.facilitator.getSupported();
      checks.facilitator = 'ok';
    } catch {
      checks.facilitator = 'unavailable';
    }
    const ok = checks.ledger === 'ok' && checks.facilitator === 'ok';
    return c.json({ status: ok ? 'ready' : 'not_ready', checks }, ok ? 200 : 503, { 'Cache-Control': 'no-store' });
  };
  return [
    {
      method: 'GET',
      path: '/healthz',
      operation: { operationId: 'getHealth', summary: 'Liveness: 200 when the process is up', tags: ['operations'], security: [], responses: { '200': json('Up', { type: 'object', properties: { status: { type: 'string', const: 'ok' } } }) } },
      handle: (c) => c.json({ status: 'ok' }),
    },
    {
      method: 'GET',
      path: '/readyz',
      operation: {
        operationId: 'getReadiness',
        summary: 'Readiness: 200 only when the ledger and the facilitator answer',
        tags: ['operations'],
        security: [],
        responses: { '200': json('Ready', statusSchema), '503': json('Not ready', statusSchema) },
      },
      handle: ready,
    },
  ];
}
