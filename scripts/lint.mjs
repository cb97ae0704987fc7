// Architectural lint: the rules DESIGN.md states, checked on every run.
// - payments/ and capabilities/ never import Hono (decisions stay framework-free);
// - capabilities never do I/O (no fs, net, http, child_process, fetch, clock or randomness in handlers);
// - configuration is read once: process.env only in src/config.ts and src/main.ts;
// - no console.log in src (logs are structured, through pino).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

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
    if ((file.startsWith('src/payments/') || file.startsWith('src/capabilities/')) && /from ['"](hono|@hono\/)/.test(line)) problems.push(`${at}: Hono import in framework-free code`);
    if (file.startsWith('src/capabilities/') && !isTest) {
      if (/from ['"](node:)?(fs|net|http|https|child_process|dns|tls)(\/promises)?['"]/.test(line)) problems.push(`${at}: I/O module imported by a capability`);
      if (/\bfetch\(|Date\.now\(|new Date\(\)|Math\.random\(|performance\.now\(/.test(line)) problems.push(`${at}: clock, randomness or network in a capability`);
    }
    if (!isTest && /process\.env/.test(line) && !['src/config.ts', 'src/main.ts'].includes(file)) problems.push(`${at}: process.env outside config.ts`);
    if (!isTest && /console\.log\(/.test(line)) problems.push(`${at}: console.log in src (use the logger)`);
  });
}
if (problems.length) {
  console.error(problems.join('\n'));
  console.error(`lint: ${problems.length} problem(s)`);
  process.exit(1);
}
console.log('lint: ok');
