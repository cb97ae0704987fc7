/**
 * Every Bazaar level of every catalog entry is a valid discovery extension by
 * the SDK's own validator (its `info` against its `schema`, including the
 * HTTP method the schema requires and `$ref`s that resolve), and the levels
 * that carry an output shape put it where discovery clients read it. The
 * service metadata (on the 402's `resource`) is what Bazaar keeps, and is
 * traded down where the rungs say.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isValidServiceName, sanitizeResourceServiceMetadata, validateDiscoveryExtension } from '@x402/extensions/bazaar';
import { CATALOG } from '../capabilities/index.js';
import { bazaarExtension, offerOf, tagsOf, type BazaarLevel } from './bazaar.js';
import { ICON_PATH, SERVICE_NAME } from './identity.js';

const LEVELS: BazaarLevel[] = ['full', 'compact', 'outline', 'example-outline', 'example-object', 'example-only', 'example-bare', 'minimal'];
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

test("the service's name is one Bazaar keeps (printable ASCII, at most 32 characters)", () => {
  assert.ok(isValidServiceName(SERVICE_NAME), SERVICE_NAME);
});

test('every entry is tagged with the names its routing knowledge gives its outcome, all of them kept by the SDK\'s sanitizer; an entry without any, with its id', () => {
  for (const cap of CATALOG) {
    const expected = cap.routing?.names?.length ? cap.routing.names : [cap.id];
    assert.ok(expected.length <= 5, `${cap.id}: Bazaar keeps five tags`);
    assert.deepEqual(tagsOf(cap), expected, cap.id);
  }
  assert.deepEqual(tagsOf({ ...CATALOG[0]!, routing: undefined }), [CATALOG[0]!.id]);
});

test('the service metadata at a public origin: name, tags and the icon at that origin, every field kept by the SDK; at a loopback or IP origin, no icon (Bazaar would drop it)', () => {
  for (const cap of CATALOG) {
    const offer = offerOf(cap);
    const atPublic = offer.serviceMetadata('https://api.example.test');
    assert.deepEqual(atPublic, { serviceName: SERVICE_NAME, tags: tagsOf(cap), iconUrl: `https://api.example.test${ICON_PATH}` }, cap.id);
    assert.deepEqual(sanitizeResourceServiceMetadata({ url: `https://api.example.test${cap.path}`, ...atPublic }), atPublic, `${cap.id}: nothing dropped`);
    for (const origin of ['http://127.0.0.1:8402', 'http://localhost:8402', 'http://[::1]:8402']) {
      assert.deepEqual(offer.serviceMetadata(origin), { serviceName: SERVICE_NAME, tags: tagsOf(cap) }, `${cap.id} at ${origin}`);
    }
  }
});

test('the rungs: Bazaar\'s levels with all the metadata down to the floor (example-bare), then the metadata (icon, tags, name) at the floor, then below it without', () => {
  const all = ['serviceName', 'tags', 'iconUrl'];
  for (const cap of CATALOG) {
    const rungs = offerOf(cap).rungs;
    const floor = bazaarExtension(cap, 'example-bare');
    assert.deepEqual(rungs[0], { extensions: bazaarExtension(cap, 'full'), keeps: all }, cap.id);
    const firstTrimmed = rungs.findIndex((r) => r.keeps.length < all.length);
    assert.deepEqual(rungs[firstTrimmed - 1]!.extensions, floor, `${cap.id}: all the metadata as far as the floor`);
    assert.deepEqual(
      rungs.slice(firstTrimmed - 1, firstTrimmed + 3).map((r) => ({ extensions: r.extensions, keeps: [...r.keeps] })),
      [all, ['serviceName', 'tags'], ['serviceName'], []].map((keeps) => ({ extensions: floor, keeps })),
      `${cap.id}: then the metadata goes at the floor`,
    );
    assert.deepEqual(rungs.slice(firstTrimmed + 3).map((r) => r.keeps.length), [0], `${cap.id}: below the floor, none`);
    assert.deepEqual(rungs.at(-1)!.extensions, bazaarExtension(cap, 'minimal'), cap.id);
  }
});
