/**
 * The service's Prometheus metrics: one registry per process, served at
 * GET /metrics. It sits in the lowest layer so that the payment, store and
 * HTTP code can record without importing each other.
 *
 * Labels are closed sets (route patterns, not paths; states, not ids), so a
 * client cannot grow the series count by choosing URLs.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';

export const registry = new Registry();
// The event-loop delay histogram samples on a timer of this period: coarse
// enough that an idle process is not woken a hundred times a second, fine
// enough to see a stall that delays requests (decision 0026).
collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });

/** Facilitator and ledger calls are milliseconds to seconds; a settle waits for a block. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** One method + route series of the HTTP metrics: its count per status and its latency histogram. */
interface HttpSeries {
  labels: { method: string; route: string };
  statuses: Map<number, { labels: { method: string; route: string; status: string }; count: number }>;
  /** Observations per bucket (not cumulative), the last one past the largest bound (+Inf). */
  buckets: Float64Array;
  sum: number;
  count: number;
}

type ExportedValue = { value: number; metricName?: string; exemplar?: null; labels: Record<string, string | number>; sharedLabels?: Record<string, string> };

/**
 * http_requests_total and http_request_duration_seconds, recorded for every
 * request (the unpaid 402 above all) at the cost of a few map lookups and
 * additions: prom-client's Counter.inc and Histogram.observe hash and validate
 * their label objects on every call (decision 0015). The registry reads them on scrape in the shape
 * (and so the text) prom-client's own Counter and Histogram give; labels are
 * the same closed sets (method, route pattern, status).
 */
export class HttpMetrics {
  private readonly series = new Map<string, Map<string, HttpSeries>>();
  private readonly bounds: readonly number[];

  constructor(
    private readonly names: { requests: string; duration: string },
    private readonly help: { requests: string; duration: string },
    buckets: readonly number[],
    register: Registry,
  ) {
    this.bounds = [...buckets].sort((a, b) => a - b);
    register.registerMetric(this.requestsMetric() as unknown as Metric);
    register.registerMetric(this.durationMetric() as unknown as Metric);
  }

  /** One answered request: its method, route pattern, status and seconds from request to response. */
  record(method: string, route: string, status: number, seconds: number): void {
    let byRoute = this.series.get(method);
    if (!byRoute) this.series.set(method, (byRoute = new Map()));
    let s = byRoute.get(route);
    if (!s) {
      s = { labels: { method, route }, statuses: new Map(), buckets: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 };
      byRoute.set(route, s);
    }
    const byStatus = s.statuses.get(status);
    if (byStatus) byStatus.count++;
    else s.statuses.set(status, { labels: { method, route, status: String(status) }, count: 1 });
    if (!Number.isFinite(seconds)) return;
    const b = this.bounds;
    let i = 0;
    while (i < b.length && seconds > b[i]!) i++;
    s.buckets[i]!++;
    s.sum += seconds;
    s.count++;
  }

  private *all(): Iterable<HttpSeries> {
    for (const byRoute of this.series.values()) yield* byRoute.values();
  }

  private requestsMetric() {
    const values = (): ExportedValue[] => {
      const out: ExportedValue[] = [];
      for (const s of this.all()) for (const st of s.statuses.values()) out.push({ value: st.count, labels: { ...st.labels } });
      return out;
    };
    const metric = {
      name: this.names.requests,
      help: this.help.requests,
      type: 'counter',
      aggregator: 'sum',
      get: async () => ({ name: metric.name, help: metric.help, type: metric.type, aggregator: metric.aggregator, values: values() }),
    };
    return metric;
  }

  private durationMetric() {
    const bucketName = `${this.names.duration}_bucket`;
    // As prom-client's Histogram exports them: cumulative buckets with `le`, +Inf, _sum, _count, the series' labels shared.
    const values = (): ExportedValue[] => {
      const out: ExportedValue[] = [];
      for (const s of this.all()) {
        let acc = 0;
        for (let i = 0; i < this.bounds.length; i++) {
          acc += s.buckets[i]!;
          out.push({ value: acc, metricName: bucketName, exemplar: null, labels: { le: this.bounds[i]! }, sharedLabels: s.labels });
        }
        out.push({ value: s.count, metricName: bucketName, exemplar: null, labels: { le: '+Inf' }, sharedLabels: s.labels });
        out.push({ value: s.sum, metricName: `${this.names.duration}_sum`, labels: {}, sharedLabels: s.labels });
        out.push({ value: s.count, metricName: `${this.names.duration}_count`, labels: {}, sharedLabels: s.labels });
      }
      return out;
    };
    const metric = {
      name: this.names.duration,
      help: this.help.duration,
      type: 'histogram',
      aggregator: 'sum',
      getForPromString: async () => ({ name: metric.name, help: metric.help, type: metric.type, aggregator: metric.aggregator, values: values() }),
      // getMetricsAsJSON: the shared labels merged into each value's own.
      get: async () => ({
        name: metric.name,
        help: metric.help,
        type: metric.type,
        aggregator: metric.aggregator,
        values: values().map(({ sharedLabels, labels, ...v }) => ({ ...v, labels: { ...labels, ...sharedLabels } })),
      }),
    };
    return metric;
  }
}

export const metrics = {
  /** http_requests_total (method, route, status) and http_request_duration_seconds (method, route). */
  http: new HttpMetrics(
    { requests: 'http_requests_total', duration: 'http_request_duration_seconds' },
    { requests: 'HTTP requests answered, by method, route pattern and status.', duration: 'Time from request to response headers, by method and route pattern.' },
    LATENCY_BUCKETS,
    registry,
  ),
  paymentAttempts: new Counter({
    name: 'payment_attempts_total',
    help: 'Payment attempts entering each ledger state (reserved, verified, delivered, settled, failed, ...).',
    labelNames: ['state'] as const,
    registers: [registry],
  }),
  settlements: new Counter({
    name: 'settlements_total',
    help: 'Facilitator settle calls by facilitator and outcome: success (transaction on chain), refused (the facilitator said no), error (no answer).',
    labelNames: ['facilitator', 'outcome'] as const,
    registers: [registry],
  }),
  facilitatorDuration: new Histogram({
    name: 'facilitator_request_duration_seconds',
    help: 'Facilitator verify and settle latency, by facilitator (origin and path of its URL), operation and outcome.',
    labelNames: ['facilitator', 'operation', 'outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  }),
  facilitatorUp: new Gauge({
    name: 'facilitator_up',
    help: 'Per facilitator: 1 when it is in rotation (its /supported listed our payment kind) and its latest call got an answer; 0 before it first answered, after a call without answer (timeout, 5xx, network error) or when it does not support our payment kind.',
    labelNames: ['facilitator'] as const,
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
