// What package.json declares against what the code imports and what npm installs.
// Three rules, each a problem line when broken (`npm run lint` runs them, so CI does):
// - every package imported is declared, and where it belongs: `dependencies` for
//   what the service runs (src/ and devnet/, the code the container image holds),
//   `devDependencies` for the rest (tests, bench, cli, scripts, examples);
// - every declared package is used: imported, run as a binary by a script, the
//   `@types/` of a used package, or named in USED_WITHOUT_IMPORT where a file
//   really names it (checked, so a stale entry is a problem too);
// - every installed package with an install script is listed in `allowScripts`,
//   as allowed (true) or denied (false), and every entry there still matches one.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative, sep } from 'node:path';

/** Folders whose code ships in the container image (npm ci --omit=dev). */
const PRODUCTION_ROOTS = ['src', 'devnet'];
/** Everything else that imports packages; test files under the production roots count here. */
const DEVELOPMENT_ROOTS = ['test', 'bench', 'cli', 'scripts'];
// devnet/compile-token.mjs is `npm run build:token`: it compiles the token the devnet deploys, at development time.
const DEVELOPMENT_FILES = ['pay.mjs', 'pay-mpp.mjs', '.dependency-cruiser.cjs', '.ci/run', 'devnet/compile-token.mjs'];
/** Files whose command lines run packages' binaries. */
const COMMAND_FILES = ['.ci/run', 'Dockerfile'];

/** Packages used by name rather than by an import: the file that names them and the text it holds. */
const USED_WITHOUT_IMPORT = {
  // dependency-cruiser loads its parser by name from the config.
  '@swc/core': { file: '.dependency-cruiser.cjs', text: "parser: 'swc'" },
  // The devnet resolves anvil's platform package from os and arch at run time.
  '@foundry-rs/anvil-linux-amd64': { file: 'devnet/index.ts', text: '@foundry-rs/anvil-${os}-${arch}' },
};

const CODE = /\.(ts|mts|cts|js|mjs|cjs)$/;
const SPECIFIER = [
  /\b(?:import|export)\s+(?:type\s+)?[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g,
  /\bimport\s*['"]([^'"]+)['"]/g,
  /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  /\brequire(?:\.resolve)?\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  /\bimport\.meta\.resolve\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  // createRequire(import.meta.url).resolve('pkg/file')
  /\)\.resolve\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
];
const BUILTIN = new Set(builtinModules);

function filesUnder(root, dir) {
  const out = [];
  const walk = (d) => {
    let names;
    try { names = readdirSync(d); } catch { return; }
    for (const name of names) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (CODE.test(name)) out.push(p);
    }
  };
  walk(join(root, dir));
  return out;
}

/** The package a bare specifier names, or undefined for relative paths, builtins and subpath imports. */
export function packageOf(specifier) {
  if (/^[./#]/.test(specifier) || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  if (BUILTIN.has(name) || !/^(@[a-z0-9._~-]+\/)?[a-z0-9._~-]+$/.test(name)) return undefined;
  return name;
}

/** Packages a file's text imports (comment lines are skipped: examples in prose are not imports). */
export function importsOf(text) {
  const code = text
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
    .join('\n');
  const found = new Set();
  for (const re of SPECIFIER) {
    for (const m of code.matchAll(re)) {
      const name = packageOf(m[1]);
      if (name) found.add(name);
    }
  }
  return found;
}

function binariesOf(root, name) {
  const file = join(root, 'node_modules', name, 'package.json');
  if (!existsSync(file)) return [];
  const { bin } = JSON.parse(readFileSync(file, 'utf8'));
  if (!bin) return [];
  return typeof bin === 'string' ? [name.split('/').pop()] : Object.keys(bin);
}

/** Installed packages (at any depth) that carry an install script, as name@version. */
function installScripts(root) {
  const found = [];
  const visit = (modules) => {
    let names;
    try { names = readdirSync(modules); } catch { return; }
    for (const name of names) {
      if (name.startsWith('.')) continue;
      if (name.startsWith('@')) {
        for (const sub of readdirSync(join(modules, name))) visitPackage(join(modules, name, sub));
      } else visitPackage(join(modules, name));
    }
  };
  const visitPackage = (dir) => {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) return;
    const pkg = JSON.parse(readFileSync(file, 'utf8'));
    const s = pkg.scripts ?? {};
    // npm runs `node-gyp rebuild` for a binding.gyp without an install script of its own.
    const gyp = !s.install && !s.preinstall && existsSync(join(dir, 'binding.gyp'));
    if (s.preinstall || s.install || s.postinstall || gyp) found.push({ name: pkg.name, version: pkg.version });
    visit(join(dir, 'node_modules'));
  };
  visit(join(root, 'node_modules'));
  return found;
}

/** Problems with `root`'s declared dependencies, one line each; empty when all rules hold. */
export function checkDependencies(root) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const production = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})]);
  const development = new Set(Object.keys(pkg.devDependencies ?? {}));
  const problems = [];
  const usedBy = new Map(); // package -> 'production' | 'development'
  const note = (name, where, file) => {
    if (usedBy.get(name) !== 'production') usedBy.set(name, where);
    if (name === pkg.name) return;
    if (where === 'production' && !production.has(name)) {
      problems.push(development.has(name)
        ? `${file}: imports ${name}, a devDependency, in code the service runs: move it to dependencies`
        : `${file}: imports ${name}, which package.json does not declare`);
    } else if (where === 'development' && !production.has(name) && !development.has(name)) {
      problems.push(`${file}: imports ${name}, which package.json does not declare`);
    }
  };
  const scan = (file, where) => {
    const rel = relative(root, file).split(sep).join('/');
    for (const name of importsOf(readFileSync(file, 'utf8'))) note(name, where, rel);
  };
  for (const dir of PRODUCTION_ROOTS) {
    for (const f of filesUnder(root, dir)) {
      const rel = relative(root, f).split(sep).join('/');
      if (!DEVELOPMENT_FILES.includes(rel)) scan(f, /\.test\.[a-z]+$/.test(f) ? 'development' : 'production');
    }
  }
  for (const dir of DEVELOPMENT_ROOTS) for (const f of filesUnder(root, dir)) scan(f, 'development');
  for (const f of DEVELOPMENT_FILES) if (existsSync(join(root, f))) scan(join(root, f), 'development');

  // Binaries run by npm scripts, CI and the image build.
  const commands = [
    ...Object.values(pkg.scripts ?? {}),
    ...COMMAND_FILES.filter((f) => existsSync(join(root, f))).map((f) => readFileSync(join(root, f), 'utf8')),
  ].join('\n');
  const words = new Set(commands.split(/[^A-Za-z0-9@/._-]+/));
  for (const name of [...production, ...development]) {
    if (usedBy.has(name)) continue;
    if (binariesOf(root, name).some((b) => words.has(b))) usedBy.set(name, 'development');
    const indirect = USED_WITHOUT_IMPORT[name];
    if (indirect && existsSync(join(root, indirect.file)) && readFileSync(join(root, indirect.file), 'utf8').includes(indirect.text)) {
      usedBy.set(name, indirect.file.startsWith('devnet/') || indirect.file.startsWith('src/') ? 'production' : 'development');
    }
  }
  for (const [name, { file, text }] of Object.entries(USED_WITHOUT_IMPORT)) {
    const holds = existsSync(join(root, file)) && readFileSync(join(root, file), 'utf8').includes(text);
    if (!holds) problems.push(`scripts/dependency-check.mjs: USED_WITHOUT_IMPORT says ${file} names ${name}, and it no longer does`);
  }
  for (const name of development) {
    if (!name.startsWith('@types/')) continue;
    const typed = name.slice('@types/'.length).replace(/^(.+)__(.+)$/, '@$1/$2');
    if (typed === 'node' || usedBy.has(typed)) usedBy.set(name, 'development');
  }

  for (const name of production) {
    if (!usedBy.has(name)) problems.push(`package.json: dependency ${name} is used nowhere: remove it`);
    else if (usedBy.get(name) !== 'production' && !(pkg.optionalDependencies ?? {})[name]) {
      problems.push(`package.json: dependency ${name} is used only by tests and tools: move it to devDependencies`);
    }
  }
  for (const name of development) {
    if (!usedBy.has(name)) problems.push(`package.json: devDependency ${name} is used nowhere: remove it`);
  }

  // Install scripts: each one reviewed, none left to npm's default.
  const allow = pkg.allowScripts ?? {};
  const entryName = (key) => key.replace(/^(@?[^@]+)@.*$/, '$1');
  const withScripts = installScripts(root);
  for (const { name, version } of withScripts) {
    if (!Object.keys(allow).some((k) => entryName(k) === name)) {
      problems.push(`package.json: ${name}@${version} has an install script that allowScripts neither allows nor denies (npm install-scripts approve|deny ${name})`);
    }
  }
  for (const key of Object.keys(allow)) {
    if (!withScripts.some((p) => p.name === entryName(key))) {
      problems.push(`package.json: allowScripts lists ${key}, which no installed package with an install script matches: remove it`);
    }
  }
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = new URL('..', import.meta.url).pathname;
  const problems = checkDependencies(root);
  if (problems.length) {
    console.error(problems.join('\n'));
    process.exit(1);
  }
  console.log('dependencies: ok (declared = imported, every install script reviewed)');
}
