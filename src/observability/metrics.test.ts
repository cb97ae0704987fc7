import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { HttpMetrics, LATENCY_BUCKETS } from './metrics.js';

const NAMES = { requests: 'http_requests_total', duration: 'http_request_duration_seconds' };
const HELP = { requests: 'requests help', duration: 'duration help' };

/** The same observations through prom-client's own Counter and Histogram. */
function reference() {
  const registry = new Registry();
  const requests = new Counter({ name: NAMES.requests, help: HELP.requests, labelNames: ['method', 'route', 'status'] as const, registers: [registry] });
  const duration = new Histogram({ name: NAMES.duration, help: HELP.duration, labelNames: ['method', 'route'] as const, buckets: LATENCY_BUCKETS, registers: [registry] });
  return {
    registry,
    record(method: string, route: string, status: number, seconds: number) {
      requests.inc({ method, route, status: String(status) });
      duration.observe({ method, route }, seconds);
    },
  };
}

/** Prometheus text as a sorted list of lines (series order is not part of the format). */
async function lines(registry: Registry): Promise<string[]> {
  return (await registry.metrics()).split('\n').filter(Boolean).sort();
}

const observation = fc.record({
  method: fc.constantFrom('GET', 'POST', 'HEAD'),
  route: fc.constantFrom('/x402/v1/a', '/x402/v1/b', 'unmatched', '/v1/services'),
  status: fc.constantFrom(200, 304, 402, 404, 503),
  // Bucket bounds themselves (le is inclusive), values between and past them, zero.
  seconds: fc.oneof(fc.constantFrom(0, ...LATENCY_BUCKETS, 31, 100), fc.double({ min: 0, max: 40, noNaN: true })),
});

test('property: HttpMetrics scrapes as the same text as prom-client Counter + Histogram given the same requests', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(observation, { maxLength: 60 }), async (observations) => {
      const registry = new Registry();
      const fast = new HttpMetrics(NAMES, HELP, LATENCY_BUCKETS, registry);
      const ref = reference();
      for (const o of observations) {
        fast.record(o.method, o.route, o.status, o.seconds);
        ref.record(o.method, o.route, o.status, o.seconds);
      }
      assert.deepEqual(await lines(registry), await lines(ref.registry));
    }),
    { numRuns: 200 },
  );
});

test('HttpMetrics as JSON: the series labels are merged into each value, as prom-client does', async () => {
  const registry = new Registry();
  const fast = new HttpMetrics(NAMES, HELP, LATENCY_BUCKETS, registry);
  const ref = reference();
  for (const [m, r, s, sec] of [['POST', '/a', 402, 0.002], ['POST', '/a', 200, 1.5], ['GET', '/b', 200, 0.0001]] as const) {
    fast.record(m, r, s, sec);
    ref.record(m, r, s, sec);
  }
  const sortValues = (metrics: Awaited<ReturnType<Registry['getMetricsAsJSON']>>) =>
    metrics
      .map((m) => ({ name: m.name, help: m.help, type: m.type, aggregator: m.aggregator, values: m.values.map((v) => JSON.stringify(v)).sort() }))
      .sort((a, b) => a.name.localeCompare(b.name));
  assert.deepEqual(sortValues(await registry.getMetricsAsJSON()), sortValues(await ref.registry.getMetricsAsJSON()));
});
