/**
 * Pages for people: `GET /newswire` (the feed) and `GET /newswire/{slug}`
 * (one item) as server-rendered HTML. They are views of the JSON API, not the
 * canonical database: the feed page runs the same query as `GET /v1/newswire`
 * (same filters, order and cursor rule), and every page says so and links the
 * JSON it shows.
 *
 * Safety: every interpolated value goes through `html```, which escapes it
 * unless it is already markup built the same way; no script is ever sent and
 * the Content-Security-Policy forbids any; nothing is loaded from another
 * origin (styles are inline, the only image is this origin's icon), so the
 * pages work offline. Source links are plain `rel="noopener"` anchors to the
 * URLs that were validated at import; a non-http(s) value is shown as text.
 */
import type { Context, Hono } from 'hono';
import type { OpenApiPaths } from '../module.js';
import { ifNoneMatchHits, parseQuery, strongEtag, type QueryValues } from './http.js';
import { buildNewswire, type NewswireDeps } from './newswire.js';
import { ENTITY_ID, ID_PATTERN, TIMESTAMP_PARAM, TOPIC, type ParameterDef } from './schemas.js';
import type { ContentStore } from './store.js';
import { formatMicros, parseTimestamp } from './time.js';
import { EVIDENCE_TIER_IDS, EVIDENCE_TIERS, type EvidenceTier, type SourceType } from './tiers.js';
import { ITEM_TYPES, USAGE_RIGHTS, type EvidenceDetail, type NewsroomState, type NewswireItem } from './types.js';

export const FEED_PAGE_PATH = '/newswire';
export const ITEM_PAGE_PATH = '/newswire/{slug}';
const API_PATH = '/v1/newswire';

/** No script, no frames, no foreign origin: inline styles and this origin's images only. */
export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'";

const FEED_DEFAULT_LIMIT = 100;
const SLUG_RE = new RegExp(ID_PATTERN);

// ---- escaping ----

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escape text for use in HTML element content and in double- or single-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);
}

/** Markup that is already safe: only `html``…``  and `raw()` make one. */
class Html {
  constructor(readonly text: string) {}
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

function render(p: Part): string {
  if (p === null || p === undefined || p === false || p === true) return '';
  if (p instanceof Html) return p.text;
  if (Array.isArray(p)) return p.map(render).join('');
  return escapeHtml(String(p));
}

/** A template whose interpolations are escaped unless they are Html; arrays are joined. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1]!;
  });
  return new Html(out);
}

/** For constant markup written in this file only (the stylesheet). */
function raw(text: string): Html {
  return new Html(text);
}

// ---- wording ----

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

const SOURCE_TYPE_LABELS: Record<SourceType, string> = {
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

function typeLabel(type: string): string {
  const words = type.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function tierLetter(tier: EvidenceTier): string {
  return tier.slice(-1);
}

/** The event date as precise as the sources support it, with a machine-readable `datetime`. */
function eventDate(item: Pick<NewswireItem, 'eventDate' | 'datePrecision'>): Html {
  const [y, m, d] = item.eventDate.split('-');
  const month = MONTHS[Number(m) - 1] ?? m;
  if (item.datePrecision === 'year') return html`<time datetime="${y}">${y}</time>`;
  if (item.datePrecision === 'month') return html`<time datetime="${y}-${m}">${month} ${y}</time>`;
  return html`<time datetime="${item.eventDate}">${Number(d)} ${month} ${y}</time>`;
}

/** A store timestamp (six fractional digits) shown to the minute; `datetime` keeps milliseconds, as HTML allows. */
function timestamp(iso: string): Html {
  return html`<time datetime="${iso.slice(0, 23)}Z">${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC</time>`;
}

function tierBadge(tier: EvidenceTier): Html {
  const def = EVIDENCE_TIERS[tier];
  return html`<span class="badge tier tier-${tierLetter(tier).toLowerCase()}" title="${def.definition}">Tier ${tierLetter(tier)}</span> <span class="tier-meaning">${def.label}</span>`;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

function isWebUrl(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

/** Host and path, shortened, for a source link's text in the feed. */
function shortUrl(url: string): string {
  try {
    const u = new URL(url);
    const rest = `${u.pathname === '/' ? '' : u.pathname}${u.search}`;
    return u.host + (rest.length > 48 ? `${rest.slice(0, 47)}…` : rest);
  } catch {
    return url;
  }
}

function sourceLink(url: string, text: string): Html {
  return isWebUrl(url) ? html`<a href="${url}" rel="noopener">${text}</a>` : html`<span>${text}</span>`;
}

function itemHref(slug: string): string {
  return `${FEED_PAGE_PATH}/${encodeURIComponent(slug)}`;
}

function feedHref(params: Record<string, string | undefined>): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) qs.set(k, v);
  const s = qs.toString();
  return s ? `${FEED_PAGE_PATH}?${s}` : FEED_PAGE_PATH;
}

function apiHref(params: Record<string, string | undefined>): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) qs.set(k, v);
  const s = qs.toString();
  return s ? `${API_PATH}?${s}` : API_PATH;
}

// ---- the page frame ----

const STYLE = raw(`
:root{color-scheme:light dark;--fg:#1f2328;--muted:#59636e;--bg:#fff;--soft:#f6f8fa;--line:#d1d9e0;--link:#0550ae;
--a:#1a7f37;--a-bg:#dafbe1;--b:#0550ae;--b-bg:#ddf4ff;--c:#9a6700;--c-bg:#fff8c5;--d:#59636e;--d-bg:#eff2f5;--bad:#b01a2c;--bad-bg:#ffebe9}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--soft:#151b23;--line:#3d444d;--link:#6cb6ff;
--a:#57ab5a;--a-bg:#0f2a17;--b:#6cb6ff;--b-bg:#0c2544;--c:#daaa3f;--c-bg:#2e2206;--d:#9198a1;--d-bg:#212830;--bad:#ff7b72;--bad-bg:#3a1218}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:50rem;padding:0 1.25rem 3rem;font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--link);text-underline-offset:.15em}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:var(--bg);padding:.25rem .5rem}
header.site{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:baseline;gap:.25rem 1rem;padding:1rem 0 .5rem;border-bottom:3px solid var(--fg)}
.brand{margin:0;font-weight:800;font-size:1.3rem;letter-spacing:-.01em}.brand a{color:inherit;text-decoration:none}
header.site nav{font-size:.9rem}header.site nav a{margin-left:.9rem}
.view-note{margin:.75rem 0 1.25rem;font-size:.875rem;color:var(--muted)}
h1{font-size:1.9rem;line-height:1.2;margin:.4rem 0 .6rem;letter-spacing:-.015em}
h2{font-size:1.25rem;line-height:1.3}
.lede{font-size:1.05rem;color:var(--muted);margin-top:0}
article.item{padding:1.1rem 0;border-bottom:1px solid var(--line)}
article.item h2{margin:.2rem 0 .4rem}article.item h2 a{color:inherit;text-decoration:none}article.item h2 a:hover{text-decoration:underline}
article.item p{margin:.35rem 0}
.meta{font-size:.85rem;color:var(--muted)}
.badge{display:inline-block;font-size:.75rem;font-weight:700;line-height:1.5;padding:0 .5rem;border-radius:999px;border:1px solid currentColor;white-space:nowrap;vertical-align:.08em}
.tier-a{color:var(--a);background:var(--a-bg)}.tier-b{color:var(--b);background:var(--b-bg)}.tier-c{color:var(--c);background:var(--c-bg)}.tier-d{color:var(--d);background:var(--d-bg)}
.tier-meaning{font-size:.85rem;color:var(--muted)}
.evidence{font-size:.875rem}
.badge.retracted{color:var(--bad);background:var(--bad-bg)}
article.retracted h2 a,article.retracted .summary{color:var(--muted)}
.banner{margin:1rem 0;padding:.8rem 1rem;border:2px solid var(--bad);border-radius:6px;background:var(--bad-bg)}
.banner strong{color:var(--bad);letter-spacing:.06em}
.notice{margin:.6rem 0;padding:.45rem .75rem;border-left:4px solid var(--b);background:var(--soft);font-size:.925rem}
.sources{font-size:.875rem;color:var(--muted)}
.sources a{overflow-wrap:anywhere}
ol.source-list{padding-left:1.4rem}ol.source-list li{margin:.5rem 0}ol.source-list a{overflow-wrap:anywhere}
.supports{margin:.2rem 0 0;color:var(--muted);font-size:.9rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1.25rem;margin:0}
dl.facts dt{font-weight:600;color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere}
ul.inline{list-style:none;padding:0;margin:0;display:inline}ul.inline li{display:inline}ul.inline li+li::before{content:", "}
form.filters{display:flex;flex-wrap:wrap;gap:.6rem 1rem;align-items:end;padding:.75rem;background:var(--soft);border:1px solid var(--line);border-radius:6px;font-size:.9rem}
form.filters label{display:flex;flex-direction:column;gap:.15rem}form.filters label.check{flex-direction:row;align-items:center;gap:.35rem}
form.filters input,form.filters select,form.filters button{font:inherit;padding:.2rem .4rem}
.count{font-size:.9rem;color:var(--muted)}
.pager{margin:1.5rem 0;font-weight:600}
.legend dt{font-weight:600}.legend dd{margin:0 0 .6rem;color:var(--muted);font-size:.925rem}
.json{font-size:.875rem}
footer{margin-top:2.5rem;padding-top:.75rem;border-top:1px solid var(--line);font-size:.8rem;color:var(--muted)}
`);

interface FrameOptions {
  title: string;
  description: string;
  /** The JSON this page is a view of, and how to name it in the note. */
  json: string;
  jsonLabel?: string;
  body: Html;
  icon: boolean;
}

function frame(o: FrameOptions): string {
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${o.title}</title>
<meta name="description" content="${o.description}">
${o.icon ? html`<link rel="icon" href="/favicon.svg" type="image/svg+xml">` : null}
<link rel="alternate" type="application/json" href="${o.json}" title="JSON (the API this page is a view of)">
<style>${STYLE}</style>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site">
<p class="brand"><a href="${FEED_PAGE_PATH}">Machine-economy newswire</a></p>
<nav aria-label="Machine-readable"><a href="${o.json}">JSON API</a><a href="/openapi.json">OpenAPI</a><a href="/llms.txt">llms.txt</a></nav>
</header>
<p class="view-note">This page is a readable view of the JSON API (<a href="${o.json}">${o.jsonLabel ?? o.json}</a>), not the canonical database. Programs should read the API.</p>
<main id="main">
${o.body}
</main>
<footer>
<p>${USAGE_RIGHTS}</p>
<p>Every item names its sources; the evidence tier says how strongly they support it. Published by the agent-pay-service newsroom. The service never fetches the links it shows.</p>
</footer>
</body>
</html>
`;
  return page.text;
}

// ---- lookups ----

/** Published or retracted items by id or slug, and the corrections on both ends of one (held items are never shown). */
class PageLookups {
  constructor(private readonly store: ContentStore) {}

  async item(eventId: string): Promise<{ state: NewsroomState; item: NewswireItem; evidence: EvidenceDetail[] } | undefined> {
    const found = await this.store.getItem(eventId);
    if (!found || found.state === 'HELD') return undefined;
    return { state: found.state, item: found.stored.item, evidence: found.stored.evidence };
  }

  async bySlug(slug: string) {
    const id = await this.store.eventIdBySlug(slug);
    return id ? this.item(id) : undefined;
  }

  /** The items on both ends of an item's corrections, as link targets. */
  async correctionLinks(item: NewswireItem): Promise<{ corrects: NewswireItem | undefined; correctedBy: NewswireItem[] }> {
    const ids = await this.store.correctionsOf(item.eventId);
    const [corrects, ...by] = await Promise.all([item.correctionOf ? this.item(item.correctionOf) : undefined, ...ids.map((id) => this.item(id))]);
    return { corrects: corrects?.item, correctedBy: by.flatMap((f) => (f ? [f.item] : [])) };
  }
}

// ---- query parameters ----

const RETRACTED_FLAG: ParameterDef['schema'] = { type: 'string', enum: ['1', '0', 'true', 'false'], default: '0' };

export const PAGE_PARAMETERS = {
  feed: [
    { name: 'type', in: 'query', description: 'Only items of this type.', schema: { type: 'string', enum: [...ITEM_TYPES] } },
    { name: 'entity', in: 'query', description: 'Only items that involve this graph entity id.', schema: ENTITY_ID },
    { name: 'protocol', in: 'query', description: 'Only items that involve this protocol id.', schema: ENTITY_ID },
    { name: 'topic', in: 'query', description: 'Only items tagged with this topic.', schema: TOPIC },
    { name: 'min_tier', in: 'query', description: 'Only items at this evidence tier or stronger (TIER_A strongest).', schema: { type: 'string', enum: [...EVIDENCE_TIER_IDS] } },
    { name: 'include_retracted', in: 'query', description: '1 (or true): also list retracted items, marked with their reason. Default 0: retracted items are left out (their own pages stay reachable).', schema: RETRACTED_FLAG },
    { name: 'since', in: 'query', description: 'The API’s cursor: only items whose lastUpdatedAt is after this timestamp (the “more” link sets it).', schema: TIMESTAMP_PARAM },
    { name: 'limit', in: 'query', description: `Most items on the page, 1–200 (default ${FEED_DEFAULT_LIMIT}). When more match, the oldest-updated are listed and a link continues after them.`, schema: { type: 'integer', minimum: 1, maximum: 200, default: FEED_DEFAULT_LIMIT } },
  ] satisfies ParameterDef[],
  item: [{ name: 'slug', in: 'path', required: true, description: 'The item’s slug (its eventId unless the newsroom set another).', schema: { type: 'string', pattern: ID_PATTERN } }] satisfies ParameterDef[],
} as const;

/** HTML forms send empty fields (`entity=`); on a page they mean “no filter”. */
function withoutEmptyParams(url: URL): URL {
  const out = new URL(url.origin + url.pathname);
  for (const [k, v] of url.searchParams) if (v !== '') out.searchParams.append(k, v);
  return out;
}

// ---- responses ----

function sendHtml(c: Context, status: 200 | 400 | 404, body: string): Response {
  const headers: Record<string, string> = {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': PAGE_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': status === 200 ? 'no-cache' : 'no-store',
  };
  if (status === 200) {
    const etag = strongEtag(body);
    headers.ETag = etag;
    if (ifNoneMatchHits(c.req.header('if-none-match'), etag)) {
      const { 'Content-Type': _type, ...rest } = headers;
      return new Response(null, { status: 304, headers: rest });
    }
  }
  return new Response(body, { status, headers });
}

function problemPage(icon: boolean, status: 400 | 404, title: string, message: Html, problems: string[] = []): string {
  return frame({
    title: `${title} · Machine-economy newswire`,
    description: title,
    json: API_PATH,
    icon,
    body: html`<h1>${title}</h1>
<p>${message}</p>
${problems.length ? html`<ul class="problems">${problems.map((p) => html`<li>${p}</li>`)}</ul>` : null}
<p><a href="${FEED_PAGE_PATH}">Back to the newswire</a></p>`,
  });
}

// ---- the feed page ----

function feedArticle(item: NewswireItem, links: { corrects?: NewswireItem; correctedBy: NewswireItem[] }, evidence: EvidenceDetail[] | undefined): Html {
  const sources = evidence
    ? evidence.map((e) => ({ url: e.url, type: e.sourceType as SourceType | undefined }))
    : item.sourceURLs.map((url) => ({ url, type: item.sourceTypes.length === 1 ? item.sourceTypes[0] : undefined }));
  return html`<article class="item${item.retracted ? ' retracted' : ''}" id="${item.eventId}" data-event-id="${item.eventId}">
<p class="meta">${eventDate(item)} · ${typeLabel(item.type)}${item.retracted ? html` · <span class="badge retracted">Retracted</span>` : null}</p>
<h2><a href="${itemHref(item.slug)}">${item.headline}</a></h2>
${item.retracted ? html`<p class="retraction"><strong>Retracted:</strong> ${item.retractionReason ?? 'no reason recorded'}</p>` : null}
<p class="summary">${item.summary}</p>
${links.corrects ? html`<p class="notice correction">This item corrects <a href="${itemHref(links.corrects.slug)}">${links.corrects.headline}</a>.</p>` : null}
${links.correctedBy.length ? html`<p class="notice corrected">Corrected by ${links.correctedBy.map((c, i) => html`${i ? '; ' : ''}<a href="${itemHref(c.slug)}">${c.headline}</a>`)}.</p>` : null}
<p class="evidence">${tierBadge(item.evidenceTier)} · confidence ${item.confidence.toFixed(2)} · ${plural(item.corroborationCount, 'distinct source', 'distinct sources')}</p>
<p class="sources">Sources: ${sources.map((s, i) => html`${i ? ' · ' : ''}${sourceLink(s.url, shortUrl(s.url))}${s.type ? html` <span class="source-type">(${SOURCE_TYPE_LABELS[s.type] ?? s.type})</span>` : null}`)}${
    evidence || item.sourceTypes.length === 1 ? null : html` <span class="source-type">(${item.sourceTypes.map((t) => SOURCE_TYPE_LABELS[t] ?? t).join(', ')})</span>`
  }</p>
</article>`;
}

function tierLegend(): Html {
  return html`<section class="legend" id="tiers" aria-labelledby="tiers-h">
<h2 id="tiers-h">Evidence tiers</h2>
<dl>${EVIDENCE_TIER_IDS.map((t) => {
    const d = EVIDENCE_TIERS[t];
    return html`<dt>${tierBadge(t)}</dt><dd>${d.definition} Confidence ${d.confidence.toFixed(2)}${d.publishable ? '.' : ' — never published here.'}</dd>`;
  })}</dl>
</section>`;
}

function filterForm(v: QueryValues, includeRetracted: boolean): Html {
  const hidden = (['protocol', 'topic', 'min_tier', 'limit'] as const).filter((k) => v[k] !== undefined && !(k === 'limit' && v[k] === FEED_DEFAULT_LIMIT));
  return html`<form class="filters" method="get" action="${FEED_PAGE_PATH}" aria-label="Filter the newswire">
<label>Type <select name="type"><option value="">Any type</option>${ITEM_TYPES.map((t) => html`<option value="${t}"${v.type === t ? html` selected` : null}>${typeLabel(t)}</option>`)}</select></label>
<label>Entity id <input name="entity" value="${(v.entity as string | undefined) ?? ''}" placeholder="e.g. coinbase" size="14"></label>
<label class="check"><input type="checkbox" name="include_retracted" value="1"${includeRetracted ? html` checked` : null}> Show retracted items</label>
${hidden.map((k) => html`<input type="hidden" name="${k}" value="${String(v[k])}">`)}
<button type="submit">Show</button>
</form>`;
}

function describeFilters(v: QueryValues, includeRetracted: boolean): string {
  const parts: string[] = [];
  if (v.type !== undefined) parts.push(`type ${typeLabel(v.type as string).toLowerCase()}`);
  if (v.entity !== undefined) parts.push(`entity ${v.entity}`);
  if (v.protocol !== undefined) parts.push(`protocol ${v.protocol}`);
  if (v.topic !== undefined) parts.push(`topic ${v.topic}`);
  if (v.min_tier !== undefined) parts.push(`tier ${tierLetter(v.min_tier as EvidenceTier)} or stronger`);
  if (v.since !== undefined) parts.push(`updated after ${v.since}`);
  if (includeRetracted) parts.push('retracted items included');
  return parts.join(', ');
}

// ---- the item page ----

/**
 * The JSON of exactly this version: lastUpdatedAt is unique, so the feed
 * window (lastUpdatedAt − 1 µs, lastUpdatedAt] holds this item and nothing else.
 */
function versionJsonHref(item: NewswireItem): string {
  const us = parseTimestamp(item.lastUpdatedAt);
  return us === undefined ? apiHref({}) : apiHref({ since: formatMicros(us - 1), until: item.lastUpdatedAt, include_retracted: 'true', limit: '1' });
}

async function itemBody(found: { item: NewswireItem; evidence: EvidenceDetail[] }, lookups: PageLookups, store: ContentStore): Promise<Html> {
  const { item, evidence } = found;
  const tier = EVIDENCE_TIERS[item.evidenceTier];
  const [links, names] = await Promise.all([
    lookups.correctionLinks(item),
    Promise.all(item.entities.map(async (id) => [id, (await store.entity(id))?.name] as const)),
  ]);
  const list = (values: string[], href: (v: string) => string, label: (v: string) => string = (v) => v) =>
    values.length ? html`<ul class="inline">${values.map((v) => html`<li><a href="${href(v)}">${label(v)}</a></li>`)}</ul>` : html`<span>none</span>`;
  const nameOf = new Map(names);
  return html`<article class="item-page${item.retracted ? ' retracted' : ''}" data-event-id="${item.eventId}">
${
    item.retracted
      ? html`<div class="banner" role="note" aria-label="Retraction notice"><p><strong>RETRACTED</strong> — the newsroom withdrew this item (recorded ${timestamp(item.lastUpdatedAt)}). It is kept here as it was, unchanged.</p><p class="reason">Reason: ${item.retractionReason ?? 'no reason recorded'}</p></div>`
      : null
  }
${links.corrects ? html`<p class="notice correction">This item corrects <a href="${itemHref(links.corrects.slug)}">${links.corrects.headline}</a> (${eventDate(links.corrects)}).</p>` : null}
${
    links.correctedBy.length
      ? html`<p class="notice corrected">Corrected by ${links.correctedBy.map((c, i) => html`${i ? '; ' : ''}<a href="${itemHref(c.slug)}">${c.headline}</a> (${eventDate(c)})`)}. This item is left as it was published.</p>`
      : null
  }
<p class="meta">${eventDate(item)} · <a href="${feedHref({ type: item.type })}">${typeLabel(item.type)}</a>${item.publicAnalysis ? ' · Newsroom analysis' : null}${item.firstPartyInterest ? ' · About the operator’s own products' : null}</p>
<h1>${item.headline}</h1>
<p class="lede summary">${item.summary}</p>
<section aria-labelledby="why-h">
<h2 id="why-h">Why it matters</h2>
<p>${item.whyItMatters}</p>
</section>
<section aria-labelledby="evidence-h">
<h2 id="evidence-h">Evidence</h2>
<p class="evidence">${tierBadge(item.evidenceTier)} · confidence ${item.confidence.toFixed(2)} · corroborated by ${plural(item.corroborationCount, 'distinct source', 'distinct sources')}</p>
<p class="tier-definition">${tier.definition}</p>
${item.evidenceNote ? html`<p class="notice caveat"><strong>Caveat:</strong> ${item.evidenceNote}</p>` : null}
<h3>Sources</h3>
<ol class="source-list">${evidence.map(
    (e) =>
      html`<li>${sourceLink(e.url, e.url)} <span class="source-type">— ${SOURCE_TYPE_LABELS[e.sourceType] ?? e.sourceType}</span>${e.publishedAt ? html`, published ${e.publishedAt}` : null}${
        e.supports ? html`<p class="supports">What it supports: ${e.supports}</p>` : null
      }</li>`,
  )}</ol>
</section>
<section aria-labelledby="details-h">
<h2 id="details-h">Details</h2>
<dl class="facts">
<dt>Event date</dt><dd>${eventDate(item)}${item.datePrecision === 'day' ? null : html` (known to the ${item.datePrecision})`}${item.retrospective ? ' · published in retrospect' : null}</dd>
<dt>Published</dt><dd>${timestamp(item.publishedAt)}</dd>
<dt>Last updated</dt><dd>${timestamp(item.lastUpdatedAt)} (version ${item.version})</dd>
<dt>Entities</dt><dd>${list(item.entities, (id) => feedHref({ entity: id }), (id) => (nameOf.get(id) && nameOf.get(id) !== id ? `${nameOf.get(id)} (${id})` : id))}</dd>
<dt>Protocols</dt><dd>${list(item.protocols, (id) => feedHref({ protocol: id }))}</dd>
<dt>Topics</dt><dd>${list(item.topics, (t) => feedHref({ topic: t }))}</dd>
<dt>Status</dt><dd>${item.retracted ? 'Retracted' : 'Published'}</dd>
<dt>Event id</dt><dd><code>${item.eventId}</code></dd>
<dt>Publisher</dt><dd>${item.publisher}</dd>
${item.marketData ? html`<dt>Market data</dt><dd><code>${JSON.stringify(item.marketData)}</code></dd>` : null}
</dl>
</section>
</article>
<p class="json">Machine-readable: <a href="${versionJsonHref(item)}">this version in the JSON feed</a> · <a href="${apiHref({})}">the whole feed</a> · <a href="/openapi.json">API description</a>.</p>
<p><a href="${FEED_PAGE_PATH}">← All items</a></p>`;
}

// ---- routes ----

export type PageDeps = NewswireDeps;

/** Register `GET /newswire` and `GET /newswire/:slug`. */
export function registerPageRoutes(app: Hono, deps: PageDeps): void {
  const lookups = new PageLookups(deps.store);
  // The discovery module serves the icon; link it only when this app has it.
  let iconKnown: boolean | undefined;
  const icon = () => (iconKnown ??= app.routes.some((r) => r.method === 'GET' && r.path === '/favicon.svg'));

  app.get(FEED_PAGE_PATH, async (c) => {
    const q = parseQuery(PAGE_PARAMETERS.feed, withoutEmptyParams(new URL(c.req.url)));
    if (!q.ok) {
      return sendHtml(c, 400, problemPage(icon(), 400, 'Bad filter', html`This page cannot show the newswire for that address.`, q.details.map((d) => `${d.path.replace(/^query:/, '')} ${d.message ?? d.rule}`)));
    }
    const v = q.values;
    const includeRetracted = v.include_retracted === '1' || v.include_retracted === 'true';
    const feed = await buildNewswire(deps, { ...v, include_retracted: includeRetracted });
    const apiParams: Record<string, string | undefined> = {
      type: v.type as string | undefined,
      entity: v.entity as string | undefined,
      protocol: v.protocol as string | undefined,
      topic: v.topic as string | undefined,
      min_tier: v.min_tier as string | undefined,
      include_retracted: includeRetracted ? 'true' : undefined,
      since: v.since as string | undefined,
      limit: String(v.limit),
    };
    const pageParams = { ...apiParams, include_retracted: includeRetracted ? '1' : undefined, limit: v.limit === FEED_DEFAULT_LIMIT ? undefined : String(v.limit) };
    const articles = await Promise.all(
      feed.items.map(async (item) => {
        const [links, stored] = await Promise.all([lookups.correctionLinks(item), item.sourceTypes.length > 1 ? lookups.item(item.eventId) : undefined]);
        return feedArticle(item, links, stored?.evidence);
      }),
    );
    const filters = describeFilters(v, includeRetracted);
    const json = apiHref(apiParams);
    const body = html`<h1>Newswire</h1>
<p class="lede">Sourced news about the machine economy — agent payments, x402, MCP and the services around them. Newest event first; every item links its sources and carries an evidence tier (<a href="#tiers">what the tiers mean</a>).</p>
${filterForm(v, includeRetracted)}
<p class="count">${plural(feed.count, 'item', 'items')}${filters ? ` · ${filters}` : ''}${filters ? html` · <a href="${FEED_PAGE_PATH}">clear filters</a>` : null}${includeRetracted ? null : ' · retracted items are hidden'}</p>
${articles.length ? html`<section class="feed" aria-label="Items">${articles}</section>` : html`<p class="empty">No items match.</p>`}
${
  feed.truncated
    ? html`<nav class="pager" aria-label="More items"><a rel="next" href="${feedHref({ ...pageParams, since: feed.nextCursor })}">More items (updated after ${feed.nextCursor}) →</a></nav>`
    : null
}
${tierLegend()}`;
    return sendHtml(c, 200, frame({ title: 'Newswire · Machine-economy newswire', description: 'Sourced machine-economy news items, newest first, with sources and evidence tiers.', json, icon: icon(), body }));
  });

  app.get(`${FEED_PAGE_PATH}/:slug`, async (c) => {
    const slug = c.req.param('slug');
    const found = SLUG_RE.test(slug) ? await lookups.bySlug(slug) : undefined;
    if (!found) {
      return sendHtml(c, 404, problemPage(icon(), 404, 'Item not found', html`There is no published item at ${FEED_PAGE_PATH}/${slug}. It may never have existed, or it may not be published.`));
    }
    const body = await itemBody(found, lookups, deps.store);
    const title = `${found.item.retracted ? '[Retracted] ' : ''}${found.item.headline} · Machine-economy newswire`;
    return sendHtml(c, 200, frame({ title, description: found.item.summary, json: versionJsonHref(found.item), jsonLabel: 'this item in GET /v1/newswire', icon: icon(), body }));
  });
}

// ---- OpenAPI ----

function parameter(p: ParameterDef) {
  return { name: p.name, in: p.in, required: p.in === 'path' ? true : (p.required ?? false), description: p.description, schema: p.schema };
}

const htmlResponse = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });

export function pagesOpenApi(): OpenApiPaths {
  const common = {
    tags: ['pages'],
    security: [],
  };
  return {
    [FEED_PAGE_PATH]: {
      get: {
        operationId: 'getNewswirePage',
        summary: 'Newswire as a readable HTML page (a view of GET /v1/newswire)',
        description:
          'For people: the feed newest event first, with sources, evidence tiers, corrections and (on request) retracted items marked. A view of the JSON API, not the canonical database; programs should use GET /v1/newswire. Strong ETag, If-None-Match → 304.',
        ...common,
        parameters: PAGE_PARAMETERS.feed.map(parameter),
        responses: {
          '200': htmlResponse('The page'),
          '304': { description: 'Not modified (If-None-Match matched the ETag)' },
          '400': htmlResponse('A page naming the bad query parameter'),
        },
      },
    },
    [ITEM_PAGE_PATH]: {
      get: {
        operationId: 'getNewswireItemPage',
        summary: 'One newswire item as a readable HTML page',
        description:
          'For people: headline, summary, why it matters, dates, entities, protocols, evidence tier, confidence, corroboration, every source, corrections in both directions and, for a retracted item, a RETRACTED banner with the reason. Query parameters are ignored.',
        ...common,
        parameters: PAGE_PARAMETERS.item.map(parameter),
        responses: {
          '200': htmlResponse('The page'),
          '304': { description: 'Not modified (If-None-Match matched the ETag)' },
          '404': htmlResponse('No published or retracted item has this slug'),
        },
      },
    },
  };
}
