/**
 * The service's Prometheus metrics: one registry per process, served at
 * GET /metrics. It sits in the lowest layer so that the payment, store and
 * HTTP code can record without importing each other.
 *
 * Labels are closed sets (route patterns, not paths; states, not ids), so a
 * client cannot grow the series count by choosing URLs.
 */
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

/** Facilitator and ledger calls are milliseconds to seconds; a settle waits for a block. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const metrics = {
  httpRequests: new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  }),
  httpDuration: new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to response headers, by method and route pattern.',
    labelNames: ['method', 'route'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  }),
  paymentAttempts: new Counter({
    name: 'payment_attempts_total',
    help: 'Payment attempts entering each ledger state (reserved, verified, delivered, settled, failed, ...).',
    labelNames: ['state'] as const,
    registers: [registry],
  }),
  settlements: new Counter({
    name: 'settlements_total',
    help: 'Facilitator settle calls by outcome: success (transaction on chain), refused (the facilitator said no), error (no answer).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }),
  facilitatorDuration: new Histogram({
    name: 'facilitator_request_duration_seconds',
    help: 'Facilitator verify and settle latency, by operation and outcome.',
    labelNames: ['operation', 'outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  }),
  ledgerDuration: new Histogram({
    name: 'ledger_operation_duration_seconds',
    help: 'Ledger operation latency, by operation and outcome (ok, error).',
    labelNames: ['operation', 'outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  }),
  reconcilerRuns: new Counter({
    name: 'reconciler_runs_total',
    help: 'Reconciler passes over unresolved payment attempts, by outcome (ok, ledger_unavailable).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }),
  reconciledAttempts: new Counter({
    name: 'reconciler_attempts_total',
    help: 'Attempts the reconciler resolved, by result (settled, expired, still_unknown).',
    labelNames: ['result'] as const,
    registers: [registry],
  }),
  rateLimited: new Counter({
    name: 'rate_limited_requests_total',
    help: 'Free-route requests refused with 429 rate_limited.',
    registers: [registry],
  }),
};

/** Seconds since `startMs` (a `performance.now()` reading), for histograms. */
export function secondsSince(startMs: number): number {
  return (performance.now() - startMs) / 1000;
}
