/**
 * The disk holding the SQLite ledger fills up while the service runs. Before,
 * /readyz answered 200 (its probe took and dropped the write lock, which
 * writes nothing) while every paid call failed 503: a load balancer kept
 * sending buyers to an instance that could not take their payments.
 * Readiness must turn 503 while the ledger cannot write, a paid call must
 * fail closed (503, nothing charged), and both must recover by themselves
 * once space returns.
 *
 * The fault is real: the data directory is a tmpfs of a few MiB, filled by
 * a file until the kernel answers ENOSPC. Mounting needs root (CAP_SYS_ADMIN);
 * without it the test is skipped and says why.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, rmSync, statSync, statfsSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '../src/service.js';
import { BLACK_ON_WHITE, CONTRAST, balanceOf, signFor, startRig, timedFetch, type RunningService } from './support/harness.js';

/** Every request here answers within this or the test fails (never a hang). */
const BOUND_MS = 10_000;
const TMPFS_SIZE = '48m';

function mountTmpfs(): { dir: string; unmount(): void } | string {
  const dir = mkdtempSync(join(tmpdir(), 'disk-full-'));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_SIZE},mode=0700`, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return `cannot mount a tmpfs here (${(r.stderr || r.error?.message || `exit ${r.status}`).trim()}); this test needs root (CAP_SYS_ADMIN)`;
  }
  return {
    dir,
    unmount() {
      spawnSync('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Write a file until the filesystem refuses (ENOSPC), down to the last block. Returns its path and size. */
function fillDisk(dir: string): { file: string; bytes: number } {
  const file = join(dir, 'filler');
  const fd = openSync(file, 'w');
  let bytes = 0;
  try {
    for (const chunk of [1 << 20, 64 << 10, 4 << 10, 512]) {
      const buf = Buffer.alloc(chunk, 0x5a);
      for (;;) {
        try {
          bytes += writeSync(fd, buf);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return { file, bytes };
}

const freeBytes = (dir: string) => {
  const s = statfsSync(dir);
  return s.bfree * s.bsize;
};

const sizes = (dir: string) => Object.fromEntries(readdirSync(dir).map((f) => [f, statSync(join(dir, f)).size]));

async function until<T>(what: string, limitMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const EXTRACTOR = '/x402/v1/catalog-offer-evidence-extractor';
const PRICE_EXTRACTOR = 100_000n;

/** A product listing page whose extraction is about 1 MiB of JSON (each description is returned). */
function catalogPage(products: number): string {
  const items = Array.from({ length: products }, (_, i) => ({
    '@type': 'Product',
    name: `Product ${i}`,
    sku: `SKU-${i}`,
    description: `Product ${i}: ` + 'a long description of a product that buyers read. '.repeat(70),
    offers: { '@type': 'Offer', price: `${i}.99`, priceCurrency: 'USD' },
  }));
  return `<html><head><script type="application/ld+json">${JSON.stringify(items)}</script></head><body></body></html>`;
}

const paidPost = (url: string, body: unknown, header: string) =>
  timedFetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': header }, body: JSON.stringify(body) }, BOUND_MS);

test('disk full under the SQLite ledger: /readyz 503 and paid calls fail closed, both recover when space returns', { timeout: 240_000 }, async (t) => {
  const mount = mountTmpfs();
  if (typeof mount === 'string') {
    t.skip(mount);
    return;
  }
  const rig = await startRig({ dataDir: mount.dir, env: { LEDGER_TIMEOUT_MS: '1500' } });
  let service: RunningService | undefined;
  try {
    // Restarted once, as a running instance would have been since its data was loaded: the first start
    // writes the starter content through a WAL of ~10 MiB that a clean stop removes. A WAL keeps its
    // size, and on a full disk SQLite still writes into that space, so without the restart the paid
    // calls below would need no new space at all.
    await rig.service.close();
    service = await startService(rig.service.config, {});
    const base = service.url;
    const payee = () => balanceOf(rig.devnet, rig.devnet.payTo);

    const contrast = base + CONTRAST;
    const warm = await paidPost(contrast, BLACK_ON_WHITE, (await signFor(contrast, BLACK_ON_WHITE, rig.devnet)).header);
    assert.equal(warm.status, 200, 'a paid call before the disk fills');
    const readyBefore = await timedFetch(base + '/readyz', {}, BOUND_MS);
    assert.equal(readyBefore.status, 200, JSON.stringify(readyBefore.json()));
    t.diagnostic(`data directory before filling: ${JSON.stringify(sizes(mount.dir))}, ${freeBytes(mount.dir)} bytes free`);

    const filler = fillDisk(mount.dir);
    t.diagnostic(`filler: ${filler.bytes} bytes; ${freeBytes(mount.dir)} bytes free`);

    // Readiness turns 503, within the bound of one probe.
    const notReady = await until('/readyz 503 on a full disk', BOUND_MS, async () => {
      const r = await timedFetch(base + '/readyz', {}, BOUND_MS);
      return r.status === 503 ? r : undefined;
    });
    assert.equal(notReady.json().checks.ledger, 'unavailable');
    assert.equal(notReady.json().checks.facilitator, 'ok');

    // A paid call whose result must be stored (~1 MiB, more than the WAL holds) fails closed:
    // 503 ledger_unavailable, settle never sent, nothing charged.
    const extractor = base + EXTRACTOR;
    const body = { html: catalogPage(300) };
    const before = await payee();
    const { header } = await signFor(extractor, body, rig.devnet);
    const settlesBefore = rig.proxy.calls.settle;
    const refused = await paidPost(extractor, body, header);
    t.diagnostic(`paid call on the full disk: ${refused.status} ${JSON.stringify(refused.json()).slice(0, 300)} after ${refused.ms} ms`);
    assert.equal(refused.status, 503);
    assert.equal(refused.json().error.code, 'ledger_unavailable');
    assert.equal(rig.proxy.calls.settle, settlesBefore, 'settle never sent');
    assert.equal(await payee(), before, 'nothing charged while the ledger cannot write');

    // Still not ready right after that failure, and no probe hangs.
    const still = await timedFetch(base + '/readyz', {}, BOUND_MS);
    assert.equal(still.status, 503);

    // Space returns: readiness and the same payment recover without a restart, charged once.
    rmSync(filler.file);
    const ready = await until('/readyz 200 after space returned', 20_000, async () => {
      const r = await timedFetch(base + '/readyz', {}, BOUND_MS);
      return r.status === 200 ? r : undefined;
    });
    assert.equal(ready.json().checks.ledger, 'ok');
    const ok = await paidPost(extractor, body, header);
    assert.equal(ok.status, 200, `after space returned: ${ok.status} ${JSON.stringify(ok.json()).slice(0, 300)}`);
    assert.equal(ok.json().products.length, 300);
    assert.equal((await payee()) - before, PRICE_EXTRACTOR, 'charged exactly once');
  } finally {
    await service?.close().catch(() => {});
    await rig.close();
    mount.unmount();
  }
});
