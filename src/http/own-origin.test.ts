import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OwnOrigins } from './own-origin.js';

const listening = (host: string, port: number, opts: Partial<ConstructorParameters<typeof OwnOrigins>[0]> = {}) => {
  const o = new OwnOrigins({ publicBaseUrl: undefined, allowedHosts: [], trustProxy: false, ...opts });
  o.listeningOn(host, port);
  return o;
};

test('a loopback bind answers to its loopback names at its port; any other host is named as the listening address', () => {
  const o = listening('127.0.0.1', 8402);
  assert.equal(o.originFor('http://127.0.0.1:8402/x', true), 'http://127.0.0.1:8402');
  assert.equal(o.originFor('http://LocalHost.:8402/x', true), 'http://localhost:8402');
  assert.equal(o.originFor('http://[0:0::1]:8402/x', true), 'http://[::1]:8402');
  // Another port on a loopback name is not this service.
  assert.equal(o.originFor('http://localhost:9000/x', true), 'http://127.0.0.1:8402');
  assert.equal(o.originFor('http://evil.example/x', true), 'http://127.0.0.1:8402');
  assert.equal(o.originFor('https://evil.example:8402/x', true), 'http://127.0.0.1:8402');
  // The same host asked again is answered the same (the remembered verdict).
  assert.equal(o.originFor('http://evil.example/y', true), 'http://127.0.0.1:8402');
});

test('a wildcard bind (compose, the container) is named by its loopback name; its own address and port 80 spelled without the port', () => {
  for (const host of ['0.0.0.0', '::']) {
    const o = listening(host, 8402);
    assert.equal(o.originFor('http://evil.example/x', true), 'http://localhost:8402', host);
    assert.equal(o.originFor('http://127.0.0.1:8402/x', true), 'http://127.0.0.1:8402', host);
  }
  assert.equal(listening('0.0.0.0', 80).originFor('http://localhost/x', true), 'http://localhost');
});

test('a bind to one address is that address only', () => {
  const o = listening('10.0.0.5', 8402);
  assert.equal(o.originFor('http://10.0.0.5:8402/x', true), 'http://10.0.0.5:8402');
  assert.equal(o.originFor('http://localhost:8402/x', true), 'http://10.0.0.5:8402');
});

test('ALLOWED_HOSTS: a name without a port at any port, with one at that port; the scheme is a trusted proxy\'s only', () => {
  const allowedHosts = [{ hostname: 'pay.example.test', port: undefined }, { hostname: '[2001:db8::1]', port: 8443 }];
  const direct = listening('127.0.0.1', 8402, { allowedHosts });
  assert.equal(direct.originFor('http://pay.example.test/x', true), 'http://pay.example.test');
  assert.equal(direct.originFor('https://pay.example.test/x', true), 'http://pay.example.test:443');
  assert.equal(direct.originFor('http://[2001:db8:0::1]:8443/x', true), 'http://[2001:db8::1]:8443');
  assert.equal(direct.originFor('http://[2001:db8::1]:8444/x', true), 'http://127.0.0.1:8402');
  const proxied = listening('127.0.0.1', 8402, { allowedHosts, trustProxy: true });
  assert.equal(proxied.originFor('https://pay.example.test/x', true), 'https://pay.example.test');
  assert.equal(proxied.originFor('https://evil.example/x', true), 'http://127.0.0.1:8402');
});

test('PUBLIC_BASE_URL is named for every request, whatever its host', () => {
  const o = listening('127.0.0.1', 8402, { publicBaseUrl: 'https://pay.example.test' });
  for (const url of ['http://evil.example/x', 'http://127.0.0.1:8402/x', 'http://localhost/x']) {
    assert.equal(o.originFor(url, true), 'https://pay.example.test');
    assert.equal(o.originFor(url, false), 'https://pay.example.test');
  }
});

test('the process\'s own requests are named as addressed; a socket request before the listening address is known names nothing', () => {
  const o = new OwnOrigins({ publicBaseUrl: undefined, allowedHosts: [], trustProxy: false });
  assert.equal(o.originFor('http://localhost/openapi.json', false), 'http://localhost');
  assert.throws(() => o.originFor('http://evil.example/x', true), /listening address/);
});
