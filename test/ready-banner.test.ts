/**
 * What `npm start` on the devnet prints once it is up, read from its
 * standard output as a terminal or a pipe gets it: the "listening" log line
 * first, then the ready banner naming the front page, the API reference, the
 * command that pays from a second terminal, and how to stop.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnService } from './support/child-service.js';
import { tempDir } from './support/harness.js';

test('the ready banner comes after the "listening" line and names the front page, /docs, the buy command and Ctrl-C', { timeout: 120_000 }, async () => {
  const dataDir = tempDir('ready-banner-');
  const svc = await spawnService({ DATA_DIR: dataDir, PORT: '0' }, 90_000);
  try {
    for (let i = 0; i < 100 && !svc.output().includes('Ctrl-C to stop.'); i++) await new Promise((r) => setTimeout(r, 100));
    const out = svc.output();
    const listening = out.indexOf(`"msg":"listening on ${svc.url}"`);
    const banner = out.indexOf(`Service ready at ${svc.url}`);
    assert.ok(listening >= 0, `a "listening" line:\n${out}`);
    assert.ok(banner > listening, `the banner after the "listening" line:\n${out}`);
    const lines = out.slice(banner).split('\n');
    const end = lines.indexOf('Ctrl-C to stop.');
    assert.ok(end > 0, `the banner ends with how to stop:\n${out}`);
    assert.deepEqual(lines.slice(0, end + 1), [
      `Service ready at ${svc.url} (devnet payment rail, chain 31337).`,
      `  Front page:    ${svc.url}/`,
      `  API reference: ${svc.url}/docs`,
      'Try a paid call in another terminal:',
      `  DATA_DIR='${dataDir}' npm run buy -- POST /x402/v1/accessibility-contrast-calculator '{"foreground":"#000000","background":"#ffffff","large_text":false}'`,
      'Ctrl-C to stop.',
    ]);
    // The pages it names answer.
    for (const path of ['/', '/docs']) assert.equal((await fetch(svc.url + path)).status, 200, path);
  } finally {
    await svc.kill();
  }
});
