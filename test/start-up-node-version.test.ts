import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unsupportedNode } from '../src/start-up-checks.js';

test('the Node lines the service runs on, and one line naming why for the others', () => {
  for (const v of ['20.19.0', '20.20.2', '22.12.0', '22.23.3']) assert.equal(unsupportedNode(v), undefined, v);
  assert.equal(unsupportedNode(process.versions.node), undefined, 'the Node running this suite');
  const on24 = unsupportedNode('24.21.0');
  assert.match(on24 ?? '', /^Node 24\.21\.0 is not supported: use Node 22 LTS/);
  assert.match(on24 ?? '', /better-sqlite3 12, aborts the process/);
  assert.match(unsupportedNode('26.1.0') ?? '', /not supported/);
  assert.equal(unsupportedNode('18.20.4'), 'Node 18.20.4 is not supported: use Node 22 LTS (or 20.19+)');
});
