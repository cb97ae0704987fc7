// Architectural lint: the rules DESIGN.md states, checked on every run.
// Import boundaries are checked by dependency-cruiser with .dependency-cruiser.cjs
// (layers, no cycles, capabilities import only the catalog, errors and their own
// folder and no I/O module, payments/ and capabilities/ never import Hono).
// What an import graph cannot see is checked here as text:
// - capabilities never read the clock or randomness, nor fetch, in handlers;
// - configuration is read once: process.env only in src/config.ts and src/main.ts;
// - no console.log in src (logs are structured, through pino).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { cruise, format } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import { folderCycles } from './folder-cycles.mjs';

const CONFIG = './.dependency-cruiser.cjs';
process.chdir(new URL('..', import.meta.url).pathname);
const problems = [];

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}
for (const file of walk('src')) {
  const text = readFileSync(file, 'utf8');
  const isTest = file.endsWith('.test.ts');
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const at = `${file}:${i + 1}`;
    if (/^\s*(\/\/|\*)/.test(line)) return;
    if (file.startsWith('src/capabilities/') && !isTest && /\bfetch\(|Date\.now\(|new Date\(\)|Math\.random\(|performance\.now\(/.test(line)) problems.push(`${at}: clock, randomness or network in a capability`);
    if (!isTest && /process\.env/.test(line) && !['src/config.ts', 'src/main.ts'].includes(file)) problems.push(`${at}: process.env outside config.ts`);
    if (!isTest && /console\.log\(/.test(line)) problems.push(`${at}: console.log in src (use the logger)`);
  });
}

const result = await cruise(['src'], await extractDepcruiseOptions(CONFIG));
const graph = result.output;
if (graph.summary.error > 0 || graph.summary.warn > 0) {
  problems.push((await format(graph, { outputType: 'err' })).output.trim());
}
const exceptions = createRequire(import.meta.url)('../.dependency-cruiser.cjs').exceptions;
for (const cycle of folderCycles(graph.modules, exceptions)) problems.push(`folder cycle: ${cycle} (a folder imports one that imports it back)`);
// An exception that excuses nothing any more must go, or it would excuse the next such import silently.
for (const e of exceptions) {
  const used = graph.modules.some((m) => new RegExp(e.from).test(m.source) && m.dependencies.some((d) => new RegExp(e.to).test(d.resolved)));
  if (!used) problems.push(`.dependency-cruiser.cjs: the exception to ${e.rule} for ${e.from} → ${e.to} matches no import any more; remove it`);
}

if (problems.length) {
  console.error(problems.join('\n'));
  console.error(`lint: ${problems.length} problem(s)`);
  process.exit(1);
}
console.log(`lint: ok (${graph.summary.totalCruised} modules, ${graph.summary.totalDependenciesCruised} imports checked)`);
