/**
 * The lint fails on a folder cycle (scripts/folder-cycles.mjs, run by
 * scripts/lint.mjs): two folders importing each other through different
 * files is reported even though no file cycle exists; an excused import is
 * not; and the real tree has none.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
// @ts-ignore -- a plain ES module of the lint script, without type declarations
import { folderCycles } from '../scripts/folder-cycles.mjs';

const mod = (source: string, ...to: string[]) => ({ source, dependencies: to.map((resolved) => ({ resolved })) });

test('a synthetic folder cycle is reported, tests and excused imports are not', () => {
  const modules = [
    mod('src/payments/paid-flow.ts', 'src/isolation/pool.ts', 'src/store/ledger.ts'),
    mod('src/isolation/worker.ts', 'src/payments/gate.ts'),
    mod('src/store/ledger.ts'),
    mod('src/payments/gate.ts'),
  ];
  assert.deepEqual(folderCycles(modules), ['isolation → payments → isolation']);
  // Three folders round: one cycle naming all of them.
  assert.deepEqual(folderCycles([mod('src/a/x.ts', 'src/b/y.ts'), mod('src/b/y.ts', 'src/c/z.ts'), mod('src/c/z.ts', 'src/a/w.ts')]), ['a → b → c → a']);
  // A test importing upward is not an edge; nor is an excused import.
  assert.deepEqual(folderCycles([mod('src/payments/paid-flow.ts', 'src/isolation/pool.ts'), mod('src/isolation/pool.test.ts', 'src/payments/gate.ts')]), []);
  assert.deepEqual(folderCycles(modules, [{ from: '^src/isolation/worker\\.ts$', to: '^src/payments/' }]), []);
});

test('the lint runs the folder check with the configuration\'s exceptions', async () => {
  const { readFileSync } = await import('node:fs');
  const lint = readFileSync(new URL('../scripts/lint.mjs', import.meta.url), 'utf8');
  assert.match(lint, /folderCycles\(graph\.modules, exceptions\)/);
  const exceptions = createRequire(import.meta.url)('../.dependency-cruiser.cjs').exceptions as unknown[];
  assert.ok(Array.isArray(exceptions));
});
