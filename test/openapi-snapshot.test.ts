/**
 * The generated OpenAPI document is the public contract: any change to it
 * must be deliberate. Regenerate with UPDATE_SNAPSHOTS=1 after an intended
 * change and review the diff; without it a missing or different snapshot fails.
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
  const rig = await startRig({ env: { PUBLIC_BASE_URL: 'https://api.example.test', OPERATOR_CONTACT: 'mailto:operator@api.example.test' } });
  try {
    const doc = await (await fetch(rig.service.url + '/openapi.json')).json();
    const text = JSON.stringify(doc, null, 2) + '\n';
    if (process.env.UPDATE_SNAPSHOTS === '1') {
      // A run that rewrites the contract it checks proves nothing: CI never regenerates.
      if (process.env.CI === 'true') assert.fail('UPDATE_SNAPSHOTS=1 is refused in CI; regenerate locally, review the diff and commit it');
      writeFileSync(FILE, text);
      return;
    }
    // A missing snapshot is a failure everywhere, never a silent first write.
    assert.ok(existsSync(FILE), `${FILE} is missing: generate it deliberately with UPDATE_SNAPSHOTS=1 npm test -- openapi-snapshot, review it and commit it`);
    assert.equal(text, readFileSync(FILE, 'utf8'), 'the OpenAPI document changed: if intended, run UPDATE_SNAPSHOTS=1 npm test -- openapi-snapshot and commit test/snapshots/openapi.json');
  } finally {
    await rig.close();
  }
});
