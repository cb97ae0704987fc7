/**
 * Market movements: what changed between the two latest imported census
 * snapshots. Pure functions of the snapshots; nothing from this service's own
 * ledger or traffic enters here (see `censusPublicationIndependent`).
 */
import { formatMicros, parseTimestamp } from './time.js';
import type { CensusRecord, MarketMovements } from './types.js';

export const NO_CENSUS_SENTENCE = 'Fewer than two census snapshots are imported, so there is no market movement to report.';

/** Movement with nothing to report (fewer than two snapshots; or an item that is not a market snapshot). */
export function zeroMovements(whatChanged: string[] = []): MarketMovements {
  return { resourcesDelta: 0, distinctPayersDelta: 0, callsDelta: 0, newEntrants: 0, removedResources: 0, topFamilyChanged: false, whatChanged, basis: null };
}

/** The family with the most calls; ties go to the alphabetically first family. Null for an empty snapshot. */
export function topFamily(s: CensusRecord): string | null {
  const calls = new Map<string, number>();
  for (const r of s.resources) calls.set(r.family, (calls.get(r.family) ?? 0) + r.calls);
  let best: string | null = null;
  let bestCalls = -1;
  for (const [family, n] of [...calls.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (n > bestCalls) {
      best = family;
      bestCalls = n;
    }
  }
  return best;
}

function totalCalls(s: CensusRecord): number {
  return s.resources.reduce((sum, r) => sum + r.calls, 0);
}

function signed(n: number): string {
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '±0';
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Render a snapshot's observedAt in the store's timestamp form. */
function snapshotTime(s: CensusRecord): string {
  return formatMicros(parseTimestamp(s.observedAt)!);
}

export function computeMovements(previous: CensusRecord, latest: CensusRecord): MarketMovements {
  const before = new Set(previous.resources.map((r) => r.id));
  const after = new Set(latest.resources.map((r) => r.id));
  let newEntrants = 0;
  for (const id of after) if (!before.has(id)) newEntrants++;
  let removedResources = 0;
  for (const id of before) if (!after.has(id)) removedResources++;
  const resourcesDelta = after.size - before.size;
  const distinctPayersDelta = latest.distinctPayers - previous.distinctPayers;
  const callsDelta = totalCalls(latest) - totalCalls(previous);
  const topBefore = topFamily(previous);
  const topAfter = topFamily(latest);
  const topFamilyChanged = topBefore !== topAfter;

  const from = `${previous.snapshotId} (${snapshotTime(previous)})`;
  const to = `${latest.snapshotId} (${snapshotTime(latest)})`;
  const whatChanged = [
    `Between census snapshots ${from} and ${to}:`,
    `resources ${before.size} → ${after.size} (${signed(resourcesDelta)}); ${plural(newEntrants, 'new entrant', 'new entrants')}, ${plural(removedResources, 'resource', 'resources')} removed.`,
    `Distinct payers reported by the source: ${previous.distinctPayers} → ${latest.distinctPayers} (${signed(distinctPayersDelta)}).`,
    `Calls: ${totalCalls(previous)} → ${totalCalls(latest)} (${signed(callsDelta)}).`,
    topFamilyChanged
      ? `The family with the most calls changed from ${topBefore ?? 'none'} to ${topAfter ?? 'none'}.`
      : `The family with the most calls is still ${topAfter ?? 'none'}.`,
    // A census that excluded payers says by which rule, so the counts above are read correctly.
    ...(latest.exclusions
      ? [
          `${latest.exclusions.rule} Excluded in ${latest.snapshotId}: ${plural(latest.exclusions.selfPayments, 'self-payment', 'self-payments')}, ${plural(latest.exclusions.circularTransfers, 'circular transfer', 'circular transfers')}, ${plural(latest.exclusions.dustTransfers, 'dust transfer', 'dust transfers')}; ${plural(latest.exclusions.excludedPayers, 'payer', 'payers')} not counted as buyers.`,
        ]
      : []),
  ];
  return {
    resourcesDelta,
    distinctPayersDelta,
    callsDelta,
    newEntrants,
    removedResources,
    topFamilyChanged,
    whatChanged,
    basis: { previous: { snapshotId: previous.snapshotId, observedAt: snapshotTime(previous) }, latest: { snapshotId: latest.snapshotId, observedAt: snapshotTime(latest) } },
  };
}
