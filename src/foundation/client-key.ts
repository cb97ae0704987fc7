/**
 * The key a client is counted under by every per-client limit and budget
 * (the free-route rate limit, the A2A task budget, the redelivery guard):
 * one key per host rather than per address, so a host cannot multiply its
 * budgets by rotating the addresses it holds (issue 41).
 *
 * - IPv6: the /64. It is the smallest prefix a site is assigned (SLAAC needs
 *   it; RFC 6177), so its 2^64 addresses are one subscriber's to rotate.
 * - IPv4: the whole address. Behind NAT, carrier-grade NAT above all, one
 *   address is already many users; a shorter prefix would let one abuser
 *   lock out a neighbourhood.
 * - IPv4 written as IPv6 is that IPv4 address: the mapped form
 *   `::ffff:a.b.c.d` (what a dual-stack socket reports for every IPv4 peer)
 *   and the NAT64 well-known prefix `64:ff9b::/96` (how an IPv6-only host
 *   behind a translator sees IPv4 clients; RFC 6052).
 * - Loopback, the whole of 127.0.0.0/8 and ::1, is this machine: one key.
 * - A value that is not an address (a proxy that forwards junk) gets one
 *   shared key: no spelling buys a budget of its own, and no key is longer
 *   than an address.
 *
 * Accepted spellings are those a socket or a proxy's X-Forwarded-For hop
 * carries: IPv4 (optionally `:port`), IPv6 compressed or not, any case, with
 * a zone id (`fe80::1%eth0`: an interface, not a host), optionally in
 * brackets with a port (`[2001:db8::1]:443`).
 */
import { isIP } from 'node:net';
import { ipv6Groups } from './ip-address.js';

declare const clientKeyBrand: unique symbol;
/** Who a request counts against: compare and store it, never parse it back into an address. */
export type ClientKey = string & { readonly [clientKeyBrand]: true };

const LOOPBACK = 'loopback' as ClientKey;
/** Every value that is not an address. */
export const UNKNOWN_CLIENT = 'unknown' as ClientKey;

/** Longer than any address with a zone id, port and brackets: more is junk, and is not scanned. */
const MAX_ADDRESS_CHARS = 100;
const PORT = /^:[0-9]{1,5}$/;
/** RFC 6874's zone id characters (unreserved), percent-encoded `%25` included. */
const ZONE = /^[A-Za-z0-9._~%-]+$/;

type Ipv4 = readonly [number, number, number, number];

/** The key of one address as a socket or a trusted proxy reports it. */
export function clientKeyForAddress(value: string | undefined): ClientKey {
  const host = value === undefined ? undefined : bareAddress(value.trim());
  if (host === undefined) return UNKNOWN_CLIENT;
  return isIP(host) === 4 ? ipv4Key(ipv4Bytes(host)) : ipv6Key(ipv6Groups(host)!);
}

/** The address without brackets, port or zone id, when it is one (node:net's isIP: no leading zeros, no shorthand). */
function bareAddress(s: string): string | undefined {
  if (s.length > MAX_ADDRESS_CHARS) return undefined;
  let host = s;
  if (s.startsWith('[')) {
    const end = s.indexOf(']');
    if (end < 0 || !portOk(s.slice(end + 1))) return undefined;
    host = s.slice(1, end);
    // Brackets hold an IPv6 address only.
    if (isIP(withoutZone(host) ?? '') !== 6) return undefined;
  } else {
    const colon = s.indexOf(':');
    // One colon: an IPv4 address and its port (an IPv6 address has at least two).
    if (colon >= 0 && s.indexOf(':', colon + 1) < 0) {
      if (!portOk(s.slice(colon))) return undefined;
      host = s.slice(0, colon);
      if (isIP(host) !== 4) return undefined;
    }
  }
  const bare = withoutZone(host);
  return bare !== undefined && isIP(bare) !== 0 ? bare : undefined;
}

function portOk(suffix: string): boolean {
  return suffix === '' || (PORT.test(suffix) && Number(suffix.slice(1)) <= 65_535);
}

/** `fe80::1%eth0` → `fe80::1`; a zone on anything but IPv6, or an empty one, is not an address. */
function withoutZone(s: string): string | undefined {
  const pct = s.indexOf('%');
  if (pct < 0) return s;
  const address = s.slice(0, pct);
  return isIP(address) === 6 && ZONE.test(s.slice(pct + 1)) ? address : undefined;
}

function ipv4Bytes(s: string): Ipv4 {
  const [a, b, c, d] = s.split('.').map(Number) as [number, number, number, number];
  return [a, b, c, d];
}

function ipv4Key(v4: Ipv4): ClientKey {
  return (v4[0] === 127 ? LOOPBACK : v4.join('.')) as ClientKey;
}


const zeros = (groups: number[], from: number, to: number) => groups.slice(from, to).every((g) => g === 0);

function ipv6Key(g: number[]): ClientKey {
  const embedded: Ipv4 = [g[6]! >> 8, g[6]! & 0xff, g[7]! >> 8, g[7]! & 0xff];
  if (zeros(g, 0, 5) && g[5] === 0xffff) return ipv4Key(embedded);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(g, 2, 6)) return ipv4Key(embedded);
  if (zeros(g, 0, 7) && g[7] === 1) return LOOPBACK;
  return `${g.slice(0, 4).map((x) => x.toString(16)).join(':')}::/64` as ClientKey;
}
