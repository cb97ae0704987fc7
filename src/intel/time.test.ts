import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { daysBetween, formatMicros, isCalendarDate, parseTimestamp } from './time.js';

describe('content time', () => {
  test('formats microseconds as ISO 8601 with six fractional digits and Z', () => {
    assert.equal(formatMicros(0), '1970-01-01T00:00:00.000000Z');
    assert.equal(formatMicros(1_763_798_942_123_456), '2025-11-22T08:09:02.123456Z');
    assert.equal(formatMicros(1_000), '1970-01-01T00:00:00.001000Z');
    assert.equal(formatMicros(1), '1970-01-01T00:00:00.000001Z');
  });

  test('every rendered value parses back exactly, and JavaScript Date still reads it (to the millisecond)', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), (us) => {
        const s = formatMicros(us);
        assert.equal(parseTimestamp(s), us);
        assert.equal(new Date(s).getTime(), Math.floor(us / 1000));
      }),
    );
  });

  test('string order is time order (the cursor compares as text and as time alike)', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), fc.maxSafeNat(), (a, b) => {
        const sa = formatMicros(a), sb = formatMicros(b);
        assert.equal(Math.sign(a - b), sa < sb ? -1 : sa > sb ? 1 : 0);
      }),
    );
  });

  test('parses offsets, lower-case separators, bare dates and truncates beyond microseconds', () => {
    assert.equal(parseTimestamp('2026-01-01T01:00:00+01:00'), parseTimestamp('2026-01-01T00:00:00Z'));
    assert.equal(parseTimestamp('2026-01-01t00:00:00z'), parseTimestamp('2026-01-01T00:00:00Z'));
    assert.equal(parseTimestamp('2026-01-01 00:00:00.5Z'), parseTimestamp('2026-01-01T00:00:00.500000Z'));
    assert.equal(parseTimestamp('2026-01-01T00:00:00.123456789Z'), parseTimestamp('2026-01-01T00:00:00.123456Z'));
    assert.equal(parseTimestamp('2026-01-01'), parseTimestamp('2026-01-01T00:00:00Z'));
    assert.equal(parseTimestamp('2026-01-01T00:00:00-0230'), parseTimestamp('2026-01-01T02:30:00Z'));
  });

  test('rejects what is not a real instant', () => {
    for (const bad of ['', 'yesterday', '2026-02-30', '2025-02-29T00:00:00Z', '2026-13-01T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T00:00:00', '2026-01-01T00:00:00+25:00', '1767225600']) {
      assert.equal(parseTimestamp(bad), undefined, bad);
    }
    assert.equal(parseTimestamp('2024-02-29T00:00:00Z') !== undefined, true);
  });

  test('calendar dates and day differences', () => {
    assert.equal(isCalendarDate('2024-02-29'), true);
    assert.equal(isCalendarDate('2025-02-29'), false);
    assert.equal(isCalendarDate('2025-2-1'), false);
    assert.equal(daysBetween('2025-02-16', '2025-02-24'), 8);
  });
});
