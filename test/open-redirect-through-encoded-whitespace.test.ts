/**
 * Attack: an open redirect through the trailing-slash redirect (`/docs/` →
 * 308 `/docs`). Its Location was built from the decoded path, so
 * `GET /%09/evil.example/` answered `Location: /\t/evil.example`: a browser
 * drops a tab (or a newline) from a URL before resolving it, and follows
 * `//evil.example`, another origin. A decoded CR, LF or a character outside
 * Latin-1 (`/x%E2%80%8D/`, found by test/paid-route-reached-unpaid-through-encodings)
 * cannot be written in a header at all: the answer was a bare 500.
 *
 * On raw sockets (nothing normalises the request line): a GET or HEAD of a
 * path with a trailing slash is a 308 whose Location, resolved as a browser
 * resolves it, stays on this origin and names the same path without the
 * slash, or a 404 (or the page the path resolves to); never a 5xx.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import fc from 'fast-check';
import { startRig, type Rig } from './support/harness.js';

const SEED = Number(process.env.OPEN_REDIRECT_SEED ?? 308);

let rig: Rig;
let port: number;
before(async () => {
  rig = await startRig({ devnet: { svm: false } });
  port = Number(new URL(rig.service.url).port);
});
after(async () => rig?.close());

async function get(method: 'GET' | 'HEAD', target: string): Promise<{ status: number; location: string | undefined; head: string }> {
  const head = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(`${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (text += d));
    socket.on('error', reject);
    socket.on('close', () => resolve(text.slice(0, text.indexOf('\r\n\r\n'))));
  });
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), location: /\r\nLocation: ([^\r]*)/i.exec(head)?.[1], head };
}

/** Where a browser goes from `location`, answered to `target`: the WHATWG URL parser, as fetch and every browser resolve a Location. */
function followed(location: string, target: string): URL {
  return new URL(location, new URL(target, rig.service.url));
}

function assertSafeRedirect(method: 'GET' | 'HEAD', target: string, answer: { status: number; location: string | undefined; head: string }) {
  const seen = `${method} ${target} → ${JSON.stringify(answer.head.slice(0, 400))}`;
  // A path that resolves to a page (`/x/../` is `/`) answers it.
  assert.ok(answer.status >= 200 && answer.status < 500, `never a fault: ${seen}`);
  if (answer.status !== 308) return;
  assert.ok(answer.location !== undefined, seen);
  const to = followed(answer.location, target);
  assert.equal(to.origin, new URL(rig.service.url).origin, `the redirect stays on this origin: ${seen}`);
  assert.match(answer.location, /^\/[\x21-\x7e]*$/, `Location is a path of visible ASCII (percent-encoded as sent), nothing a browser drops: ${seen}`);
  const from = new URL(target, rig.service.url);
  assert.equal(to.pathname, from.pathname.replace(/\/+$/, ''), `the same path without its trailing slash: ${seen}`);
}

test('an encoded tab, newline or other whitespace before a host never redirects to that host', async () => {
  const tricky = ['%09', '%0A', '%0D', '%0D%0A', '%09%09', '%0a%09', '%0B', '%0C', '%20', '%00', '%E2%80%8D', '%C2%A0', '%E3%80%80'];
  for (const enc of tricky) {
    for (const target of [`/${enc}/evil.example/`, `/${enc}/evil.example/path/`, `/${enc}%09/evil.example/`, `/docs${enc}/`]) {
      for (const method of ['GET', 'HEAD'] as const) assertSafeRedirect(method, target, await get(method, target));
    }
  }
});

test('a trailing slash still redirects to the page, its path as sent (/docs/ → /docs, /a%C3%A9/ → /a%C3%A9)', async () => {
  for (const [from, to] of [['/docs/', '/docs'], ['/docs//', '/docs'], ['/newswire/?type=standards', '/newswire?type=standards'], ['/a%C3%A9/', '/a%C3%A9'], ['/x%E2%80%8D/', '/x%E2%80%8D']]) {
    const answer = await get('GET', from);
    assert.equal(answer.status, 308, `${from}: ${answer.head}`);
    assert.equal(answer.location, to, from);
  }
});

test('property: any percent-encoded bytes in any path with a trailing slash give a same-origin 308 (or no redirect), never a fault', async () => {
  const byte = fc.integer({ min: 0, max: 255 }).chain((b) => fc.constantFrom(`%${b.toString(16).padStart(2, '0').toUpperCase()}`, `%${b.toString(16).padStart(2, '0')}`));
  const piece = fc.oneof(byte, fc.constantFrom('a', 'docs', 'evil.example', '.', '..', '%2e', '%2E%2E', '%2F', '%5C', '~', '-'));
  const segment = fc.array(piece, { minLength: 0, maxLength: 4 }).map((p) => p.join(''));
  await fc.assert(
    fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 3 }), fc.constantFrom('GET' as const, 'HEAD' as const), async (segments, slashes, method) => {
      const target = '/' + segments.join('/') + '/'.repeat(slashes);
      assertSafeRedirect(method, target, await get(method, target));
    }),
    { numRuns: 300, seed: SEED, endOnFailure: true },
  );
});
