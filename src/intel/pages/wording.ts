/** How the pages say things: dates, tiers, source types, links to pages and to the JSON. */
import type { EvidenceTier, SourceType } from '../tiers.js';
import { EVIDENCE_TIERS } from '../tiers.js';
import type { EntityType, NewswireItem } from '../types.js';
import { html, type Html } from './html.js';

export const FEED_PAGE_PATH = '/newswire';
export const ITEM_PAGE_PATH = '/newswire/{slug}';
export const GRAPH_PAGE_PATH = '/graph';
/** The JSON every page is a view of. */
export const API_PATH = '/v1/newswire';

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

export const SOURCE_TYPE_LABELS: Record<SourceType, string> = {
  newsroom_original: 'Newsroom original',
  official_announcement: 'Official announcement',
  first_party: 'First-party source',
  authoritative_documentation: 'Authoritative documentation',
  protocol_release: 'Protocol release',
  vendor_documentation: 'Vendor documentation',
  github_maintainer: 'Project repository (maintainers)',
  market_observation: 'Market observation',
  public_forum: 'Public forum',
  standards_body: 'Standards body',
};

export function typeLabel(type: string): string {
  const words = type.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const ENTITY_TYPE_LABELS: Record<EntityType, string> = {
  PROTOCOL: 'Protocol',
  MARKETPLACE: 'Marketplace',
  WALLET_PRODUCT: 'Wallet',
  ORGANIZATION: 'Organization',
  NETWORK: 'Network',
  PAYMENT_RAIL: 'Payment rail',
  DIRECTORY: 'Directory',
  EVENT: 'Event',
  MCP_TOOL: 'MCP tool',
  MCP_SERVER: 'MCP server',
  X402_RESOURCE: 'x402 resource',
  ASSET: 'Asset',
};

export function entityTypeLabel(type: EntityType): string {
  return ENTITY_TYPE_LABELS[type];
}

export function tierLetter(tier: EvidenceTier): string {
  return tier.slice(-1);
}

/** The event date as precise as the sources support it, with a machine-readable `datetime`. */
export function eventDate(item: Pick<NewswireItem, 'eventDate' | 'datePrecision'>): Html {
  const [y, m, d] = item.eventDate.split('-');
  const month = MONTHS[Number(m) - 1] ?? m;
  if (item.datePrecision === 'year') return html`<time datetime="${y}">${y}</time>`;
  if (item.datePrecision === 'month') return html`<time datetime="${y}-${m}">${month} ${y}</time>`;
  return html`<time datetime="${item.eventDate}">${Number(d)} ${month} ${y}</time>`;
}

/**
 * The day the item's sources were last checked (its observedAt): the
 * starter corpus's items carry the day their facts were sourced, a
 * collector's the moment it read the source.
 */
export function checkedOn(item: Pick<NewswireItem, 'observedAt'>): Html {
  return eventDate({ eventDate: item.observedAt.slice(0, 10), datePrecision: 'day' });
}

/** Whole days from the calendar date `iso` (YYYY-MM-DD…) to `nowMs`, never negative. */
export function daysSince(iso: string, nowMs: number): number {
  return Math.max(0, Math.floor((nowMs - Date.parse(`${iso.slice(0, 10)}T00:00:00Z`)) / 86_400_000));
}

/** A store timestamp (six fractional digits) shown to the minute; `datetime` keeps milliseconds, as HTML allows. */
export function timestamp(iso: string): Html {
  return html`<time datetime="${iso.slice(0, 23)}Z">${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC</time>`;
}

export function tierBadge(tier: EvidenceTier): Html {
  const def = EVIDENCE_TIERS[tier];
  return html`<span class="badge tier tier-${tierLetter(tier).toLowerCase()}" title="${def.definition}">Tier ${tierLetter(tier)}</span> <span class="tier-meaning">${def.label}</span>`;
}

export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

function isWebUrl(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

/** Host and path, shortened, for a source link's text in the feed. */
export function shortUrl(url: string): string {
  try {
    const u = new URL(url);
    const rest = `${u.pathname === '/' ? '' : u.pathname}${u.search}`;
    return u.host + (rest.length > 48 ? `${rest.slice(0, 47)}…` : rest);
  } catch {
    return url;
  }
}

export function sourceLink(url: string, text: string): Html {
  return isWebUrl(url) ? html`<a href="${url}" rel="noopener">${text}</a>` : html`<span>${text}</span>`;
}

export function itemHref(slug: string): string {
  return `${FEED_PAGE_PATH}/${encodeURIComponent(slug)}`;
}

export function feedHref(params: Record<string, string | undefined>): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) qs.set(k, v);
  const s = qs.toString();
  return s ? `${FEED_PAGE_PATH}?${s}` : FEED_PAGE_PATH;
}

export function apiHref(params: Record<string, string | undefined>): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) qs.set(k, v);
  const s = qs.toString();
  return s ? `${API_PATH}?${s}` : API_PATH;
}
