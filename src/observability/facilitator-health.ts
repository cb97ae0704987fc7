/**
 * Facilitator health as this process has seen it, read from the metrics it
 * already records (facilitator_request_duration_seconds, facilitator_up):
 * the one place the operator's dashboard learns about facilitators, so the
 * page and a Prometheus scrape of the same process agree. Counts are since
 * the process started; several instances each report their own (Grafana
 * sums them over /metrics).
 */
import { metrics, LATENCY_BUCKETS } from './metrics.js';

/** One facilitator operation (verify or settle): how many calls, how they ended and how long they took. */
export interface FacilitatorOperationHealth {
  calls: number;
  /** Calls per outcome label: verify valid | invalid | error, settle success | refused | error. */
  outcomes: Record<string, number>;
  /** Calls that got no answer (timeout, 5xx, network error). */
  errors: number;
  meanSeconds: number | null;
  /**
   * Upper bound of the histogram bucket holding the median and the 90th
   * percentile (null past the largest bucket, or without calls): "at most".
   */
  p50AtMostSeconds: number | null;
  p90AtMostSeconds: number | null;
}

export interface FacilitatorHealth {
  /** Origin and path of its URL (the metrics' `facilitator` label). */
  facilitator: string;
  /** facilitator_up: in rotation and its latest call answered; null when it has no such series. */
  up: boolean | null;
  verify: FacilitatorOperationHealth;
  settle: FacilitatorOperationHealth;
}

type Operation = 'verify' | 'settle';

interface Tally {
  outcomes: Record<string, number>;
  /** Cumulative count per bound of LATENCY_BUCKETS, summed over outcomes. */
  cumulative: number[];
  sum: number;
  count: number;
}

const emptyTally = (): Tally => ({ outcomes: {}, cumulative: LATENCY_BUCKETS.map(() => 0), sum: 0, count: 0 });

/** The bound of the first bucket holding the q-th quantile, from cumulative counts. */
function quantileBound(t: Tally, q: number): number | null {
  if (t.count === 0) return null;
  const i = t.cumulative.findIndex((n) => n >= q * t.count);
  return i === -1 ? null : LATENCY_BUCKETS[i]!;
}

function health(t: Tally): FacilitatorOperationHealth {
  return {
    calls: t.count,
    outcomes: t.outcomes,
    errors: t.outcomes.error ?? 0,
    meanSeconds: t.count ? t.sum / t.count : null,
    p50AtMostSeconds: quantileBound(t, 0.5),
    p90AtMostSeconds: quantileBound(t, 0.9),
  };
}

/** Every facilitator this process has a series for, by name. */
export async function facilitatorHealth(): Promise<FacilitatorHealth[]> {
  const tallies = new Map<string, Record<Operation, Tally>>();
  const tally = (facilitator: string, operation: Operation) => {
    let f = tallies.get(facilitator);
    if (!f) tallies.set(facilitator, (f = { verify: emptyTally(), settle: emptyTally() }));
    return f[operation];
  };
  const duration = await metrics.facilitatorDuration.get();
  for (const v of duration.values) {
    const { facilitator, operation, outcome, le } = v.labels as { facilitator?: string; operation?: string; outcome?: string; le?: string | number };
    if (facilitator === undefined || (operation !== 'verify' && operation !== 'settle')) continue;
    const t = tally(facilitator, operation);
    const name = (v as { metricName?: string }).metricName ?? '';
    if (name.endsWith('_bucket')) {
      const i = LATENCY_BUCKETS.indexOf(Number(le));
      if (i !== -1) t.cumulative[i]! += v.value;
    } else if (name.endsWith('_sum')) t.sum += v.value;
    else if (name.endsWith('_count')) {
      t.count += v.value;
      if (outcome !== undefined) t.outcomes[outcome] = (t.outcomes[outcome] ?? 0) + v.value;
    }
  }
  const up = new Map<string, boolean>();
  for (const v of (await metrics.facilitatorUp.get()).values) {
    const name = v.labels.facilitator;
    if (typeof name !== 'string') continue;
    up.set(name, v.value === 1);
    if (!tallies.has(name)) tallies.set(name, { verify: emptyTally(), settle: emptyTally() });
  }
  return [...tallies.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([facilitator, t]) => ({ facilitator, up: up.get(facilitator) ?? null, verify: health(t.verify), settle: health(t.settle) }));
}
