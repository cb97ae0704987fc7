/**
 * Import of content records: NDJSON, one record per line. Each line is
 * validated and applied on its own (its own transaction), so a bad line is
 * reported with its reason and the others still land. Idempotent: a line
 * whose record is already stored unchanged is counted as `unchanged`.
 */
import type { ErrorDetail } from '../errors.js';
import { checkRecord } from './records.js';
import type { ContentStore } from './store/contract.js';

export interface RejectedLine {
  line: number;
  code: string;
  reason: string;
  details: ErrorDetail[];
}

export interface ImportReport {
  lines: number;
  created: number;
  updated: number;
  unchanged: number;
  rejected: RejectedLine[];
}

export function emptyReport(): ImportReport {
  return { lines: 0, created: 0, updated: 0, unchanged: 0, rejected: [] };
}

/** Apply one parsed value; updates `report` in place. */
export async function importValue(store: ContentStore, value: unknown, line: number, nowMs: number, report: ImportReport): Promise<void> {
  report.lines++;
  const checked = checkRecord(value, nowMs);
  if (!checked.ok) {
    report.rejected.push({ line, code: checked.rejection.code, reason: checked.rejection.reason, details: checked.rejection.details });
    return;
  }
  const res = await store.apply(checked.record);
  if (!res.ok) {
    report.rejected.push({ line, code: res.rejection.code, reason: res.rejection.reason, details: res.rejection.details });
    return;
  }
  if (res.result === 'created') report.created++;
  else if (res.result === 'unchanged') report.unchanged++;
  else report.updated++;
}

/** Import NDJSON text. Blank lines are skipped; line numbers are 1-based lines of the text. */
export async function importNdjson(store: ContentStore, text: string, now: () => number, report: ImportReport = emptyReport()): Promise<ImportReport> {
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      report.lines++;
      report.rejected.push({ line: i + 1, code: 'invalid_json', reason: `not valid JSON: ${(e as Error).message}`, details: [{ path: '', rule: 'json' }] });
      continue;
    }
    await importValue(store, value, i + 1, now(), report);
  }
  return report;
}

/** One line per rejected record, for people reading the CLI's output. */
export function formatRejections(report: ImportReport, file = ''): string[] {
  return report.rejected.map((r) => {
    const where = r.details.length ? ` [${r.details.map((d) => `${d.path || '/'} ${d.message ?? d.rule}`).join('; ')}]` : '';
    return `${file}${file ? ':' : 'line '}${r.line}: rejected (${r.code}): ${r.reason}${where}`;
  });
}
