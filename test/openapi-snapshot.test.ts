/**
 * The generated OpenAPI document is the public contract: any change to it
 * must be deliberate. Regenerate with UPDATE_SNAPSHOTS=1 after an intended
 * change and review the diff.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRig } from './support/harness.js';

const FILE = join(dirname(fileURLToPath(import.meta.url)), 'snapshots', 'openapi.json');

test('the OpenAPI document matches the reviewed snapshot', async () => {
  // Fixed base URL; the devnet deploys the token at the same address and pays the same anvil account every time.
  const rig = await startRig({ env: { PUBLIC_BASE_URL: 'https://api.example.test' } });
  try {
    const doc = await (await fetch(rig.service.url + '/openapi.json')).json();
    const text = JSON.stringify(doc, null, 2) + '\n';
    if (process.env.UPDATE_SNAPSHOTS === '1' || !existsSync(FILE)) {
      if (process.env.CI === 'true') assert.fail('the OpenAPI snapshot is missing; generate it with UPDATE_SNAPSHOTS=1 and commit it');
      writeFileSync(FILE, text);
      return;
    }
    assert.equal(text, readFileSync(FILE, 'utf8'), 'the OpenAPI document changed: if intended, run UPDATE_SNAPSHOTS=1 npm test -- openapi-snapshot and commit test/snapshots/openapi.json');
  } finally {
    await rig.close();
  }
});
