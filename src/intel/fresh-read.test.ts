import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FreshRead } from './fresh-read.js';

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

test('callers in the same turn share one read', async () => {
  let reads = 0;
  const r = new FreshRead(async () => ++reads);
  const got = await Promise.all(Array.from({ length: 10 }, () => r.get()));
  assert.deepEqual(got, Array(10).fill(1));
  assert.equal(reads, 1);
});

test('a caller that asks after the read began gets a read of its own, never the earlier one', async () => {
  let value = 'before the write';
  const started: Array<ReturnType<typeof deferred<void>>> = [];
  const gates: Array<ReturnType<typeof deferred<void>>> = [];
  const r = new FreshRead(async () => {
    const seen = value; // what the database shows when the read begins
    started.at(-1)!.resolve();
    await gates.at(-1)!.promise;
    return seen;
  });
  started.push(deferred());
  gates.push(deferred());
  const first = r.get();
  await started[0]!.promise; // the read is under way …
  value = 'after the write'; // … a write commits …
  started.push(deferred());
  gates.push(deferred());
  const second = r.get(); // … and a request arrives: it must not share the read that began earlier
  gates[0]!.resolve();
  await started[1]!.promise;
  gates[1]!.resolve();
  assert.equal(await first, 'before the write');
  assert.equal(await second, 'after the write');
});

test('a failed read fails its callers, and the next caller reads again', async () => {
  let n = 0;
  const r = new FreshRead(async () => {
    n++;
    if (n === 1) throw new Error('database stalled');
    return n;
  });
  const a = await Promise.allSettled([r.get(), r.get()]);
  assert.deepEqual(a.map((x) => x.status), ['rejected', 'rejected']);
  assert.equal(await r.get(), 2);
});

test('with a commit version: a turn at the version of the last read gets its value without reading; a new version reads', async () => {
  let reads = 0;
  let version: string | undefined = 'v1';
  const r = new FreshRead(async () => ++reads, () => version);
  assert.equal(await r.get(), 1);
  assert.equal(await r.get(), 1, 'nothing committed since the read began');
  assert.equal(reads, 1);
  version = 'v2';
  assert.equal(await r.get(), 2, 'a commit since: read again');
  version = undefined;
  assert.equal(await r.get(), 3, 'unknown: read');
  assert.equal(await r.get(), 4, 'still unknown: read every time');
  version = 'v2';
  assert.equal(await r.get(), 2, 'the same version again: nothing committed since the read that was kept at it');
  assert.equal(reads, 4);
});

test('with a commit version: the version is taken before the read, so a commit while it runs is not hidden', async () => {
  let value = 'before the write';
  let version = 'v1';
  const r = new FreshRead(async () => {
    const seen = value;
    // A commit lands while the read is under way: its result may or may not include it.
    value = 'after the write';
    version = 'v2';
    return seen;
  }, () => version);
  assert.equal(await r.get(), 'before the write');
  assert.equal(await r.get(), 'after the write', 'the version moved during the read: not kept past it');
});
