/**
 * The x402 SDK reports some problems with console.warn / console.log /
 * console.error ("Failed to fetch supported kinds from facilitator: …"),
 * which would put bare text lines among the service's JSON log lines. In the
 * service process those calls, when the SDK makes them, go to our logger
 * instead: one JSON line tagged `source: "x402-sdk"`, at the console method's
 * level, with every configured secret replaced. Console calls from anywhere
 * else are left alone.
 */
import { format } from 'node:util';
import type { Logger } from 'pino';
import type { PaymentConfig } from '../config.js';

/** A stack frame in one of the SDK's packages (@x402/core, @x402/evm, @x402/extensions …). */
const SDK_FRAME = /[\\/]node_modules[\\/]@x402[\\/]/;

const LEVELS = { log: 'info', info: 'info', debug: 'debug', warn: 'warn', error: 'error' } as const;
type ConsoleMethod = keyof typeof LEVELS;

/** Strings that must never reach a log line: facilitator credentials, and URLs that may carry keys. */
export function secretsOf(payment: Pick<PaymentConfig, 'facilitatorUrls' | 'facilitatorAuth' | 'rpcUrl'> | undefined): string[] {
  if (!payment) return [];
  const out: string[] = [];
  const { cdp, headers } = payment.facilitatorAuth ?? {};
  if (cdp) out.push(cdp.apiKeySecret, cdp.apiKeyId);
  for (const byName of Object.values(headers ?? {})) out.push(...Object.values(byName));
  for (const raw of [...payment.facilitatorUrls, payment.rpcUrl]) {
    try {
      const u = new URL(raw);
      if (u.password) out.push(decodeURIComponent(u.password), u.password);
      if (u.username) out.push(decodeURIComponent(u.username), u.username);
      for (const v of u.searchParams.values()) out.push(v);
      if (u.search) out.push(u.search.slice(1));
      // An RPC URL often carries its key in the path (…/v2/<key>).
      if (raw === payment.rpcUrl && u.pathname.length > 1) out.push(u.pathname.slice(1));
    } catch {
      out.push(raw);
    }
  }
  // Longest first, so a secret containing another is replaced whole; very short strings would mangle ordinary text.
  return [...new Set(out.filter((s) => typeof s === 'string' && s.length >= 4))].sort((a, b) => b.length - a.length);
}

function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join('[redacted]');
  // Credentials in any URL the SDK may print.
  return out.replace(/\/\/[^/\s:@]+:[^/\s@]+@/g, '//[redacted]@');
}

/** An Error as one line: its name, message and causes, not its stack. */
function oneLine(arg: unknown): unknown {
  if (!(arg instanceof Error)) return arg;
  const parts: string[] = [];
  let cur: unknown = arg;
  for (let i = 0; i < 4 && cur instanceof Error; i++) {
    parts.push(`${cur.name}: ${cur.message}`);
    cur = cur.cause;
  }
  return parts.join(' <- ');
}

/**
 * Route the SDK's console calls to `log` until the returned function is
 * called. Install once per process (src/main.ts).
 */
export function routeSdkConsole(log: Logger, secrets: readonly string[]): () => void {
  const originals = new Map<ConsoleMethod, (...args: unknown[]) => void>();
  for (const method of Object.keys(LEVELS) as ConsoleMethod[]) {
    const original = console[method] as (...args: unknown[]) => void;
    originals.set(method, original);
    console[method] = function sdkAware(...args: unknown[]) {
      // Frame 0 is this function; frame 1 the caller. Only the SDK's calls are rerouted.
      const caller = new Error().stack?.split('\n')[2] ?? '';
      if (!SDK_FRAME.test(caller)) return original.apply(console, args);
      log[LEVELS[method]]({ source: 'x402-sdk' }, redact(format(...args.map(oneLine)), secrets));
    };
  }
  return () => {
    for (const [method, original] of originals) console[method] = original;
  };
}
