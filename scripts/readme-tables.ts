/**
 * The README's configuration table and error-code table, generated from the
 * code that defines them (src/config-variables.ts, src/errors.ts), so they
 * cannot drift: `npm run readme:tables` rewrites them in place, and
 * test/readme.test.ts fails when the README's copy differs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CONFIG_VARIABLES } from '../src/config-variables.js';
import { ERROR_CODES, ERROR_MEANINGS, type ErrorCode } from '../src/errors.js';

export const README = fileURLToPath(new URL('../README.md', import.meta.url));

const cell = (text: string) => text.replace(/\|/g, '\\|');

export function configTable(): string {
  const rows = CONFIG_VARIABLES.map((v) => `| ${v.names.map((n) => `\`${n}\``).join(', ')} | ${cell(v.default)} | ${cell(v.meaning)} |`);
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

export function errorTable(): string {
  // By status, then in the order errors.ts lists them (related codes stay together).
  const codes = (Object.keys(ERROR_CODES) as ErrorCode[]).map((code, i) => ({ code, i })).sort((a, b) => ERROR_CODES[a.code] - ERROR_CODES[b.code] || a.i - b.i);
  const rows = codes.map(({ code }) => `| \`${code}\` | ${ERROR_CODES[code]} | ${cell(ERROR_MEANINGS[code])} |`);
  return ['| Code | HTTP status | Meaning |', '|---|---|---|', ...rows].join('\n');
}

/** The generated sections by marker name. */
export const SECTIONS: Record<string, () => string> = { 'config-table': configTable, 'error-table': errorTable };

const begin = (name: string) => `<!-- generated: ${name} (npm run readme:tables, from the code; do not edit here) -->`;
const end = (name: string) => `<!-- end: ${name} -->`;

/** `text` with every generated section replaced by its current rendering; throws when a marker is missing. */
export function withTables(text: string): string {
  let out = text;
  for (const [name, render] of Object.entries(SECTIONS)) {
    const a = out.indexOf(begin(name));
    const b = out.indexOf(end(name));
    if (a < 0 || b < a) throw new Error(`README.md has no "${begin(name)}" … "${end(name)}" section`);
    out = `${out.slice(0, a)}${begin(name)}\n\n${render()}\n\n${out.slice(b)}`;
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = readFileSync(README, 'utf8');
  const next = withTables(text);
  if (next !== text) writeFileSync(README, next);
  process.stdout.write(next === text ? 'README tables are up to date\n' : 'README tables rewritten\n');
}
