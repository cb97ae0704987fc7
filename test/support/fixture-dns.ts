/**
 * Preload for child processes of the collector tests (`node --import`):
 * resolves *.fixture.test to 127.0.0.1 so a CLI run reaches the test's local
 * fixture server under a public-looking name. Every other name resolves as usual.
 */
import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';

const real = dns.lookup;
dns.lookup = ((hostname: string, options: unknown, callback?: unknown) => {
  const cb = (typeof options === 'function' ? options : callback) as (...a: unknown[]) => void;
  const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all;
  if (typeof hostname === 'string' && hostname.endsWith('.fixture.test')) {
    if (all) return process.nextTick(cb, null, [{ address: '127.0.0.1', family: 4 }]);
    return process.nextTick(cb, null, '127.0.0.1', 4);
  }
  return (real as (...a: unknown[]) => void)(hostname, options, callback);
}) as typeof dns.lookup;
syncBuiltinESMExports();
