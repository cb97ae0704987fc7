/**
 * Every Bazaar level of every catalog entry is a valid discovery extension by
 * the SDK's own validator (its `info` against its `schema`, including the
 * HTTP method the schema requires and `$ref`s that resolve), and the levels
 * that carry an output shape put it where discovery clients read it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateDiscoveryExtension } from '@x402/extensions/bazaar';
import { CATALOG } from '../capabilities/index.js';
import { bazaarExtension, type BazaarLevel } from './bazaar.js';

const LEVELS: BazaarLevel[] = ['full', 'compact', 'outline', 'example-outline', 'example-object', 'example-only', 'minimal'];
type Ext = { bazaar: Parameters<typeof validateDiscoveryExtension>[0] & { info: { input: { method?: string }; output?: unknown }; schema: { properties: { output?: { properties: { example: unknown } } } } } };

test('every level of every entry validates against its own schema and declares the method', () => {
  for (const cap of CATALOG) {
    for (const level of LEVELS) {
      const ext = bazaarExtension(cap, level) as unknown as Ext;
      assert.deepEqual(validateDiscoveryExtension(ext.bazaar), { valid: true }, `${cap.id} ${level}`);
      assert.equal(ext.bazaar.info.input.method, cap.method, `${cap.id} ${level}`);
    }
  }
});

test('full, compact and outline carry an output schema at schema.properties.output.properties.example', () => {
  for (const cap of CATALOG) {
    for (const level of ['full', 'compact', 'outline'] as const) {
      const ext = bazaarExtension(cap, level) as unknown as Ext;
      const example = ext.bazaar.schema.properties.output?.properties.example as { type?: string; properties?: Record<string, unknown> } | undefined;
      assert.equal(example?.type, 'object', `${cap.id} ${level}`);
      assert.ok(Object.keys(example?.properties ?? {}).length > 0, `${cap.id} ${level}`);
      assert.ok(ext.bazaar.info.output, `${cap.id} ${level}: info.output`);
    }
  }
});
