import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { computeMovements, topFamily, zeroMovements } from './census.js';
import type { CensusRecord } from './types.js';

const snap = (id: string, at: string, payers: number, resources: Array<[string, string, number]>): CensusRecord => ({
  kind: 'census',
  snapshotId: id,
  observedAt: at,
  source: 'https://census.example.org/snapshot',
  distinctPayers: payers,
  resources: resources.map(([rid, family, calls]) => ({ id: rid, family, calls })),
});

describe('market movements', () => {
  const a = snap('s1', '2026-10-01T00:00:00Z', 10, [['r1', 'data', 50], ['r2', 'search', 30], ['r3', 'search', 5]]);
  const b = snap('s2', '2026-10-08T00:00:00Z', 12, [['r2', 'search', 70], ['r3', 'search', 10], ['r4', 'data', 1], ['r5', 'media', 2]]);

  test('deltas between two snapshots: resources, payers, calls, entrants, removals, top family', () => {
    const m = computeMovements(a, b);
    assert.equal(m.resourcesDelta, 1);
    assert.equal(m.distinctPayersDelta, 2);
    assert.equal(m.callsDelta, 83 - 85);
    assert.equal(m.newEntrants, 2);
    assert.equal(m.removedResources, 1);
    assert.equal(m.topFamilyChanged, true);
    assert.deepEqual(m.basis, { previous: { snapshotId: 's1', observedAt: '2026-10-01T00:00:00.000000Z' }, latest: { snapshotId: 's2', observedAt: '2026-10-08T00:00:00.000000Z' } });
    assert.ok(m.whatChanged.some((s) => s.includes('from data to search')), m.whatChanged.join(' | '));
    assert.ok(m.whatChanged.some((s) => s.includes('2 new entrants')));
  });

  test('identical snapshots move nothing', () => {
    const m = computeMovements(a, { ...a, snapshotId: 's1b' });
    assert.deepEqual([m.resourcesDelta, m.distinctPayersDelta, m.callsDelta, m.newEntrants, m.removedResources, m.topFamilyChanged], [0, 0, 0, 0, 0, false]);
  });

  test('top family ties go to the alphabetically first family; empty snapshots have none', () => {
    assert.equal(topFamily(snap('t', '2026-01-01T00:00:00Z', 0, [['x', 'b', 5], ['y', 'a', 5]])), 'a');
    assert.equal(topFamily(snap('t', '2026-01-01T00:00:00Z', 0, [])), null);
  });

  test('no movement has a null basis and all-zero deltas', () => {
    const z = zeroMovements(['nothing']);
    assert.equal(z.basis, null);
    assert.deepEqual(z.whatChanged, ['nothing']);
  });
});
