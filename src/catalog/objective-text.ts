/**
 * What the router reads out of an objective's text: #RRGGBB colours (paired
 * into contrast inputs), URIs and URLs, ISO 8601 dates. Pure functions of the
 * text, so a quote is a pure function of the request.
 */

/** Lower-case, one space between words: the form keyword rules are written against. */
export function normalizeText(s: string): string {
  return s.toLowerCase().replace(/\s+/g, ' ').trim();
}

// ─── colours ────────────────────────────────────────────────────────────────

export interface ColourPair {
  foreground: string;
  background: string;
}

export interface ColourReading {
  /** Every #RRGGBB in the text, in order. */
  colours: string[];
  pairs: ColourPair[];
  /** Set when the colours cannot be paired (an odd count that is not "A, B and C on D"). */
  unpaired?: string;
  /** How the pairs were formed, for the quote's assumptions. */
  how?: string;
}

const COLOUR = /(?<![&\w#])#[0-9a-fA-F]{6}(?![0-9A-Za-z])/g;
const ON_WORD = /\b(?:on|against|over|behind|background|bg)\b/i;
const BG_LABEL = /\b(?:background|bg|backdrop)\b[\s:=-]*(?:colou?r)?[\s:=-]*$/i;
const FG_LABEL = /\b(?:foreground|fg|text|font)\b[\s:=-]*(?:colou?r)?[\s:=-]*$/i;

/**
 * Colours in the order written, paired:
 * - "A on B", "A/B, C/D", "A vs B and C vs D": consecutive pairs (foreground first);
 * - "A, B and C on D": one background after the only "on", every earlier colour a foreground;
 * - two colours labelled "background A … text B": the labels win.
 */
export function readColours(text: string): ColourReading {
  const found: Array<{ value: string; start: number; end: number }> = [];
  for (const m of text.matchAll(COLOUR)) found.push({ value: m[0].toLowerCase(), start: m.index!, end: m.index! + m[0].length });
  const colours = found.map((f) => f.value);
  if (found.length < 2) return { colours, pairs: [], unpaired: found.length === 1 ? colours[0] : undefined };
  const separators = found.slice(1).map((f, i) => text.slice(found[i]!.end, f.start));

  if (found.length >= 3) {
    const onAt = separators.map((s) => ON_WORD.test(s));
    if (onAt[onAt.length - 1] && onAt.filter(Boolean).length === 1) {
      const background = colours[colours.length - 1]!;
      return {
        colours,
        pairs: colours.slice(0, -1).map((foreground) => ({ foreground, background })),
        how: `${colours.length - 1} foreground colours on the one background ${background} named last in the objective`,
      };
    }
  }
  if (found.length % 2 === 1) {
    return { colours, pairs: [], unpaired: colours[colours.length - 1] };
  }
  const pairs: ColourPair[] = [];
  for (let i = 0; i < found.length; i += 2) {
    let foreground = colours[i]!;
    let background = colours[i + 1]!;
    if (found.length === 2) {
      const before0 = text.slice(Math.max(0, found[0]!.start - 30), found[0]!.start);
      const before1 = text.slice(Math.max(0, found[1]!.start - 30), found[1]!.start);
      if (BG_LABEL.test(before0) && !BG_LABEL.test(before1) && !FG_LABEL.test(before0)) [foreground, background] = [background, foreground];
      else if (FG_LABEL.test(before1) && !FG_LABEL.test(before0) && !BG_LABEL.test(before1)) [foreground, background] = [background, foreground];
    }
    pairs.push({ foreground, background });
  }
  return { colours, pairs, how: pairs.length === 1 ? 'the two colours in the objective, foreground first' : 'consecutive colours in the objective, foreground first in each pair' };
}

/** large_text as stated in words, or undefined when the text does not say. */
export function readLargeText(text: string): boolean | undefined {
  const t = normalizeText(text);
  const large = /\blarge[- ]?(?:text|type|font|print)\b|\b(?:18|24) ?(?:pt|px)\b|\b14 ?pt bold\b|\bbold 14 ?pt\b|\bheadings?\b|\bheadlines?\b/.test(t);
  const normal = /\b(?:normal|body|small|regular|paragraph)[- ]?(?:text|type|font|copy)\b/.test(t);
  if (large && !normal) return true;
  if (normal && !large) return false;
  return undefined;
}

// ─── URIs and URLs ──────────────────────────────────────────────────────────

export interface TextUri {
  value: string;
  /** ipfs://, ipns://, ar://, data: or a bare CID: an NFT-style identifier. http(s) URLs are `url`. */
  kind: 'nft' | 'url';
}

const URI_PATTERNS = [
  /\b(?:ipfs|ipns|ar):\/\/[^\s"'<>`]+/gi,
  /\bdata:[a-z]+\/[a-z0-9.+-]+[^\s"'<>`]*/gi,
  /\bhttps?:\/\/[^\s"'<>`]+/gi,
  /(?<![\w/.:-])(?:Qm[1-9A-HJ-NP-Za-km-z]{44}|bafy[a-z2-7]{50,})(?:\/[^\s"'<>`]*)?/g,
];
const TRAILING = /[.,;:!?)\]}'"]+$/;

/** URIs and URLs in the text in order of appearance, trailing punctuation removed. */
export function readUris(text: string): TextUri[] {
  const hits: Array<{ at: number; value: string; kind: TextUri['kind'] }> = [];
  const taken: Array<[number, number]> = [];
  for (const re of URI_PATTERNS) {
    for (const m of text.matchAll(re)) {
      const start = m.index!;
      let value = m[0];
      // Keep a closing brace that belongs to an ERC-1155 {id} template.
      const stripped = value.replace(TRAILING, '');
      value = stripped.endsWith('{id') ? stripped + '}' : stripped;
      const end = start + value.length;
      if (value.length < 8 || taken.some(([a, b]) => start < b && end > a)) continue;
      taken.push([start, end]);
      hits.push({ at: start, value, kind: /^https?:/i.test(value) ? 'url' : 'nft' });
    }
  }
  hits.sort((a, b) => a.at - b.at);
  return hits.map(({ value, kind }) => ({ value, kind }));
}

/** An http(s) URL that points at an IPFS/IPNS gateway or Arweave: a token URI in URL form, not a page. */
export function isGatewayUrl(url: string): boolean {
  return /^https?:\/\/[^/]*(?:\.ipfs\.|\.ipns\.)|^https?:\/\/[^/]+\/(?:ipfs|ipns)\/|^https?:\/\/(?:[^/]+\.)?arweave\.net\//i.test(url);
}

/** The path of a URL, or of a bare "/x402/v1/…" route written in the text. */
export function pathOf(url: string): string | undefined {
  try {
    return new URL(url).pathname;
  } catch {
    return undefined;
  }
}

// ─── dates ──────────────────────────────────────────────────────────────────

const ISO = /(?<![\w-])(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?(?![\w:])/i;

export interface Timestamp {
  /** RFC 3339 date-time, e.g. 2025-06-01T00:00:00Z. */
  value: string;
  /** What was filled in (midnight, UTC), for the quote's assumptions. */
  filled: string[];
}

/**
 * An ISO 8601 date or date-time as an RFC 3339 timestamp: a date means
 * midnight UTC, a time without offset means UTC. Undefined when there is none
 * or it is not a real calendar date.
 */
export function toTimestamp(s: string, anywhere = false): Timestamp | undefined {
  const m = anywhere ? ISO.exec(s) : new RegExp(`^${ISO.source}$`, 'i').exec(s.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, sec, frac, zone] = m;
  const filled: string[] = [];
  const time = h === undefined ? (filled.push('midnight'), '00:00:00') : `${h}:${mi}:${sec ?? (filled.push('seconds'), '00')}${frac ?? ''}`;
  let offset = zone ?? (filled.push('UTC'), 'Z');
  if (/^[+-]\d{4}$/.test(offset)) offset = `${offset.slice(0, 3)}:${offset.slice(3)}`;
  if (offset === 'z') offset = 'Z';
  const value = `${y}-${mo}-${d}T${time}${offset}`;
  const t = Date.parse(value);
  if (Number.isNaN(t)) return undefined;
  // Date.parse rolls 2025-02-30 over to March; a real date survives the round trip.
  const probe = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (probe.getUTCFullYear() !== Number(y) || probe.getUTCMonth() !== Number(mo) - 1 || probe.getUTCDate() !== Number(d)) return undefined;
  if (Number(h ?? 0) > 23 || Number(mi ?? 0) > 59 || Number(sec ?? 0) > 59) return undefined;
  return { value, filled };
}

/** The first date in the text, preferring one right after "since", "after" or "from". */
export function readTimestamp(text: string): Timestamp | undefined {
  const after = /\b(?:since|after|from)\s+(?:the\s+)?(\d{4}-\d{2}-\d{2}[^\s,;]*)/i.exec(text);
  if (after) {
    const t = toTimestamp(after[1]!.replace(TRAILING, ''), true);
    if (t) return t;
  }
  return toTimestamp(text, true);
}

// ─── negation ───────────────────────────────────────────────────────────────

const NEGATION =
  /\b(?:without|no|not|never|don't|dont|do not|doesn't|does not|won't|will not|nor|avoid|avoiding|instead of)\b(?:\s+(?:any|the|a|an|it|them|to|be|being|need|needing|doing|further|additional|extra|outbound|external|real|actual|live|remote|use|using|via|through|an?|my|mcp|wallet|server|endpoint))*\s+[\w-]+/gi;

/** The text with negated phrases ("without fetching", "do not browse") blanked out. */
export function withoutNegations(text: string): string {
  return text.replace(NEGATION, ' ');
}
