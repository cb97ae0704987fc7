/**
 * Content time: the store's timeline is kept in integer microseconds since
 * the Unix epoch (UTC) and rendered as ISO 8601 with exactly six fractional
 * digits and a `Z` suffix, e.g. `2026-11-22T08:09:02.123456Z`.
 *
 * Why microseconds: `lastUpdatedAt` must be unique even when two writes land
 * in the same millisecond (the store advances its clock by at least 1 µs per
 * material change). Six fixed digits keep the strings valid ISO 8601 / RFC
 * 3339 timestamps that any parser accepts (JavaScript's Date truncates to the
 * millisecond), and fixed width makes string order equal time order.
 */

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}(?::?\d{2})?))?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeap(year) ? 29 : MONTH_DAYS[month - 1]!;
}

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

function utcMillis(y: number, mo: number, d: number, h = 0, mi = 0, s = 0): number {
  // Date.UTC maps years 0–99 to 1900–1999; setUTCFullYear does not.
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d);
  t.setUTCHours(h, mi, s, 0);
  return t.getTime();
}

/**
 * Parse an ISO 8601 / RFC 3339 timestamp (or a bare `YYYY-MM-DD`, read as
 * midnight UTC) into microseconds. Accepts what JSON Schema's `date-time`
 * format accepts: `T`, `t` or a space as separator, any number of fractional
 * digits (digits beyond the microsecond are truncated), `Z` or a numeric
 * offset. Returns undefined for anything else, including impossible dates.
 */
export function parseTimestamp(text: string): number | undefined {
  const m = TIMESTAMP.exec(text);
  if (!m) return undefined;
  const [, ys, mos, ds, hs, mis, ss, frac, zone] = m;
  const y = Number(ys), mo = Number(mos), d = Number(ds);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return undefined;
  if (hs === undefined) return utcMillis(y, mo, d) * 1000;
  const h = Number(hs), mi = Number(mis);
  let s = Number(ss);
  if (h > 23 || mi > 59 || s > 60) return undefined;
  let micros = frac ? Number(frac.slice(0, 6).padEnd(6, '0')) : 0;
  if (s === 60) {
    // A leap second is read as the last microsecond of the minute before it.
    s = 59;
    micros = 999_999;
  }
  let offsetMin = 0;
  if (zone && zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
    if (oh > 23 || om > 59) return undefined;
    offsetMin = sign * (oh * 60 + om);
  }
  return (utcMillis(y, mo, d, h, mi, s) - offsetMin * 60_000) * 1000 + micros;
}

/** Render microseconds as `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
export function formatMicros(us: number): string {
  const ms = Math.floor(us / 1000);
  const sub = us - ms * 1000;
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 23)}${String(sub).padStart(3, '0')}Z`;
}

/** True when `text` is a real calendar date written `YYYY-MM-DD`. */
export function isCalendarDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const y = Number(m[1]), mo = Number(m[2]), d = Number(m[3]);
  return mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth(y, mo);
}

/** The UTC calendar date (`YYYY-MM-DD`) of a millisecond instant. */
export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Whole days from date `a` to date `b` (both `YYYY-MM-DD`). */
export function daysBetween(a: string, b: string): number {
  return Math.round((parseTimestamp(b)! - parseTimestamp(a)!) / 86_400_000_000);
}

export const EPOCH_ISO = formatMicros(0);
