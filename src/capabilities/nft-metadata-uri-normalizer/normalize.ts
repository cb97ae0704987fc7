/**
 * Syntactic normalization of NFT metadata URIs (ERC-721 `tokenURI`, ERC-1155
 * `uri`). Pure and deterministic: no I/O, no clock, no randomness. Every
 * function here is total: any string gives a result, never an exception.
 *
 * Rules (domain-rules §C): canonical IPFS form `ipfs://{cid}{/path}`; CIDv0 is
 * case-sensitive and never lowercased; CIDv1 in any multibase is re-encoded as
 * lowercase base32 (one canonical text per CID); Arweave `ar://{43-char id}` ⇄
 * `https://arweave.net/{id}`; data: URIs per RFC 2397 are decoded; http(s) only
 * has scheme and host lowercased, and a host must be an RFC 1123 host name.
 * Everything after the content root (path, trailing slash, query, fragment) is
 * kept byte for byte.
 */
import { isCanonicalBase64Url43, isHostSafeMultibase, parseCid, parseIpnsKey, type Multibase } from './cid.js';
import { dnsNameProblem } from './dns.js';
import { jsonNestingExceeds } from '../../catalog/json-input.js';

// ---------------------------------------------------------------------------
// Public shapes

export interface NormalizerRequest {
  uri: string;
  token_id?: string;
  ipfs_gateway?: string;
}

export type UriKind = 'ipfs' | 'ipns' | 'arweave' | 'data' | 'https' | 'http' | 'unsupported';
export type Severity = 'info' | 'warning' | 'error';

export interface Warning {
  code: string;
  severity: Severity;
  message: string;
}

export interface IpfsInfo {
  cid: string;
  cid_version: 0 | 1;
  /** Multibase of `cid`: base58btc for CIDv0, base32 for CIDv1. */
  multibase: 'base58btc' | 'base32';
  /** Multibase the CID was written in. */
  input_multibase: Multibase;
  codec: string | null;
  codec_code: number;
  multihash: string | null;
  multihash_code: number;
  digest_length: number;
  cid_v1_base32: string;
}

export interface IpnsInfo {
  name: string;
  name_type: 'key' | 'dnslink';
  key_base36: string | null;
}

export interface ArweaveInfo {
  transaction_id: string | null;
  arns_name: string | null;
}

export interface HttpInfo {
  host: string;
  port: string | null;
  has_userinfo: boolean;
}

export interface DataParameter {
  name: string;
  value: string | null;
}

export interface DataInfo {
  media_type: string;
  media_type_omitted: boolean;
  parameters: DataParameter[];
  charset: string | null;
  encoding: 'base64' | 'percent';
  byte_length: number | null;
  text: string | null;
  is_json: boolean;
  json: unknown;
}

export interface IdSubstitution {
  placeholder_found: boolean;
  token_id: string | null;
  token_id_decimal: string | null;
  token_id_hex: string | null;
  applied: boolean;
  template_uri: string | null;
}

export interface NormalizerResponse {
  raw_uri: string;
  canonical_uri: string | null;
  kind: UriKind;
  valid: boolean;
  gateway_url: string | null;
  subdomain_gateway_url: string | null;
  path: string | null;
  ipfs: IpfsInfo | null;
  ipns: IpnsInfo | null;
  arweave: ArweaveInfo | null;
  http: HttpInfo | null;
  data: DataInfo | null;
  id_substitution: IdSubstitution;
  on_chain: boolean;
  mutable: boolean | null;
  content_addressed: boolean;
  warnings: Warning[];
  limitations: string[];
  evidence: { network_fetches: 0; model_calls: 0; supplier_payments: 0 };
}

// ---------------------------------------------------------------------------
// Constants

export const DEFAULT_IPFS_GATEWAY = 'https://ipfs.io';
/** ipfs.io serves path-style only; its operator's subdomain gateway is dweb.link. */
const DEFAULT_SUBDOMAIN_HOST = 'dweb.link';
/**
 * Public subdomain gateways ({cid}.ipfs.{host}, {name}.ipns.{host}). Only under
 * a known host (or the caller's ipfs_gateway) is a multi-label name in front of
 * ".ipns." unambiguous: elsewhere the gateway's own host could start earlier.
 */
const KNOWN_SUBDOMAIN_GATEWAYS: readonly string[] = ['dweb.link', 'inbrowser.link', 'w3s.link', 'nftstorage.link', 'cf-ipfs.com', '4everland.io'];
const ARWEAVE_GATEWAY = 'https://arweave.net';

export const MAX_UINT256 = (1n << 256n) - 1n;
export const TOKEN_ID_PATTERN = '^(?:[0-9]{1,100}|0[xX][0-9a-fA-F]{1,100})$';
const TOKEN_ID_RE = new RegExp(TOKEN_ID_PATTERN);
/** An https origin: lowercase scheme, DNS host (or IPv4), optional port, optional single trailing slash. */
export const GATEWAY_PATTERN =
  '^https://[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*(?::[0-9]{1,5})?/?$';
const GATEWAY_RE = new RegExp(GATEWAY_PATTERN);

const LIMITATIONS: readonly string[] = Object.freeze([
  'Syntactic normalization only: nothing is fetched, so whether the content exists, is pinned, or is reachable through any gateway is not checked.',
  'CIDs are checked for multibase encoding, CID version and multihash structure, not against any content; an IPNS name or ArNS name is not resolved and can change what it points to.',
  'gateway_url uses the ipfs_gateway you pass (default https://ipfs.io) for IPFS and IPNS, and https://arweave.net for Arweave; subdomain_gateway_url only works on gateways that serve subdomain resolution (for the default gateway it uses dweb.link).',
  'ERC-1155 {id} is substituted in the URI (and in gateway URLs and data: URIs built from it), not inside decoded metadata such as an image field.',
  'http(s) URLs only get their scheme and host lowercased; redirects, reachability, TLS and content are not checked, and http is never upgraded to https.',
]);

const EVIDENCE = Object.freeze({ network_fetches: 0, model_calls: 0, supplier_payments: 0 } as const);

// ---------------------------------------------------------------------------
// Small helpers

class Notes {
  readonly list: Warning[] = [];
  add(code: string, severity: Severity, message: string): void {
    if (this.list.some((w) => w.code === code)) return;
    this.list.push({ code, severity, message });
  }
  get hasError(): boolean {
    return this.list.some((w) => w.severity === 'error');
  }
}

/** Splits `root` (up to the first `/`, `?` or `#`) from the rest, kept verbatim. */
function splitRoot(s: string): { root: string; rest: string } {
  const m = /[/?#]/.exec(s);
  if (!m) return { root: s, rest: '' };
  return { root: s.slice(0, m.index), rest: s.slice(m.index) };
}

/** A rest that can follow a host in an http(s) URL: `''` becomes `/`, `?q` becomes `/?q`. */
function asUrlPath(rest: string): string {
  if (rest === '') return '/';
  if (rest[0] === '?' || rest[0] === '#') return '/' + rest;
  return rest;
}

function quote(s: string, max = 80): string {
  const shown = s.length > max ? s.slice(0, max) + '…' : s;
  return JSON.stringify(shown);
}

const ARWEAVE_ID_RE = /^[A-Za-z0-9_-]{43}$/;
const ARNS_NAME_RE = /^[A-Za-z0-9_-]{1,51}$/;
// eslint-disable-next-line no-control-regex
const CONTROL_OR_SPACE_RE = /[\u0000-\u0020\u007f]/;

// ---------------------------------------------------------------------------
// Core: what kind of URI, and its canonical form (before {id} substitution)

interface Core {
  kind: UriKind;
  canonical: string | null;
  gateway: string | null;
  subdomain: string | null;
  path: string | null;
  ipfs: IpfsInfo | null;
  ipns: IpnsInfo | null;
  arweave: ArweaveInfo | null;
  http: HttpInfo | null;
  mutable: boolean | null;
  contentAddressed: boolean;
}

interface Gateways {
  path: string;
  /** Host (and port) for {cid}.ipfs.{host}; null when the gateway is an IP address. */
  subdomainHost: string | null;
}

function emptyCore(kind: UriKind): Core {
  return {
    kind,
    canonical: null,
    gateway: null,
    subdomain: null,
    path: null,
    ipfs: null,
    ipns: null,
    arweave: null,
    http: null,
    mutable: kind === 'unsupported' ? null : kind === 'ipns' || kind === 'http' || kind === 'https',
    contentAddressed: false,
  };
}

function ipfsCore(cidText: string, rest: string, gw: Gateways, notes: Notes): Core | undefined {
  const parsed = parseCid(cidText);
  if (!parsed.ok) return undefined;
  if (parsed.version === 0) {
    notes.add(
      'CIDV0_CASE_SENSITIVE',
      'info',
      'The CID is a CIDv0 (base58btc, "Qm…"): it is case-sensitive and must never be lowercased; subdomain gateways need its CIDv1 base32 form (cid_v1_base32).',
    );
  } else if (parsed.multibase !== 'base32' && parsed.multibase !== 'base32upper') {
    notes.add(
      'CID_MULTIBASE_CONVERTED',
      'info',
      `The CIDv1 was written in ${parsed.multibase} ("${parsed.inputPrefix}…"); it was re-encoded from the same bytes as lowercase base32 ("b…"), the canonical form.`,
    );
  } else if (parsed.lowercased) {
    notes.add(
      'CID_MULTIBASE_LOWERCASED',
      'warning',
      `The CIDv1 was written in upper or mixed case ${quote(cidText)}; base32 is case-insensitive, so it was lowercased to the canonical "b…" form.`,
    );
  }
  const sub =
    gw.subdomainHost !== null && parsed.v1Base32.length <= 63
      ? `https://${parsed.v1Base32}.ipfs.${gw.subdomainHost}${asUrlPath(rest)}`
      : null;
  if (parsed.v1Base32.length > 63) {
    notes.add(
      'SUBDOMAIN_GATEWAY_UNAVAILABLE',
      'info',
      'The CIDv1 base32 form is longer than a 63-character DNS label, so no subdomain gateway URL can be built.',
    );
  }
  return {
    ...emptyCore('ipfs'),
    canonical: `ipfs://${parsed.cid}${rest}`,
    gateway: `${gw.path}/ipfs/${parsed.cid}${rest}`,
    subdomain: sub,
    path: rest,
    ipfs: {
      cid: parsed.cid,
      cid_version: parsed.version,
      multibase: parsed.version === 0 ? 'base58btc' : 'base32',
      input_multibase: parsed.multibase,
      codec: parsed.codec,
      codec_code: parsed.codecCode,
      multihash: parsed.multihash,
      multihash_code: parsed.multihashCode,
      digest_length: parsed.digestLength,
      cid_v1_base32: parsed.v1Base32,
    },
    mutable: false,
    contentAddressed: true,
  };
}

/** An `ipfs` content root that must be a CID: a result either way. */
function ipfsOrInvalid(cidText: string, rest: string, gw: Gateways, notes: Notes): Core {
  const ok = ipfsCore(cidText, rest, gw, notes);
  if (ok) return ok;
  reportBadCid(cidText, notes);
  return { ...emptyCore('ipfs'), mutable: false };
}

function reportBadCid(cidText: string, notes: Notes): void {
  const parsed = parseCid(cidText);
  if (parsed.ok) return;
  if (parsed.mangledV0) {
    notes.add('CIDV0_CASE_MANGLED', 'error', `${quote(cidText)}: ${parsed.reason}.`);
  } else {
    notes.add('INVALID_CID', 'error', `${quote(cidText)} is not a valid CID: ${parsed.reason}.`);
  }
}

function ipnsCore(nameText: string, rest: string, gw: Gateways, notes: Notes): Core {
  notes.add('IPNS_MUTABLE', 'info', 'IPNS names are mutable pointers: the content behind this URI can change without the URI changing.');
  const base: Core = { ...emptyCore('ipns'), mutable: true };
  const key = parseIpnsKey(nameText);
  let name: string;
  let info: IpnsInfo;
  let label: string | null;
  if (key.ok) {
    if (key.lowercased) {
      notes.add('CID_MULTIBASE_LOWERCASED', 'warning', `The IPNS key ${quote(nameText)} was lowercased; its multibase is case-insensitive.`);
    }
    name = key.name;
    info = { name, name_type: 'key', key_base36: key.base36 };
    label = key.base36.length <= 63 ? key.base36 : null;
  } else if (dnsNameProblem(nameText, 2) === undefined) {
    name = nameText.toLowerCase();
    if (name !== nameText) notes.add('HOST_LOWERCASED', 'info', 'The DNSLink domain name was lowercased (DNS names are case-insensitive).');
    info = { name, name_type: 'dnslink', key_base36: null };
    const inlined = name.replace(/\.$/, '').replace(/-/g, '--').replace(/\./g, '-');
    label = inlined.length <= 63 ? inlined : null;
  } else {
    // A dotted name was meant as a domain: say why it is not one (RFC 1123).
    const why = nameText.includes('.') ? `the domain name ${dnsNameProblem(nameText, 2) ?? ''}` : key.reason;
    notes.add(
      'IPNS_NAME_INVALID',
      'error',
      `${quote(nameText)} is neither an IPNS key (libp2p-key CID or peer ID) nor a DNSLink domain name${why ? `: ${why}` : ''}.`,
    );
    return base;
  }
  if (label === null) {
    notes.add('SUBDOMAIN_GATEWAY_UNAVAILABLE', 'info', 'The IPNS name does not fit in one DNS label, so no subdomain gateway URL can be built.');
  }
  return {
    ...base,
    canonical: `ipns://${name}${rest}`,
    gateway: `${gw.path}/ipns/${name}${rest}`,
    subdomain: label === null || gw.subdomainHost === null ? null : `https://${label}.ipns.${gw.subdomainHost}${asUrlPath(rest)}`,
    path: rest,
    ipns: info,
  };
}

function arweaveCore(rootText: string, rest: string, notes: Notes): Core {
  if (ARWEAVE_ID_RE.test(rootText)) {
    if (!isCanonicalBase64Url43(rootText)) {
      notes.add(
        'ARWEAVE_ID_NONCANONICAL',
        'warning',
        'The Arweave transaction id has non-zero spare bits in its last character; it is not the canonical base64url of a 32-byte id.',
      );
    }
    return {
      ...emptyCore('arweave'),
      canonical: `ar://${rootText}${rest}`,
      gateway: `${ARWEAVE_GATEWAY}/${rootText}${rest}`,
      path: rest,
      arweave: { transaction_id: rootText, arns_name: null },
      mutable: false,
      contentAddressed: true,
    };
  }
  if (ARNS_NAME_RE.test(rootText)) {
    notes.add(
      'ARWEAVE_NAME_NOT_ID',
      'warning',
      `${quote(rootText)} is not a 43-character base64url transaction id, so it is an ArNS name: it is resolved by the gateway and can be re-pointed (mutable).`,
    );
    return {
      ...emptyCore('arweave'),
      canonical: `ar://${rootText}${rest}`,
      gateway: `https://${rootText.toLowerCase()}.arweave.net${asUrlPath(rest)}`,
      path: rest,
      arweave: { transaction_id: null, arns_name: rootText },
      mutable: true,
    };
  }
  notes.add(
    'ARWEAVE_INVALID',
    'error',
    rootText === ''
      ? 'The ar:// URI has no transaction id or name.'
      : `${quote(rootText)} is neither a 43-character base64url Arweave transaction id nor an ArNS name (1–51 of A–Z a–z 0–9 _ -).`,
  );
  return { ...emptyCore('arweave'), mutable: null };
}

/** Strips repeated `ipfs/` (or `ipns/`) prefixes: `ipfs/ipfs/Qm…` → `Qm…`. */
function stripRepeatedPrefix(s: string, ns: 'ipfs' | 'ipns'): { rest: string; stripped: number } {
  const m = (ns === 'ipfs' ? /^(?:ipfs\/+)+/i : /^(?:ipns\/+)+/i).exec(s);
  return m ? { rest: s.slice(m[0].length), stripped: m[0].length } : { rest: s, stripped: 0 };
}

/**
 * A namespaced content path, after `ipfs://`, `/ipfs/`, a gateway's `/ipfs/`
 * and so on: `ns` says which namespace we are in; `s` starts at the root.
 */
function namespaced(ns: 'ipfs' | 'ipns', s: string, gw: Gateways, notes: Notes): Core {
  let current: 'ipfs' | 'ipns' = ns;
  let text = s;
  const first = stripRepeatedPrefix(text, current);
  if (first.stripped > 0) {
    notes.add(
      current === 'ipfs' ? 'IPFS_DOUBLE_PREFIX_FIXED' : 'IPNS_DOUBLE_PREFIX_FIXED',
      'warning',
      `The URI repeated the /${current}/ namespace (e.g. "${current}://${current}/…"); the extra prefix was removed, leaving a single ${current} namespace.`,
    );
    text = first.rest;
  }
  if (current === 'ipfs' && /^ipns\/+/i.test(text)) {
    notes.add('IPFS_NAMESPACE_WAS_IPNS', 'warning', 'An ipfs:// URI wrapped an /ipns/ path; it was read as ipns://.');
    current = 'ipns';
    text = stripRepeatedPrefix(text, 'ipns').rest;
  }
  const { root, rest } = splitRoot(text);
  if (current === 'ipns') return ipnsCore(root, rest, gw, notes);
  return ipfsOrInvalid(root, rest, gw, notes);
}

/** Counts and removes the slashes after `scheme:`; warns unless there were exactly two. */
function afterSchemeSlashes(after: string, scheme: string, notes: Notes): string {
  const m = /^\/*/.exec(after);
  const n = m ? m[0].length : 0;
  if (n !== 2) {
    notes.add('SCHEME_SLASHES_FIXED', 'warning', `"${scheme}:" was followed by ${n} slash(es) instead of two; read as "${scheme}://".`);
  }
  return after.slice(n);
}

interface Authority {
  userinfo: string | null;
  host: string;
  port: string | null;
  rest: string;
}

function parseAuthority(afterSlashes: string): Authority | string {
  const { root: authority, rest } = splitRoot(afterSlashes);
  const at = authority.lastIndexOf('@');
  const userinfo = at >= 0 ? authority.slice(0, at) : null;
  const hostport = at >= 0 ? authority.slice(at + 1) : authority;
  let host: string;
  let port: string | null = null;
  if (hostport.startsWith('[')) {
    const close = hostport.indexOf(']');
    if (close < 0) return 'the IPv6 host has no closing "]"';
    host = hostport.slice(0, close + 1);
    const tail = hostport.slice(close + 1);
    if (tail !== '') {
      if (!tail.startsWith(':')) return 'unexpected characters after the IPv6 host';
      port = tail.slice(1);
    }
  } else {
    const colon = hostport.lastIndexOf(':');
    host = colon >= 0 ? hostport.slice(0, colon) : hostport;
    port = colon >= 0 ? hostport.slice(colon + 1) : null;
  }
  if (host === '') return 'the URL has no host';
  if (CONTROL_OR_SPACE_RE.test(host) || host.includes('\\')) return 'the host contains spaces, control characters or a backslash';
  if (port !== null && !/^[0-9]*$/.test(port)) return `the port ${quote(port)} is not a number`;
  return { userinfo, host, port, rest };
}

interface SubdomainForm {
  ns: 'ipfs' | 'ipns';
  /** Everything in front of ".ipfs." / ".ipns.", in the host's own letter case. */
  name: string;
  /** The known gateway host matched from the right, or null for the one-label form on any host. */
  gateway: string | null;
}

/**
 * Reads a host as a subdomain gateway. A known gateway (the caller's, or one
 * of KNOWN_SUBDOMAIN_GATEWAYS) is matched from the right, so the name in front
 * may have several labels; on any other host only "{label}.ipfs|ipns.{rest}".
 */
function subdomainForm(host: string, gw: Gateways): SubdomainForm | undefined {
  const bare = host.endsWith('.') ? host.slice(0, -1) : host;
  const lower = bare.toLowerCase();
  const own = gw.subdomainHost === null ? [] : [gw.subdomainHost.replace(/:[0-9]*$/, '')];
  let best: SubdomainForm | undefined;
  for (const gateway of [...own, ...KNOWN_SUBDOMAIN_GATEWAYS]) {
    for (const ns of ['ipfs', 'ipns'] as const) {
      const tail = `.${ns}.${gateway}`;
      if (lower.length > tail.length && lower.endsWith(tail) && (best === undefined || gateway.length > best.gateway!.length)) {
        best = { ns, name: bare.slice(0, bare.length - tail.length), gateway };
      }
    }
  }
  if (best) return best;
  const labels = bare.split('.');
  const ns = (labels[1] ?? '').toLowerCase();
  if (labels.length >= 3 && (ns === 'ipfs' || ns === 'ipns')) return { ns, name: labels[0], gateway: null };
  return undefined;
}

function httpCore(schemeLower: 'http' | 'https', schemeRaw: string, after: string, gw: Gateways, notes: Notes): Core {
  if (!after.startsWith('//')) {
    notes.add('INVALID_URL', 'error', `An ${schemeLower} URL needs "//" and a host after "${schemeRaw}:".`);
    return emptyCore(schemeLower);
  }
  const auth = parseAuthority(after.slice(2));
  if (typeof auth === 'string') {
    notes.add('INVALID_URL', 'error', `Not a valid ${schemeLower} URL: ${auth}.`);
    return emptyCore(schemeLower);
  }
  const hostLower = auth.host.toLowerCase();
  const plain = schemeLower === 'http' ? ' (the gateway URL used plain http)' : '';

  // RFC 1123 host names. "_" is outside them but common (ArNS undernames use
  // it), so it is only a warning on a URL kept as http(s).
  let underscore = false;
  if (!auth.host.startsWith('[')) {
    const problem = dnsNameProblem(auth.host);
    if (problem !== undefined && dnsNameProblem(auth.host.replace(/_/g, 'x')) !== undefined) {
      notes.add(
        'INVALID_HOST',
        'error',
        `Not a valid ${schemeLower} URL: the host ${quote(auth.host)} ${problem} (RFC 1123: labels of 1-63 letters, digits and hyphens, no hyphen at either end, at most 253 characters).`,
      );
      return emptyCore(schemeLower);
    }
    underscore = problem !== undefined;
  }

  // Subdomain gateway: {cid}.ipfs.{gateway} / {name}.ipns.{gateway}
  const form = subdomainForm(auth.host, gw);
  if (form && form.ns === 'ipfs') {
    const single = !form.name.includes('.');
    // Host names are case-insensitive: read the label lowercased, except a
    // case-intact CIDv0 (recoverable, though no subdomain gateway can serve it).
    const v0 = form.name.length === 46 && form.name.startsWith('Qm');
    const label = v0 ? form.name : form.name.toLowerCase();
    const sub = new Notes();
    const caseSensitiveBase = !v0 && !isHostSafeMultibase(label);
    const core = single && !caseSensitiveBase ? ipfsCore(label, auth.rest, gw, sub) : undefined;
    if (core) {
      notes.add('GATEWAY_URL_CANONICALIZED', 'info', `A subdomain gateway URL (host ${hostLower}) was converted to the canonical ipfs:// form${plain}.`);
      if (core.ipfs && (core.ipfs.cid_version === 0 || core.ipfs.input_multibase !== 'base32')) {
        notes.add(
          'SUBDOMAIN_CID_NOT_BASE32',
          'warning',
          'The subdomain held a CID that is not CIDv1 base32; host names are case-insensitive, so such a subdomain URL is unreliable. subdomain_gateway_url uses the CIDv1 base32 form.',
        );
      }
      for (const w of sub.list) notes.add(w.code, w.severity, w.message);
      return core;
    }
    if (label.length >= 40 || form.gateway !== null) {
      // Only a CID-sized label (or a known gateway) is worth a remark; "docs.ipfs.tech" is just a host.
      const bad = parseCid(label);
      const why = !single
        ? 'a CID is one label, this is several'
        : !bad.ok && bad.mangledV0
          ? bad.reason
          : caseSensitiveBase
            ? 'a case-sensitive multibase cannot be carried in a host name'
            : bad.ok
              ? ''
              : bad.reason;
      notes.add(
        'IPFS_SUBDOMAIN_INVALID_CID',
        'warning',
        `The host looks like a subdomain gateway but the name in front of ".ipfs." is not a usable CID${why ? ` (${why})` : ''}; kept as an ${schemeLower} URL.`,
      );
    }
  } else if (form) {
    const name = form.name.toLowerCase();
    let target: string | undefined;
    if (!name.includes('.')) {
      // Only keys in a base that survives lowercasing (k…, b…, f…, …) can sit in a host name.
      const key = isHostSafeMultibase(name) ? parseIpnsKey(name) : undefined;
      if (key !== undefined && key.ok) {
        target = name;
      } else {
        // DNSLink inlined into one label: "--" stands for "-", "-" for ".".
        const decoded = name.replace(/--/g, '\u0000').replace(/-/g, '.').replace(/\u0000/g, '-');
        if (dnsNameProblem(decoded, 2) === undefined) target = decoded;
      }
    } else if (form.gateway !== null && dnsNameProblem(name, 2) === undefined) {
      // Several labels before ".ipns.{known gateway}": the DNSLink name as is.
      target = name;
      notes.add(
        'SUBDOMAIN_DNSLINK_NOT_INLINED',
        'info',
        `The DNSLink name ${quote(name)} was written as several labels in front of ".ipns.${form.gateway}"; https on a subdomain gateway needs it inlined into one label (as in subdomain_gateway_url).`,
      );
    }
    if (target !== undefined) {
      notes.add('GATEWAY_URL_CANONICALIZED', 'info', `A subdomain gateway URL (host ${hostLower}) was converted to the canonical ipns:// form${plain}.`);
      return ipnsCore(target, auth.rest, gw, notes);
    }
    if (form.name.length >= 40 || form.gateway !== null) {
      notes.add(
        'IPNS_SUBDOMAIN_INVALID_NAME',
        'warning',
        `The host looks like an IPNS subdomain gateway but ${quote(form.name)} is neither an IPNS key nor a DNSLink name (inlined as one label, or several labels in front of a known gateway); kept as an ${schemeLower} URL.`,
      );
    }
  }

  // Path gateway: https://{any host}/ipfs/{cid}/… and /ipns/{name}/…
  const gwMatch = /^\/(ipfs|ipns)\/+/i.exec(auth.rest);
  if (gwMatch && gwMatch[1] === gwMatch[1].toLowerCase()) {
    const ns = gwMatch[1] as 'ipfs' | 'ipns';
    const inner = auth.rest.slice(gwMatch[0].length);
    const probe = new Notes();
    const core = namespaced(ns, inner, gw, probe);
    if (core.canonical !== null) {
      notes.add('GATEWAY_URL_CANONICALIZED', 'info', `A path gateway URL (host ${hostLower}) was converted to the canonical ${core.kind}:// form${plain}.`);
      for (const w of probe.list) notes.add(w.code, w.severity, w.message);
      return core;
    }
    notes.add(
      'GATEWAY_PATH_NOT_CONTENT',
      'warning',
      `The path starts with /${ns}/ but no valid ${ns === 'ipfs' ? 'CID' : 'IPNS name'} follows (${probe.list.filter((w) => w.severity === 'error').map((w) => w.message).join(' ')}); kept as an ${schemeLower} URL.`,
    );
  }

  // Arweave gateway: https://arweave.net/{43-char id}/…
  if (hostLower === 'arweave.net' || hostLower.endsWith('.arweave.net')) {
    const m = /^\/([A-Za-z0-9_-]{43})(?=$|[/?#])/.exec(auth.rest);
    if (m) {
      notes.add('GATEWAY_URL_CANONICALIZED', 'info', `An Arweave gateway URL (host ${hostLower}) was converted to the canonical ar:// form${plain}.`);
      return arweaveCore(m[1], auth.rest.slice(m[0].length), notes);
    }
  }

  // Plain http(s) URL: lowercase scheme and host only.
  if (hostLower !== auth.host) notes.add('HOST_LOWERCASED', 'info', 'The host was lowercased (host names are case-insensitive); nothing else was changed.');
  if (underscore) {
    notes.add(
      'HOST_UNDERSCORE',
      'warning',
      `The host ${quote(hostLower)} contains "_", which RFC 1123 host names do not allow; kept as given, but some resolvers, TLS certificates and clients refuse it.`,
    );
  }
  if (auth.userinfo !== null) {
    notes.add('URL_HAS_CREDENTIALS', 'warning', 'The URL carries user information (user:password@) before the host; it is kept as given but should not be shared.');
  }
  if (schemeLower === 'http') {
    notes.add('PLAIN_HTTP', 'warning', 'Plain http: the metadata can be altered in transit and the server can change it at any time. Not upgraded to https.');
  }
  const hostport = hostLower + (auth.port !== null ? ':' + auth.port : '');
  const canonical = `${schemeLower}://${auth.userinfo !== null ? auth.userinfo + '@' : ''}${hostport}${auth.rest}`;
  return {
    ...emptyCore(schemeLower),
    canonical,
    gateway: canonical,
    path: auth.rest,
    http: { host: hostLower, port: auth.port, has_userinfo: auth.userinfo !== null },
    mutable: true,
  };
}

function looksLikeArweaveId(s: string): boolean {
  return ARWEAVE_ID_RE.test(s);
}

function classify(s: string, gw: Gateways, notes: Notes): Core {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(s);
  if (scheme) {
    const raw = scheme[1];
    const lower = raw.toLowerCase();
    const after = s.slice(raw.length + 1);
    const known = ['ipfs', 'ipns', 'ar', 'data', 'http', 'https', 'dweb'].includes(lower);
    if (known && raw !== lower) notes.add('SCHEME_LOWERCASED', 'info', `The scheme "${raw}:" was lowercased.`);
    switch (lower) {
      case 'ipfs':
      case 'ipns':
        return namespaced(lower, afterSchemeSlashes(after, lower, notes), gw, notes);
      case 'ar':
        return arweaveCore(...rootAndRest(afterSchemeSlashes(after, 'ar', notes)), notes);
      case 'data':
        return dataCore(after, notes);
      case 'http':
      case 'https':
        return httpCore(lower, raw, after, gw, notes);
      case 'dweb': {
        const body = after.replace(/^\/+/, '');
        const m = /^(ipfs|ipns)\/+/i.exec(body);
        if (m) {
          const ns = m[1].toLowerCase() as 'ipfs' | 'ipns';
          notes.add('DWEB_SCHEME_CONVERTED', 'info', `A dweb:/${ns}/ address was converted to the canonical ${ns}:// form.`);
          return namespaced(ns, body.slice(m[0].length), gw, notes);
        }
        notes.add('UNSUPPORTED_SCHEME', 'error', 'A dweb: URI must continue with /ipfs/ or /ipns/.');
        return emptyCore('unsupported');
      }
      default:
        notes.add(
          'UNSUPPORTED_SCHEME',
          'error',
          `The scheme "${raw}:" is not an NFT metadata location this service understands (ipfs, ipns, ar, data, https, http).`,
        );
        return emptyCore('unsupported');
    }
  }

  // No scheme: /ipfs/…, ipfs/…, /ipns/…, ipns/…, or a bare CID.
  const pathForm = /^\/?(ipfs|ipns)\/+/i.exec(s);
  if (pathForm) {
    const ns = pathForm[1].toLowerCase() as 'ipfs' | 'ipns';
    notes.add('IPFS_PATH_FORM_CONVERTED', 'info', `A content path ("${pathForm[0]}…") was converted to the canonical ${ns}:// form.`);
    return namespaced(ns, s.slice(pathForm[0].length), gw, notes);
  }
  const { root, rest } = splitRoot(s);
  // A gateway URL with its scheme left out: "ipfs.io/ipfs/{cid}/…".
  if (root.includes('.') && /^\/(ipfs|ipns)\/+/.test(rest)) {
    const probe = new Notes();
    const m = /^\/(ipfs|ipns)\/+/.exec(rest)!;
    const core = namespaced(m[1] as 'ipfs' | 'ipns', rest.slice(m[0].length), gw, probe);
    if (core.canonical !== null) {
      notes.add(
        'GATEWAY_URL_CANONICALIZED',
        'info',
        `A gateway URL without a scheme (host ${root.toLowerCase()}) was converted to the canonical ${core.kind}:// form.`,
      );
      for (const w of probe.list) notes.add(w.code, w.severity, w.message);
      return core;
    }
  }
  if (root !== '' && !root.includes('.')) {
    const probe = new Notes();
    const core = ipfsCore(root, rest, gw, probe);
    if (core) {
      notes.add('BARE_CID_CONVERTED', 'info', 'A bare CID (no scheme) was converted to the canonical ipfs:// form.');
      for (const w of probe.list) notes.add(w.code, w.severity, w.message);
      return core;
    }
    const parsed = parseCid(root);
    if (!parsed.ok && (parsed.mangledV0 || /^Qm[1-9A-HJ-NP-Za-km-z]{40,}$/.test(root) || /^baf[a-z2-7]{40,}$/i.test(root))) {
      reportBadCid(root, notes);
      return { ...emptyCore('ipfs'), mutable: false };
    }
  }
  const hint = looksLikeArweaveId(root) ? ' It has the shape of an Arweave transaction id; if so, write it as ar://{id}.' : '';
  notes.add(
    'UNRECOGNIZED_URI',
    'error',
    `The value has no scheme and is not a CID or an /ipfs/ or /ipns/ path, so it cannot be normalized.${hint}`,
  );
  return emptyCore('unsupported');
}

function rootAndRest(s: string): [string, string] {
  const { root, rest } = splitRoot(s);
  return [root, rest];
}

// ---------------------------------------------------------------------------
// data: URIs (RFC 2397)

function dataCore(after: string, notes: Notes): Core {
  if (!after.includes(',')) {
    notes.add('DATA_URI_MISSING_COMMA', 'error', 'A data: URI needs a "," between its media type and its data (RFC 2397).');
    return { ...emptyCore('data'), mutable: false };
  }
  return { ...emptyCore('data'), canonical: `data:${after}`, mutable: false };
}

const MAX_DATA_PARAMETERS = 64;
/** Deepest JSON nesting in data: content that is parsed into `data.json`; real metadata nests a few levels. */
export const MAX_DATA_JSON_DEPTH = 64;

const TOKEN_CHARS_RE = /^[A-Za-z0-9!#$&^_.+-]+$/;
/** RFC 2396 `uric` minus "%", which is handled as an escape. */
const URIC_RE = /^[A-Za-z0-9;/?:@&=+$,\-_.!~*'()]$/;

function isTextual(mediaType: string, hasCharset: boolean): boolean {
  return (
    hasCharset ||
    mediaType.startsWith('text/') ||
    /(?:^application\/|\+)json$/.test(mediaType) ||
    /(?:^application\/|^text\/|\+)xml$/.test(mediaType) ||
    mediaType === 'application/javascript' ||
    mediaType === 'application/ecmascript'
  );
}

function isJsonType(mediaType: string): boolean {
  return /^application\/(?:[A-Za-z0-9!#$&^_.-]+\+)?json$/.test(mediaType) || mediaType === 'text/json';
}

function utf8Bytes(cp: number): number[] {
  if (cp < 0x80) return [cp];
  if (cp < 0x800) return [0xc0 | (cp >> 6), 0x80 | (cp & 63)];
  if (cp < 0x10000) return [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
  return [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
}

/** Percent-decodes to bytes; non-ASCII characters are taken as UTF-8. */
function percentDecode(s: string): { bytes: Uint8Array; badEscape: boolean; unencoded: boolean } {
  const out: number[] = [];
  let badEscape = false;
  let unencoded = false;
  for (let i = 0; i < s.length; ) {
    const c = s[i];
    if (c === '%') {
      const hex = s.slice(i + 1, i + 3);
      if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
        out.push(parseInt(hex, 16));
        i += 3;
        continue;
      }
      badEscape = true;
      out.push(0x25);
      i += 1;
      continue;
    }
    const cp = s.codePointAt(i) ?? 0;
    if (!URIC_RE.test(c)) unencoded = true;
    // A lone surrogate is encoded as U+FFFD, as TextEncoder would.
    const safe = cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp;
    for (const b of utf8Bytes(safe)) out.push(b);
    i += cp > 0xffff ? 2 : 1;
  }
  return { bytes: Uint8Array.from(out), badEscape, unencoded };
}

const B64_INDEX: ReadonlyMap<string, number> = (() => {
  const m = new Map<string, number>();
  const a = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < a.length; i++) m.set(a[i], i);
  m.set('-', 62);
  m.set('_', 63);
  return m;
})();

/** Forgiving base64 (WHATWG): optional padding, spare bits ignored; also takes the URL-safe alphabet. */
function base64Decode(s: string, notes: Notes): Uint8Array | undefined {
  let text = s;
  if (/[\t\n\f\r ]/.test(text)) {
    notes.add('DATA_BASE64_WHITESPACE_REMOVED', 'info', 'Whitespace inside the base64 data was ignored.');
    text = text.replace(/[\t\n\f\r ]/g, '');
  }
  if (text.length % 4 === 0) text = text.replace(/={1,2}$/, '');
  if (/[-_]/.test(text) && !/[+/]/.test(text)) {
    notes.add('DATA_BASE64_URL_ALPHABET', 'warning', 'The data uses the URL-safe base64 alphabet (- and _); decoded, but many clients reject it.');
  }
  if (text.length % 4 === 1) return undefined;
  const out = new Uint8Array(Math.floor((text.length * 6) / 8));
  let buffer = 0;
  let bits = 0;
  let n = 0;
  for (const c of text) {
    const v = B64_INDEX.get(c);
    if (v === undefined) return undefined;
    buffer = ((buffer << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (buffer >> bits) & 0xff;
    }
  }
  return out.subarray(0, n);
}

function decodeText(bytes: Uint8Array, charset: string, notes: Notes): string {
  const label = charset === 'us-ascii' || charset === 'ascii' || charset === 'utf8' ? 'utf-8' : charset;
  let decoderLabel = label;
  try {
    new TextDecoder(decoderLabel);
  } catch {
    notes.add('DATA_CHARSET_UNSUPPORTED', 'warning', `The charset ${quote(charset)} is not supported; the data was decoded as UTF-8.`);
    decoderLabel = 'utf-8';
  }
  try {
    return new TextDecoder(decoderLabel, { fatal: true }).decode(bytes);
  } catch {
    notes.add('DATA_TEXT_INVALID', 'warning', `The data is not valid ${decoderLabel}; invalid sequences were replaced with U+FFFD.`);
    return new TextDecoder(decoderLabel).decode(bytes);
  }
}

function dataDetails(canonical: string, notes: Notes): { info: DataInfo; decodeFailed: boolean } {
  const after = canonical.slice('data:'.length);
  const comma = after.indexOf(',');
  const header = after.slice(0, comma);
  const payload = after.slice(comma + 1);
  const parts = header.split(';');
  let base64 = false;
  if (parts.length > 1 && parts[parts.length - 1].trim().toLowerCase() === 'base64') {
    base64 = true;
    parts.pop();
  }
  let first = parts[0].trim();
  const paramParts = parts.slice(1);
  if (first.includes('=') && !first.includes('/')) {
    // "data:charset=utf-8,…": a parameter with the media type left out.
    paramParts.unshift(first);
    first = '';
  }
  let mediaType = first.toLowerCase();
  const omitted = mediaType === '';
  if (omitted) mediaType = 'text/plain';
  else if (!/^[^/]+\/[^/]+$/.test(mediaType) || !mediaType.split('/').every((t) => TOKEN_CHARS_RE.test(t))) {
    notes.add('DATA_MEDIA_TYPE_INVALID', 'warning', `${quote(first)} is not a type/subtype media type.`);
  }
  const parameters: DataParameter[] = [];
  let charset: string | null = null;
  let utf8Flag = false;
  for (const p of paramParts) {
    const t = p.trim();
    if (t === '') continue;
    if (parameters.length >= MAX_DATA_PARAMETERS) {
      notes.add('DATA_PARAMETERS_TRUNCATED', 'warning', `Only the first ${MAX_DATA_PARAMETERS} media type parameters are listed.`);
      break;
    }
    const eq = t.indexOf('=');
    if (eq < 0) {
      const flag = t.toLowerCase();
      parameters.push({ name: flag, value: null });
      if (flag === 'utf8' || flag === 'utf-8') {
        utf8Flag = true;
        notes.add('DATA_UTF8_FLAG', 'info', `";${t}" is not an RFC 2397 parameter, but it is common; read as charset=utf-8 with the data unencoded.`);
      } else {
        notes.add('DATA_PARAMETER_UNRECOGNIZED', 'warning', `The data: URI has a parameter without a value: ${quote(t)}.`);
      }
      continue;
    }
    const name = t.slice(0, eq).trim().toLowerCase();
    const value = t.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    parameters.push({ name, value });
    if (name === 'charset') charset = value.toLowerCase();
  }
  if (charset === null && utf8Flag) charset = 'utf-8';
  const textual = isTextual(mediaType, charset !== null);
  // RFC 2397: an omitted media type means text/plain;charset=US-ASCII. Otherwise
  // UTF-8 (a superset of US-ASCII) is assumed when no charset is declared.
  const effectiveCharset = textual ? (charset ?? (omitted ? 'us-ascii' : 'utf-8')) : null;

  const pd = percentDecode(payload);
  if (pd.badEscape) notes.add('DATA_PERCENT_ENCODING_INVALID', 'warning', 'A "%" in the data is not followed by two hex digits; it was kept as a literal "%".');
  let bytes: Uint8Array | undefined = pd.bytes;
  if (base64) {
    bytes = base64Decode(latin1(pd.bytes), notes);
    if (!bytes) {
      notes.add('DATA_BASE64_INVALID', 'error', 'The data is marked ;base64 but is not valid base64, so it cannot be decoded.');
    }
  } else if (pd.unencoded) {
    notes.add(
      'DATA_UNENCODED_CHARACTERS',
      'info',
      'The data contains characters RFC 2397 requires to be percent-encoded (e.g. spaces, quotes, braces); they were read as UTF-8 text.',
    );
  }
  const info: DataInfo = {
    media_type: mediaType,
    media_type_omitted: omitted,
    parameters,
    charset: effectiveCharset,
    encoding: base64 ? 'base64' : 'percent',
    byte_length: bytes ? bytes.length : null,
    text: null,
    is_json: false,
    json: null,
  };
  if (!bytes) return { info, decodeFailed: true };
  if (effectiveCharset === null) {
    notes.add('DATA_BINARY_NOT_DECODED', 'info', `The ${mediaType} data is binary; its length is reported but it is not returned as text.`);
    return { info, decodeFailed: false };
  }
  const text = decodeText(bytes, effectiveCharset, notes);
  info.text = text;
  const jsonType = isJsonType(mediaType);
  const trimmed = text.trim();
  if ((jsonType || trimmed.startsWith('{') || trimmed.startsWith('[')) && jsonNestingExceeds(text, MAX_DATA_JSON_DEPTH)) {
    // Parsed, it would be returned nested thousands of levels deep, which no serializer can be trusted to write: kept as text only.
    notes.add(
      'DATA_JSON_TOO_DEEP',
      'warning',
      `The data nests arrays and objects more than ${MAX_DATA_JSON_DEPTH} levels deep; it is returned as text only (is_json false, json null).`,
    );
  } else if (jsonType || trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      info.json = JSON.parse(text) as unknown;
      info.is_json = true;
      if (!jsonType) {
        notes.add('DATA_JSON_MEDIA_TYPE_MISMATCH', 'info', `The data parses as JSON although its media type is ${mediaType}.`);
      }
    } catch (e) {
      if (jsonType) {
        const why = e instanceof Error ? e.message : 'parse error';
        notes.add('DATA_JSON_INVALID', 'warning', `The data is declared as JSON but does not parse: ${why}.`);
      }
    }
  }
  if (/\{id\}/.test(text)) {
    notes.add(
      'DATA_CONTAINS_ID_PLACEHOLDER',
      'info',
      'The decoded metadata contains "{id}"; clients substitute it inside URIs in the metadata, which this service does not do.',
    );
  }
  return { info, decodeFailed: false };
}

function latin1(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 8192) {
    s += String.fromCharCode(...bytes.subarray(i, i + 8192));
  }
  return s;
}

// ---------------------------------------------------------------------------
// Request options

/** Parses a token id (decimal or 0x-hex) to a BigInt; undefined if malformed. */
export function parseTokenId(tokenId: string): bigint | undefined {
  if (!TOKEN_ID_RE.test(tokenId)) return undefined;
  return BigInt(tokenId.toLowerCase());
}

/** ERC-1155 `{id}`: lowercase hex, no 0x, left-padded to 64 characters. */
export function tokenIdHex64(id: bigint): string {
  return id.toString(16).padStart(64, '0');
}

/** Returns the normalized gateway origin, or a reason it is unusable. */
export function normalizeGateway(gateway: string): string | { reason: string } {
  if (!GATEWAY_RE.test(gateway)) return { reason: 'it must be an https origin such as https://ipfs.io' };
  const noSlash = gateway.replace(/\/$/, '');
  const hostport = noSlash.slice('https://'.length);
  const colon = hostport.indexOf(':');
  const host = (colon >= 0 ? hostport.slice(0, colon) : hostport).toLowerCase();
  const port = colon >= 0 ? hostport.slice(colon + 1) : null;
  if (host.length > 253) return { reason: 'the host is longer than 253 characters' };
  if (port !== null && (Number(port) < 1 || Number(port) > 65535)) return { reason: 'the port must be 1 to 65535' };
  return `https://${host}${port !== null ? ':' + port : ''}`;
}

// ---------------------------------------------------------------------------
// Entry point

function trimEdges(raw: string, notes: Notes): string {
  // Index scans, not regexes: a long run of spaces inside the value must not
  // make trimming quadratic.
  const trimmable = (c: string): boolean => c === '\u0000' || /\s/.test(c);
  let whitespace = false;
  let leadingNul = false;
  let trailingNul = false;
  let start = 0;
  let end = raw.length;
  while (start < end && trimmable(raw[start])) {
    if (raw[start] === '\u0000') leadingNul = true;
    else whitespace = true;
    start++;
  }
  while (end > start && trimmable(raw[end - 1])) {
    if (raw[end - 1] === '\u0000') trailingNul = true;
    else whitespace = true;
    end--;
  }
  const s = raw.slice(start, end);
  if (whitespace) notes.add('WHITESPACE_TRIMMED', 'warning', 'Leading or trailing whitespace was removed.');
  if (trailingNul) {
    notes.add('TRAILING_NUL_TRIMMED', 'warning', 'Trailing NUL characters (typical of a fixed-size bytes32 string) were removed.');
  }
  if (leadingNul) notes.add('LEADING_NUL_TRIMMED', 'warning', 'Leading NUL characters were removed.');
  return s;
}

const PLACEHOLDER_RE = /\{id\}|%7[Bb]id%7[Dd]/g;
/** More {id} placeholders than this are not substituted (each grows the URI by 60 characters). */
const MAX_PLACEHOLDERS = 64;

/**
 * Normalizes one NFT metadata URI. Never throws; a URI that cannot be
 * normalized is reported with `valid: false` and error-severity warnings.
 */
export function normalizeNftUri(request: NormalizerRequest): NormalizerResponse {
  const notes = new Notes();
  const raw = typeof request.uri === 'string' ? request.uri : '';

  let gatewayPath = DEFAULT_IPFS_GATEWAY;
  if (request.ipfs_gateway !== undefined) {
    const g = normalizeGateway(request.ipfs_gateway);
    if (typeof g === 'string') gatewayPath = g;
    else notes.add('IPFS_GATEWAY_IGNORED', 'warning', `ipfs_gateway was not used (${g.reason}); ${DEFAULT_IPFS_GATEWAY} was used instead.`);
  }
  const gw: Gateways = {
    path: gatewayPath,
    subdomainHost:
      gatewayPath === DEFAULT_IPFS_GATEWAY
        ? DEFAULT_SUBDOMAIN_HOST
        : /^https:\/\/[0-9.]+(?::|$)/.test(gatewayPath)
          ? null
          : gatewayPath.slice('https://'.length),
  };

  const s = trimEdges(raw, notes);
  let core: Core;
  if (s === '') {
    notes.add('EMPTY_URI', 'error', 'The URI is empty (after trimming), so there is nothing to normalize.');
    core = emptyCore('unsupported');
  } else {
    core = classify(s, gw, notes);
  }
  if (core.kind !== 'data' && CONTROL_OR_SPACE_RE.test(s)) {
    notes.add(
      'CONTAINS_SPACE_OR_CONTROL',
      'warning',
      'The URI contains spaces or control characters, which are not allowed unencoded in a URI; kept as given.',
    );
  }

  // ERC-1155 {id} substitution, after normalization.
  const template = core.canonical;
  const placeholderFound = (template ?? s).search(PLACEHOLDER_RE) >= 0;
  const sub: IdSubstitution = {
    placeholder_found: placeholderFound,
    token_id: request.token_id ?? null,
    token_id_decimal: null,
    token_id_hex: null,
    applied: false,
    template_uri: template,
  };
  let hex: string | null = null;
  if (request.token_id !== undefined) {
    const id = parseTokenId(request.token_id);
    if (id === undefined) {
      notes.add('TOKEN_ID_INVALID', 'warning', 'token_id is not decimal digits or 0x-hex; it was not used.');
    } else if (id > MAX_UINT256) {
      notes.add('TOKEN_ID_OUT_OF_RANGE', 'warning', 'token_id is above 2^256-1; it was not used.');
    } else {
      hex = tokenIdHex64(id);
      sub.token_id_decimal = id.toString(10);
      sub.token_id_hex = hex;
    }
  }
  if (placeholderFound && template !== null && /%7[Bb]id%7[Dd]/.test(template)) {
    notes.add('ID_PLACEHOLDER_PERCENT_ENCODED', 'info', 'The URI contains a percent-encoded "{id}" placeholder (%7Bid%7D), treated like "{id}".');
  }
  const substitute = (v: string | null): string | null => (v === null || hex === null ? v : v.replace(PLACEHOLDER_RE, hex));
  if (placeholderFound && template !== null) {
    const count = (template.match(PLACEHOLDER_RE) ?? []).length;
    if (hex !== null && count > MAX_PLACEHOLDERS) {
      notes.add(
        'TOO_MANY_ID_PLACEHOLDERS',
        'warning',
        `The URI contains ${count} "{id}" placeholders (more than ${MAX_PLACEHOLDERS}); none were substituted.`,
      );
      hex = null;
    } else if (hex !== null) {
      sub.applied = true;
      notes.add('TOKEN_ID_SUBSTITUTED', 'info', `ERC-1155 "{id}" was replaced with the 64-digit lowercase hex token id ${hex}.`);
    } else if (request.token_id === undefined) {
      notes.add(
        'MISSING_TOKEN_ID',
        'warning',
        'The URI contains the ERC-1155 "{id}" placeholder but no token_id was given; pass token_id to get the URI of one token.',
      );
    }
  } else if (hex !== null && template !== null) {
    notes.add('TOKEN_ID_UNUSED', 'info', 'token_id was given but the URI has no "{id}" placeholder; the URI is the same for every token.');
  }

  const canonical = substitute(core.canonical);
  let data: DataInfo | null = null;
  let dataFailed = false;
  if (core.kind === 'data' && canonical !== null) {
    const d = dataDetails(canonical, notes);
    data = d.info;
    dataFailed = d.decodeFailed;
  }

  const valid = canonical !== null && !notes.hasError && !dataFailed;
  return {
    raw_uri: raw,
    canonical_uri: canonical,
    kind: core.kind,
    valid,
    gateway_url: substitute(core.gateway),
    subdomain_gateway_url: substitute(core.subdomain),
    path: substitute(core.path),
    ipfs: core.ipfs,
    ipns: core.ipns,
    arweave: core.arweave,
    http: core.http,
    data,
    id_substitution: sub,
    on_chain: core.kind === 'data' && canonical !== null,
    mutable: canonical === null ? null : core.mutable,
    content_addressed: core.contentAddressed,
    warnings: notes.list,
    limitations: [...LIMITATIONS],
    evidence: { ...EVIDENCE },
  };
}
