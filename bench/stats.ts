/**
 * Small statistics and formatting helpers shared by the benchmark files.
 * Percentiles use the nearest-rank method on the raw samples (no histogram
 * bucketing), so a p99 over 100 samples is the 99th smallest value.
 */

export interface Summary {
  n: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentile of an ascending array; q in (0, 1]. */
export function percentileSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1]!;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  return n % 2 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  let total = 0;
  for (const v of sorted) total += v;
  return {
    n: sorted.length,
    mean: sorted.length ? total / sorted.length : Number.NaN,
    p50: percentileSorted(sorted, 0.5),
    p90: percentileSorted(sorted, 0.9),
    p99: percentileSorted(sorted, 0.99),
    max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
  };
}

/** Round for display and for the JSON file: 3 significant digits below 100, whole numbers above. */
export function round(v: number): number {
  if (!Number.isFinite(v)) return v;
  const a = Math.abs(v);
  if (a >= 100) return Math.round(v);
  if (a >= 10) return Math.round(v * 10) / 10;
  if (a >= 1) return Math.round(v * 100) / 100;
  return Number(v.toPrecision(3));
}

export function fmt(v: number | undefined): string {
  if (v === undefined || !Number.isFinite(v)) return 'n/a';
  const r = round(v);
  return Math.abs(r) >= 1000 ? r.toLocaleString('en-US') : String(r);
}

export function ratio(a: number, b: number): string {
  if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return 'n/a';
  return `${fmt(a / b)}×`;
}

/** A GitHub-flavoured markdown table. */
export function markdownTable(head: readonly string[], rows: ReadonlyArray<readonly string[]>, align?: ReadonlyArray<'l' | 'r'>): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const pad = (s: string, i: number) => ((align?.[i] ?? 'l') === 'r' ? s.padStart(widths[i]!) : s.padEnd(widths[i]!));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => pad(c, i)).join(' | ')} |`;
  const sep = `|${widths.map((w, i) => ((align?.[i] ?? 'l') === 'r' ? `${'-'.repeat(w + 1)}:` : `${'-'.repeat(w + 2)}`)).join('|')}|`;
  return [line(head), sep, ...rows.map((r) => line(r))].join('\n');
}

/** A whole-number knob from the environment (BENCH_DURATION …), bounded; a bad value stops the bench with its name. */
export function envInt(name: string, def: number, min: number, max: number): number {
  const raw = process.env[name];
  if (!raw) return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be a whole number between ${min} and ${max}`);
  return n;
}

/**
 * Round r in the given order when r has an even number of 1 bits (Thue-Morse), else reversed:
 * A B, B A, B A, A B, B A, A B, A B, B A. Over four rounds each server's windows sit at the same
 * sum of positions and the same sum of their squares, so a cost that falls (or a machine that
 * slows) over a run, linearly or steeply at first, lands on every server alike; always running
 * one first hands it the fall (docs/decisions/0036, 0037).
 */
export function inTurn<T>(items: readonly T[], round: number): T[] {
  let bits = 0;
  for (let r = round; r > 0; r >>= 1) bits += r & 1;
  return bits % 2 === 0 ? [...items] : [...items].reverse();
}
