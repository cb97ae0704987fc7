/**
 * Readiness during a facilitator outage. The outage is shared by every
 * instance, so readiness must not take them all out of rotation: a load
 * balancer that did would turn "paid calls wait for the facilitator" into
 * "the whole service is down", discovery probes and free routes included,
 * while each instance can still build its 402 from the last good /supported
 * answer. Only an instance that never had an answer is not ready.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startRig, type Rig } from './support/harness.js';

let rig: Rig;
before(async () => {
  rig = await startRig();
});
after(async () => {
  await rig?.close();
});

const CONTRAST = '/x402/v1/accessibility-contrast-calculator';
const body = JSON.stringify({ foreground: '#000000', background: '#ffffff', large_text: false });

test('no facilitator answering: /readyz stays 200 "degraded" while unpaid requests still get the 402; paid calls fail closed', async () => {
  const before = await fetch(rig.service.url + '/readyz');
  assert.equal(before.status, 200);
  assert.equal((await before.json()).status, 'ready');

  rig.proxy.setMode('down');
  // Past the readiness cache of one facilitator answer.
  await new Promise((r) => setTimeout(r, 5_200));
  const during = await fetch(rig.service.url + '/readyz');
  const report = await during.json();
  assert.equal(during.status, 200, JSON.stringify(report));
  assert.deepEqual(report, { status: 'degraded', checks: { ledger: 'ok', facilitator: 'unreachable' } });

  const unpaid = await fetch(rig.service.url + CONTRAST, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  assert.equal(unpaid.status, 402);
  assert.ok(unpaid.headers.get('payment-required'));
  await unpaid.arrayBuffer();

  rig.proxy.setMode('pass');
  await new Promise((r) => setTimeout(r, 5_200));
  const back = await fetch(rig.service.url + '/readyz');
  assert.equal(back.status, 200);
  assert.equal((await back.json()).status, 'ready');
});
