/**
 * Attack (issue 21, items 1 and 6): a client whose tasks waiting for payment
 * already fill its budget in the A2A task store keeps sending 2 MiB paid
 * calls. Each was refused (-32029) only when the SDK saved the task: by then
 * the skill had run on the message (its 2 MiB of arguments measured, copied
 * and validated on the event loop, the task and its requirement built), and
 * the SDK logged every refusal with console.error. Such a message is now
 * refused with the same JSON-RPC error before the skill runs; other clients
 * and the client's own payments are unaffected.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ServiceAgentExecutor } from '../src/a2a/executor.js';
import { startRig, type Rig } from './support/harness.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const X402_URI = 'https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2';
const EXTRACTOR = 'catalog-offer-evidence-extractor';
const HTML = `<html><body>${'p'.repeat(2 * 1024 * 1024 - 100)}</body></html>`;

describe('A2A: a client over its task budget is refused before its skill runs', () => {
  let rig: Rig;
  let runs = 0;
  const errors: unknown[][] = [];
  const execute = ServiceAgentExecutor.prototype.execute;
  const consoleError = console.error;
  before(async () => {
    rig = await startRig({ env: { TRUST_PROXY: '1', RATE_LIMIT_PER_MINUTE: '0' } });
    ServiceAgentExecutor.prototype.execute = function (...args) {
      runs++;
      return execute.apply(this, args);
    };
    console.error = (...args: unknown[]) => void errors.push(args);
  });
  after(async () => {
    ServiceAgentExecutor.prototype.execute = execute;
    console.error = consoleError;
    await rig?.close();
  });

  let n = 0;
  /** One message from `client` naming `skill`, its arguments in a data part (A2A v1.0, or v0.3 with `legacy`). */
  const send = async (client: string, skill: string, args: Json, legacy = false) => {
    n++;
    const message = legacy
      ? { kind: 'message', messageId: `m${n}`, role: 'user', parts: [{ kind: 'data', data: args }], metadata: { skill } }
      : { messageId: `m${n}`, role: 'ROLE_USER', parts: [{ data: args }], metadata: { skill } };
    const res = await fetch(rig.service.url + '/a2a', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Forwarded-For': client, ...(legacy ? { 'X-A2A-Extensions': X402_URI } : { 'A2A-Version': '1.0', 'A2A-Extensions': X402_URI }) },
      body: JSON.stringify({ jsonrpc: '2.0', id: n, method: legacy ? 'message/send' : 'SendMessage', params: { message } }),
    });
    return (await res.json()) as Json;
  };

  test('its new paid tasks that cannot fit get -32029 rate_limited without the skill running; what fits, free skills and other clients still run', { timeout: 120_000 }, async () => {
    const flooder = '203.0.113.90';
    let opened = 0;
    let first: Json;
    for (let i = 0; i < 10 && !first; i++) {
      const r = await send(flooder, EXTRACTOR, { html: HTML });
      if (r.error) first = r;
      else {
        assert.equal(r.result?.task?.status?.state, 'TASK_STATE_INPUT_REQUIRED', JSON.stringify(r).slice(0, 300));
        opened++;
      }
    }
    assert.ok(opened >= 1 && first, `the client fills its budget with ${opened} waiting tasks`);
    assert.equal(first.error.code, -32029);
    assert.match(first.error.message, /^rate_limited/);

    // From now on a large task is refused before the skill runs, on v1.0 and v0.3.
    const [runsBefore, errorsBefore] = [runs, errors.length];
    for (const [what, skill, args, legacy] of [
      ['valid 2 MiB call', EXTRACTOR, { html: HTML }, false],
      ['valid 2 MiB call, A2A v0.3', EXTRACTOR, { html: HTML }, true],
    ] as const) {
      const r = await send(flooder, skill, args, legacy);
      assert.equal(r.error?.code, -32029, `${what}: ${JSON.stringify(r).slice(0, 300)}`);
      assert.match(r.error.message, /rate_limited/, what);
      assert.equal(r.id, n, `${what}: the answer names the request`);
    }
    assert.equal(runs - runsBefore, 0, 'no skill ran for a message the store could not hold');
    assert.equal(errors.length - errorsBefore, 0, 'nothing was refused (and logged) by the SDK after the fact');

    // A task that still fits its budget (a small one) is taken, and a free skill opens no waiting task: both run.
    const small = await send(flooder, 'accessibility-contrast-calculator', { foreground: '#000000', background: '#ffffff', large_text: false });
    assert.equal(small.result?.task?.status?.state, 'TASK_STATE_INPUT_REQUIRED', JSON.stringify(small).slice(0, 300));
    const free = await send(flooder, 'router-contract', {});
    assert.equal(free.error, undefined, JSON.stringify(free).slice(0, 300));
    assert.equal(runs - runsBefore, 2);

    // Another client is not affected.
    const other = await send('198.51.100.90', EXTRACTOR, { html: HTML });
    assert.equal(other.result?.task?.status?.state, 'TASK_STATE_INPUT_REQUIRED', JSON.stringify(other).slice(0, 300));
  });
});
