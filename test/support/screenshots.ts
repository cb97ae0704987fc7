/**
 * Where the page tests write their screenshots: a fresh temporary folder, or,
 * with UPDATE_SCREENSHOTS=1 (like UPDATE_SNAPSHOTS), the repository's
 * docs/screenshots/, so the committed pictures are what the tests saw and a
 * plain test run never changes tracked files.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const COMMITTED_SCREENSHOTS = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));

export function screenshotDir(prefix: string): string {
  return process.env.UPDATE_SCREENSHOTS === '1' ? COMMITTED_SCREENSHOTS : mkdtempSync(join(tmpdir(), `${prefix}-`));
}
