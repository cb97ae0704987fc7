// After `tsc -p tsconfig.build.json`: copies the files the compiled service
// reads at run time (SQL migrations, the intel starter content, the devnet's
// contract artifacts — every non-TypeScript file under src/ and devnet/)
// next to the compiled JavaScript in dist/.
import { cpSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist');
let copied = 0;

function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (!/\.(ts|md|mjs|sol)$/.test(name)) {
      cpSync(path, join(out, relative(root, path)));
      copied++;
    }
  }
}
for (const top of ['src', 'devnet']) walk(join(root, top));
console.log(`copied ${copied} run-time files into dist/`);
