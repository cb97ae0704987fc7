/**
 * IP addresses as numbers, for the rules that judge them by range (which
 * addresses a collector may reach or publish, which host a client counts
 * as). Strict: only the dotted-quad IPv4 form (URL parsing and sockets give
 * no other) and RFC 4291's IPv6 text forms, without brackets or zone id.
 */

/** The 32-bit number of a dotted-quad IPv4 address, or undefined. */
export function ipv4Number(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const p of parts) {
    if (!/^[0-9]{1,3}$/.test(p)) return undefined;
    const v = Number(p);
    if (v > 255) return undefined;
    n = n * 256 + v;
  }
  return n;
}

/** The eight 16-bit groups of an IPv6 address (without brackets or zone), or undefined. */
export function ipv6Groups(text: string): number[] | undefined {
  let s = text;
  let tail: number[] = [];
  // A trailing dotted quad (`::ffff:127.0.0.1`) is two groups.
  const quad = /(?:^|:)([0-9]{1,3}(?:\.[0-9]{1,3}){3})$/.exec(s);
  if (quad) {
    const v4 = ipv4Number(quad[1]!);
    if (v4 === undefined) return undefined;
    tail = [Math.floor(v4 / 65536), v4 % 65536];
    s = s.slice(0, s.length - quad[1]!.length);
    if (s.endsWith(':') && !s.endsWith('::')) s = s.slice(0, -1);
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const parse = (h: string): number[] | undefined => {
    if (h === '') return [];
    const out: number[] = [];
    for (const g of h.split(':')) {
      if (!/^[0-9a-f]{1,4}$/i.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  if (!head || !rest) return undefined;
  const known = head.length + rest.length + tail.length;
  if (halves.length === 2) {
    if (known > 7) return undefined;
    return [...head, ...new Array<number>(8 - known).fill(0), ...rest, ...tail];
  }
  return known === 8 ? [...head, ...tail] : undefined;
}
