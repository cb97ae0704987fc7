/**
 * Which addresses a collector may publish. A listing is untrusted: a
 * directory or manifest can name `http://169.254.169.254/…` (the cloud
 * metadata service), `http://127.0.0.1:6379/` or `http://printer.local/` as
 * a "resource", and publishing it would turn this newswire into a catalogue
 * of someone's internal network (and invite agents to call it). So a listed
 * URL is published only when its host is, by its text, a public internet
 * address or name.
 *
 * The host is judged after WHATWG URL parsing, which already turns the
 * decimal, hex, octal and percent-encoded IPv4 spellings (`2130706433`,
 * `0x7f.1`, `0177.0.0.1`, `127.0.0.%31`) into dotted quads and IPv6 into its
 * compressed form. Names are never resolved: collectors do not fetch listed
 * URLs, and a DNS answer is the lister's to choose anyway. Names that only
 * mean something inside a network (single labels, `localhost`, `.local`,
 * `.internal`, `.home.arpa`, …) and names that spell a non-public IPv4 in
 * their labels (`127.0.0.1.nip.io`, `10-0-0-1.sslip.io`) are refused by
 * their text.
 *
 * Ranges: the IANA IPv4 and IPv6 special-purpose registries (RFC 6890 and
 * its updates) — unspecified, loopback, private (RFC 1918), shared/CGNAT
 * (RFC 6598), link-local, unique-local (RFC 4193), site-local, documentation
 * and benchmarking, multicast, reserved and broadcast; IPv6 forms that carry
 * an IPv4 address (mapped, compatible, NAT64 RFC 6052, 6to4) are judged by
 * the IPv4 address they carry.
 *
 * The same ranges decide which addresses a collector may connect to
 * (`mayConnectTo`, used by fetch.ts on the address a socket is given), less
 * the documentation ranges: they are assigned to no network, so they reach
 * nothing inside one, and an egress proxy may answer on them (this machine's
 * resolves registry.npmjs.org to 203.0.113.80).
 */

import { ipv4Number, ipv6Groups } from '../../foundation/ip-address.js';

/** [first address, prefix length] of each IPv4 block that is not public. */
const IPV4_BLOCKS: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255 broadcast
];

/** Names that only resolve inside a network (RFC 6761, RFC 6762, RFC 8375, ICANN's .internal, common private suffixes). */
const INTERNAL_SUFFIXES = ['localhost', 'local', 'internal', 'intranet', 'lan', 'home', 'corp', 'private', 'localdomain', 'home.arpa', 'in-addr.arpa', 'ip6.arpa'];


const IPV4_RANGES = IPV4_BLOCKS.map(([first, bits]) => {
  const size = 2 ** (32 - bits);
  const start = ipv4Number(first)!;
  return [start, start + size - 1] as const;
});

function ipv4NumberIsPublic(n: number): boolean {
  return !IPV4_RANGES.some(([lo, hi]) => n >= lo && n <= hi);
}


function ipv6IsPublic(g: number[]): boolean {
  const v4At = (i: number) => g[i]! * 65536 + g[i + 1]!;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return false; // :: unspecified
  if (zeros(0, 7) && g[7] === 1) return false; // ::1 loopback
  if (zeros(0, 5) && g[5] === 0xffff) return ipv4NumberIsPublic(v4At(6)); // ::ffff:a.b.c.d mapped
  if (zeros(0, 6)) return false; // ::a.b.c.d IPv4-compatible (deprecated; never a public address today)
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return ipv4NumberIsPublic(v4At(6)); // ::ffff:0:a.b.c.d translated
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return ipv4NumberIsPublic(v4At(6)); // NAT64 well-known prefix
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return false; // local-use NAT64
  if (g[0] === 0x0100 && zeros(1, 4)) return false; // discard-only
  if (g[0] === 0x2001 && g[1]! < 0x200) return false; // IETF protocol assignments, Teredo included (2001::/23)
  if (g[0] === 0x2001 && g[1] === 0x0db8) return false; // documentation
  if (g[0] === 0x2002) return ipv4NumberIsPublic(v4At(1)); // 6to4 carries an IPv4 address
  if ((g[0]! & 0xfff0) === 0x3ff0) return false; // documentation (3fff::/20)
  if ((g[0]! & 0xfe00) === 0xfc00) return false; // unique-local fc00::/7
  if ((g[0]! & 0xffc0) === 0xfe80) return false; // link-local fe80::/10
  if ((g[0]! & 0xffc0) === 0xfec0) return false; // site-local (deprecated)
  if ((g[0]! & 0xff00) === 0xff00) return false; // multicast
  return (g[0]! & 0xe000) === 0x2000; // only global unicast (2000::/3) is public
}

/** A non-public IPv4 address spelled in a name's labels, dotted or dashed (`127.0.0.1.nip.io`, `ip-10-0-0-1.example`). */
function spellsInternalIpv4(name: string): boolean {
  const re = /(?:^|[.-])([0-9]{1,3})[.-]([0-9]{1,3})[.-]([0-9]{1,3})[.-]([0-9]{1,3})(?=$|[.-])/g;
  for (let m = re.exec(name); m; m = re.exec(name)) {
    const n = ipv4Number(`${m[1]}.${m[2]}.${m[3]}.${m[4]}`);
    if (n !== undefined && !ipv4NumberIsPublic(n)) return true;
    re.lastIndex = m.index + 1;
  }
  return false;
}

/** Whether a URL host (as `URL.hostname` gives it: IPv6 in brackets) is a public internet address or name. */
export function isPublicHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.+$/, '');
  if (host === '') return false;
  if (host.startsWith('[')) {
    if (!host.endsWith(']')) return false;
    const groups = ipv6Groups(host.slice(1, -1).replace(/%.*$/, ''));
    return groups !== undefined && ipv6IsPublic(groups);
  }
  const v4 = ipv4Number(host);
  if (v4 !== undefined) return ipv4NumberIsPublic(v4);
  if (/^[0-9.]+$/.test(host)) return false; // an address-like host no parser accepted
  if (!host.includes('.')) return false; // a single label resolves through local search domains only
  if (INTERNAL_SUFFIXES.some((s) => host === s || host.endsWith(`.${s}`))) return false;
  return !spellsInternalIpv4(host);
}

/**
 * Whether an IP address as a socket connects to it (`127.0.0.1`, `::1`,
 * `::ffff:7f00:1`, no brackets) is a public internet address, by the same
 * ranges as `isPublicHost`. Anything that is not an address is not public.
 */
function isPublicAddress(address: string): boolean {
  const v4 = ipv4Number(address);
  if (v4 !== undefined) return ipv4NumberIsPublic(v4);
  const groups = ipv6Groups(address.toLowerCase().replace(/%.*$/, ''));
  return groups !== undefined && ipv6IsPublic(groups);
}

/** Documentation blocks (RFC 5737, RFC 3849, RFC 9637), IPv4 as [first, last]. */
const IPV4_DOCUMENTATION = (['192.0.2.0', '198.51.100.0', '203.0.113.0'] as const).map((first) => {
  const start = ipv4Number(first)!;
  return [start, start + 255] as const;
});

function isDocumentation(address: string): boolean {
  const inV4 = (n: number) => IPV4_DOCUMENTATION.some(([lo, hi]) => n >= lo && n <= hi);
  const v4 = ipv4Number(address);
  if (v4 !== undefined) return inV4(v4);
  const g = ipv6Groups(address.toLowerCase().replace(/%.*$/, ''));
  if (g === undefined) return false;
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return inV4(g[6]! * 65536 + g[7]!); // ::ffff:a.b.c.d
  return (g[0] === 0x2001 && g[1] === 0x0db8) || (g[0]! & 0xfff0) === 0x3ff0;
}

/**
 * Whether a collector may open a connection to this address (as a socket is
 * given it): a public address, or a documentation address (see the header).
 */
export function mayConnectTo(address: string): boolean {
  return isPublicAddress(address) || isDocumentation(address);
}

/** Whether an http(s) URL may be published: its host is public. Anything unparsable is not. */
export function isPublishableUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return (u.protocol === 'http:' || u.protocol === 'https:') && isPublicHost(u.hostname);
  } catch {
    return false;
  }
}

/**
 * Remove internal addresses from untrusted free text before it is quoted:
 * URLs whose host is not public and bare non-public IPv4 literals become
 * "[internal address removed]".
 */
export function redactInternalAddresses(text: string): string {
  const REMOVED = '[internal address removed]';
  const urls = text.replace(/\bhttps?:\/\/[^\s"'<>()]+/gi, (m) => (isPublishableUrl(m) ? m : REMOVED));
  return urls.replace(/\b[0-9]{1,3}(?:\.[0-9]{1,3}){3}\b/g, (m) => {
    const n = ipv4Number(m);
    return n !== undefined && !ipv4NumberIsPublic(n) ? REMOVED : m;
  });
}
