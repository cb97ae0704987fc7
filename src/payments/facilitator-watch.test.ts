/**
 * The facilitators from start-up on (facilitator-watch.ts), with a scripted
 * pool and rail: the preflight's three verdicts, the saved /supported answer
 * (missing, unreadable, for another network, unchanged, unwritable) and the
 * background probe. The devnet versions are in test/facilitator-startup.test.ts.
 */
import { describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SupportedResponse } from '@x402/core/types';
import { ConfigError } from '../config.js';
import type { FacilitatorPool, ProbeVerdict } from './facilitators.js';
import { LastGoodSupported, PROBE_RETRY_MS, startFacilitators, SUPPORTED_REFRESH_MS } from './facilitator-watch.js';

const NETWORK = 'eip155:31337';
const SUPPORTED: SupportedResponse = { kinds: [{ x402Version: 2, scheme: 'exact', network: NETWORK }], extensions: [], signers: {} };
const OTHER: SupportedResponse = { kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:1' }], extensions: [], signers: {} };

function recordingLog() {
  const lines: Array<{ level: string; msg: string; obj: object }> = [];
  const at = (level: string) => (obj: object, msg: string) => void lines.push({ level, msg, obj });
  return { log: { info: at('info'), warn: at('warn'), error: at('error') }, lines };
}

function dir(): string {
  return mkdtempSync(join(tmpdir(), 'fac-watch-'));
}

/** A pool whose preflight answers as scripted, call after call (the last repeats); its getSupported fails while `down()`. */
function scriptedPool(rounds: ProbeVerdict[][], unchecked = () => false, down: () => boolean = () => false) {
  const calls: boolean[] = [];
  const asked = { supported: 0 };
  const pool = {
    names: ['http://a/x402', 'http://b/x402'],
    get hasUnchecked() {
      return unchecked();
    },
    async preflight(onlyUnchecked = false) {
      calls.push(onlyUnchecked);
      return rounds[Math.min(calls.length - 1, rounds.length - 1)]!;
    },
    async getSupported() {
      asked.supported++;
      if (down()) throw new Error('no facilitator answered /supported with exact on eip155:31337 (http://a/x402: fetch failed)');
      return SUPPORTED;
    },
  } as unknown as FacilitatorPool;
  return { pool, calls, asked };
}

/** A rail recording the answers it was initialized with. */
function scriptedRail() {
  const inits: Array<SupportedResponse | undefined> = [];
  let ready = false;
  return {
    inits,
    rail: {
      get ready() {
        return ready;
      },
      async initialize(known?: SupportedResponse) {
        inits.push(known);
        ready = true;
      },
    },
  };
}

/** Lets the interval fire once and the probe it starts finish. */
async function probe(): Promise<void> {
  mock.timers.tick(PROBE_RETRY_MS);
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

describe('the saved /supported answer', () => {
  test('none yet, unreadable, or for another network: nothing to build a 402 from', () => {
    const d = dir();
    const { log, lines } = recordingLog();
    const store = new LastGoodSupported(join(d, 'facilitator-supported.json'), NETWORK, log);
    assert.equal(store.load(), undefined);
    assert.equal(lines.length, 0, 'a missing file is the normal first start, not worth a warning');

    writeFileSync(store.file, '{ not json');
    assert.equal(store.load(), undefined);
    assert.match(lines[0]!.msg, /unreadable/);

    writeFileSync(store.file, JSON.stringify({ answer: OTHER, facilitator: 'http://a/x402', savedAt: 'then' }));
    assert.equal(store.load(), undefined, 'an answer for another network is useless after a network change');
  });

  test('saved once per change, read back whole; fields a facilitator left out get their defaults', () => {
    const d = dir();
    const store = new LastGoodSupported(join(d, 'sub', 'facilitator-supported.json'), NETWORK);
    store.save(SUPPORTED, 'http://a/x402');
    const first = store.load()!;
    assert.deepEqual(first.answer, SUPPORTED);
    assert.equal(first.facilitator, 'http://a/x402');
    // The same answer again is not rewritten: the file keeps its first savedAt.
    store.save(SUPPORTED, 'http://a/x402');
    assert.equal(store.load()!.savedAt, first.savedAt);

    writeFileSync(store.file, JSON.stringify({ answer: { kinds: SUPPORTED.kinds }, facilitator: 'http://b/x402', savedAt: 'then' }));
    assert.deepEqual(store.load()!.answer, { kinds: SUPPORTED.kinds, extensions: [], signers: {} });
  });

  test('a directory that cannot be written: a warning, and the service goes on', () => {
    const d = dir();
    const blocker = join(d, 'a-file');
    writeFileSync(blocker, 'x');
    const { log, lines } = recordingLog();
    const store = new LastGoodSupported(join(blocker, 'facilitator-supported.json'), NETWORK, log);
    store.save(SUPPORTED, 'http://a/x402');
    assert.match(lines[0]!.msg, /could not save/);
    assert.equal(store.load(), undefined);
  });
});

describe('start-up and the background probe', () => {
  test('a facilitator answering without our payment kind stops start-up, naming it and what it lists', async () => {
    const { pool } = scriptedPool([
      [
        { facilitator: 'http://a/x402', verdict: 'ok', answer: SUPPORTED },
        { facilitator: 'http://b/x402', verdict: 'unsupported', answer: OTHER },
      ],
    ]);
    const { rail, inits } = scriptedRail();
    await assert.rejects(
      startFacilitators({ pool, rail, network: NETWORK, lastGood: new LastGoodSupported(join(dir(), 'f.json'), NETWORK), log: recordingLog().log }),
      (e: unknown) => e instanceof ConfigError && /facilitator http:\/\/b\/x402 does not support/.test(e.message) && /eip155:1/.test(e.message),
    );
    assert.equal(inits.length, 0, 'nothing initialized from a configuration that cannot start');
  });

  test('one passes, one unreachable: the rail takes the live answer, the other is named in a warning and probed until it answers', async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      let answered = false;
      const { pool, calls } = scriptedPool(
        [
          [
            { facilitator: 'http://a/x402', verdict: 'ok', answer: SUPPORTED },
            { facilitator: 'http://b/x402', verdict: 'unreachable', error: 'connect ECONNREFUSED' },
          ],
          [{ facilitator: 'http://b/x402', verdict: 'ok', answer: SUPPORTED }],
        ],
        () => !answered,
      );
      const { rail, inits } = scriptedRail();
      const { log, lines } = recordingLog();
      const stop = await startFacilitators({ pool, rail, network: NETWORK, lastGood: new LastGoodSupported(join(dir(), 'f.json'), NETWORK), log });
      assert.deepEqual(inits, [SUPPORTED]);
      assert.ok(lines.some((l) => l.level === 'warn' && /left out of rotation/.test(l.msg)));

      mock.timers.tick(PROBE_RETRY_MS);
      await new Promise((r) => setImmediate(r));
      answered = true;
      assert.deepEqual(calls, [false, true], 'only the unchecked facilitator is asked again');
      assert.ok(lines.some((l) => /in rotation/.test(l.msg) && l.level === 'info'));
      stop();
    } finally {
      mock.timers.reset();
    }
  });

  test('none reachable, an answer saved: 402s from it at once; the probe opens paid routes when one answers, logging the outage once', async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      const lastGood = new LastGoodSupported(join(dir(), 'f.json'), NETWORK);
      lastGood.save(SUPPORTED, 'http://a/x402');
      let down = true;
      const { pool, asked } = scriptedPool([[{ facilitator: 'http://a/x402', verdict: 'unreachable', error: 'timeout' }]], () => false, () => down);
      const { rail, inits } = scriptedRail();
      const { log, lines } = recordingLog();
      const stop = await startFacilitators({ pool, rail, network: NETWORK, lastGood, log, now: () => 0 });
      assert.deepEqual(inits, [SUPPORTED], 'initialized from the saved answer');
      assert.deepEqual(lines.map((l) => l.level), ['warn']);
      assert.match(lines[0]!.msg, /last good/);

      // Still down: asked again at every probe, and nothing more logged.
      for (let i = 0; i < 3; i++) await probe();
      assert.equal(asked.supported, 3);
      assert.equal(inits.length, 1);
      assert.equal(lines.length, 1, JSON.stringify(lines));

      down = false;
      await probe();
      assert.equal(inits.length, 2);
      assert.deepEqual(lines.slice(1).map((l) => [l.level, l.msg]), [['info', 'a facilitator answered /supported: paid routes open']]);
      stop();
    } finally {
      mock.timers.reset();
    }
  });

  test('none reachable and nothing saved: paid routes wait, the outage logged once, until one answers; then refreshed only every few minutes', async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      let down = true;
      let clock = 0;
      const { pool, asked } = scriptedPool([[{ facilitator: 'http://a/x402', verdict: 'unreachable', error: 'timeout' }]], () => false, () => down);
      const { rail, inits } = scriptedRail();
      const { log, lines } = recordingLog();
      const stop = await startFacilitators({ pool, rail, network: NETWORK, lastGood: new LastGoodSupported(join(dir(), 'f.json'), NETWORK), log, now: () => clock });
      assert.equal(inits.length, 0);
      assert.equal(lines.length, 1);
      assert.match(lines[0]!.msg, /no saved \/supported answer/);

      for (let i = 0; i < 3; i++) await probe();
      assert.equal(asked.supported, 3);
      assert.equal(lines.length, 1, `no line per failed probe: ${JSON.stringify(lines)}`);

      down = false;
      clock = 1;
      await probe();
      assert.deepEqual(inits, [SUPPORTED]);
      assert.deepEqual(lines.slice(1).map((l) => l.msg), ['a facilitator answered /supported: paid routes open']);

      // Live now: the next probes inside SUPPORTED_REFRESH_MS do not ask again.
      await probe();
      assert.equal(asked.supported, 4);
      clock = 1 + SUPPORTED_REFRESH_MS;
      await probe();
      assert.equal(asked.supported, 5);
      assert.equal(inits.length, 2);
      assert.equal(lines.length, 2, 'a refresh that answers logs nothing');
      stop();
    } finally {
      mock.timers.reset();
    }
  });

  test('a refresh that goes unanswered: one warning when the outage begins, one line when it ends, nothing between', async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      let down = false;
      let clock = 1;
      const { pool, asked } = scriptedPool([[{ facilitator: 'http://a/x402', verdict: 'ok', answer: SUPPORTED }]], () => false, () => down);
      const { rail, inits } = scriptedRail();
      const { log, lines } = recordingLog();
      const stop = await startFacilitators({ pool, rail, network: NETWORK, lastGood: new LastGoodSupported(join(dir(), 'f.json'), NETWORK), log, now: () => clock });
      assert.deepEqual(inits, [SUPPORTED]);
      assert.equal(lines.length, 0);

      down = true;
      clock = 1 + SUPPORTED_REFRESH_MS;
      for (let i = 0; i < 4; i++) await probe();
      assert.equal(asked.supported, 4, 'asked again at every probe while the refresh is due');
      assert.deepEqual(lines.map((l) => l.level), ['warn']);
      assert.match(lines[0]!.msg, /^no facilitator answers \/supported: 402s keep the last answer/);
      assert.match(String((lines[0]!.obj as { err: string }).err), /fetch failed/);
      assert.equal(inits.length, 1, 'the rail keeps its answer');

      down = false;
      await probe();
      assert.deepEqual(lines.slice(1).map((l) => [l.level, l.msg]), [['info', 'a facilitator answers /supported again']]);
      assert.equal(inits.length, 2);
      await probe();
      assert.equal(asked.supported, 5, 'refreshed: not asked again until the next refresh');
      stop();
    } finally {
      mock.timers.reset();
    }
  });
});
