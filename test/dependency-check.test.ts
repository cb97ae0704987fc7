/**
 * The dependency check `npm run lint` (and so CI) runs: declared = imported,
 * each where it belongs, and every install script reviewed. Each rule is shown
 * failing on a small project made for it, and the repository itself passes.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: a plain ES module script without types
import { checkDependencies, importsOf } from '../scripts/dependency-check.mjs';

const check = checkDependencies as (root: string) => string[];
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

// Fixture sources spell their quotes \u0027, so the check does not read them as this file's own imports.
function project(files: Record<string, string | object>): string {
  const root = mkdtempSync(join(tmpdir(), 'dep-check-'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return root;
}
const installed = (name: string, extra: object = {}) => ({ [`node_modules/${name}/package.json`]: { name, version: '1.0.0', ...extra } });

describe('dependency check', () => {
  test('the repository passes', () => {
    assert.deepEqual(check(ROOT), []);
  });

  test('an import nobody declared, in service code and in a test', () => {
    const root = project({
      'package.json': { name: 'p', dependencies: { used: '1' } },
      ...installed('used'),
      'src/a.ts': "import { x } from \u0027used\u0027;\nimport y from \u0027@scope/ghost/sub\u0027;\n",
      'test/a.test.ts': "const z = await import(\u0027phantom\u0027);\n",
    });
    const problems = check(root);
    assert.ok(problems.includes('src/a.ts: imports @scope/ghost, which package.json does not declare'), problems.join('\n'));
    assert.ok(problems.includes('test/a.test.ts: imports phantom, which package.json does not declare'), problems.join('\n'));
  });

  test('a devDependency the service imports, and a dependency only tests import', () => {
    const root = project({
      'package.json': { name: 'p', dependencies: { testonly: '1' }, devDependencies: { needed: '1' } },
      ...installed('testonly'),
      ...installed('needed'),
      'devnet/d.ts': "import \u0027needed\u0027;\n",
      'bench/b.ts': "import t from \u0027testonly\u0027;\n",
    });
    const problems = check(root);
    assert.ok(problems.includes('devnet/d.ts: imports needed, a devDependency, in code the service runs: move it to dependencies'), problems.join('\n'));
    assert.ok(problems.includes('package.json: dependency testonly is used only by tests and tools: move it to devDependencies'), problems.join('\n'));
  });

  test('declared and used nowhere; a tool used by its binary and @types of a used package count as used', () => {
    const root = project({
      'package.json': {
        name: 'p',
        scripts: { check: 'linty --fix' },
        dependencies: { unused: '1', lib: '1' },
        devDependencies: { 'lint-tool': '1', '@types/lib': '1', '@types/other': '1', '@types/node': '1' },
      },
      ...installed('unused'),
      ...installed('lib'),
      ...installed('lint-tool', { bin: { linty: 'cli.js' } }),
      'src/a.ts': "import { l } from \u0027lib\u0027;\n// import nothing from \u0027unused\u0027 (a comment is not an import)\n",
    });
    const problems = check(root);
    assert.ok(problems.includes('package.json: dependency unused is used nowhere: remove it'), problems.join('\n'));
    assert.ok(problems.includes('package.json: devDependency @types/other is used nowhere: remove it'), problems.join('\n'));
    assert.equal(problems.filter((p) => /lint-tool|@types\/lib|@types\/node|\blib\b/.test(p)).length, 0, problems.join('\n'));
  });

  test('an install script neither allowed nor denied (a script or a bare binding.gyp, at any depth), and an allowScripts entry that matches nothing', () => {
    const root = project({
      'package.json': { name: 'p', dependencies: { a: '1' }, allowScripts: { a: true, gone: false } },
      ...installed('a', { scripts: { install: 'node-gyp rebuild' } }),
      'node_modules/a/node_modules/@t/telemetry/package.json': { name: '@t/telemetry', version: '2.0.0', scripts: { postinstall: 'node report.js' } },
      ...installed('gyp-only'),
      'node_modules/gyp-only/binding.gyp': '{}',
      'src/a.ts': "import \u0027a\u0027;\n",
    });
    const problems = check(root);
    assert.ok(problems.some((p) => p.startsWith('package.json: @t/telemetry@2.0.0 has an install script that allowScripts neither allows nor denies')), problems.join('\n'));
    assert.ok(problems.some((p) => p.startsWith('package.json: gyp-only@1.0.0 has an install script')), problems.join('\n'));
    assert.ok(problems.includes('package.json: allowScripts lists gone, which no installed package with an install script matches: remove it'), problems.join('\n'));
    assert.ok(!problems.some((p) => /\ba@1/.test(p)), 'an allowed package is fine');
  });

  test('what counts as an import', () => {
    const found = importsOf([
      "import type { A } from \u0027@x402/core/types\u0027;",
      "export * from \u0027hono/utils\u0027;",
      'import {\n  b,\n  c,\n} from "viem";',
      "const r = createRequire(import.meta.url).resolve(\u0027swagger-ui-dist/package.json\u0027);",
      "const m = import.meta.resolve(\u0027tsx/esm/api\u0027);",
      "import \u0027./local.js\u0027; import \u0027node:fs\u0027; import \u0027fs\u0027; import \u0027#internal\u0027;",
    ].join('\n'));
    assert.deepEqual([...found].sort(), ['@x402/core', 'hono', 'swagger-ui-dist', 'tsx', 'viem']);
  });
});
