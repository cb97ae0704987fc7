/**
 * Where the page tests write their screenshots: a fresh temporary folder, or
 * SCREENSHOTS_DIR when set. The pictures in docs/screenshots/ are made by
 * `SCREENSHOTS_DIR=docs/screenshots npm test -- test/pages test/front-door …`,
 * so what the README shows is what the tests saw.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export function screenshotDir(prefix: string): string {
  const chosen = process.env.SCREENSHOTS_DIR;
  if (!chosen) return mkdtempSync(join(tmpdir(), `${prefix}-`));
  const dir = resolve(chosen);
  mkdirSync(dir, { recursive: true });
  return dir;
}
