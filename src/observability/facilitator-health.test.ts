import { test } from 'node:test';
import assert from 'node:assert/strict';
import { facilitatorHealth } from './facilitator-health.js';
import { metrics } from './metrics.js';

test('facilitator health is read from the recorded metrics: calls and outcomes per operation, errors, mean, bucket bounds of the median and 90th percentile, up', async () => {
  const f = 'http://health-test.invalid/facilitator';
  const g = 'http://health-test.invalid/idle';
  for (const s of [0.004, 0.004, 0.02]) metrics.facilitatorDuration.observe({ facilitator: f, operation: 'verify', outcome: 'valid' }, s);
  metrics.facilitatorDuration.observe({ facilitator: f, operation: 'verify', outcome: 'invalid' }, 0.004);
  metrics.facilitatorDuration.observe({ facilitator: f, operation: 'settle', outcome: 'success' }, 0.8);
  metrics.facilitatorDuration.observe({ facilitator: f, operation: 'settle', outcome: 'error' }, 40);
  metrics.facilitatorUp.set({ facilitator: f }, 1);
  metrics.facilitatorUp.set({ facilitator: g }, 0);

  const all = await facilitatorHealth();
  const mine = all.find((h) => h.facilitator === f)!;
  assert.equal(mine.up, true);
  assert.deepEqual(mine.verify.outcomes, { valid: 3, invalid: 1 });
  assert.equal(mine.verify.calls, 4);
  assert.equal(mine.verify.errors, 0);
  assert.ok(Math.abs(mine.verify.meanSeconds! - 0.008) < 1e-9);
  assert.equal(mine.verify.p50AtMostSeconds, 0.005, 'three of four took at most 5 ms');
  assert.equal(mine.verify.p90AtMostSeconds, 0.025);
  assert.deepEqual(mine.settle.outcomes, { success: 1, error: 1 });
  assert.equal(mine.settle.errors, 1);
  assert.equal(mine.settle.p50AtMostSeconds, 1);
  assert.equal(mine.settle.p90AtMostSeconds, null, 'past the largest bucket');
  const idle = all.find((h) => h.facilitator === g)!;
  assert.equal(idle.up, false, 'a facilitator that is down and never called is listed');
  assert.equal(idle.verify.calls, 0);
  assert.equal(idle.verify.meanSeconds, null);
});
