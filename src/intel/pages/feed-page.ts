/**
 * The feed page (`GET /newswire`): `buildNewswire` with the page's filters,
 * so the order and the cursor rules are the JSON feed's: without `since` the
 * newest items, and an "older items" link pages back with cursor=olderCursor
 * (exact across items of the same day); with `since` a "more" link
 * continues with since=nextCursor.
 */
import type { Context } from 'hono';
import { parseQuery, type QueryValues } from '../http.js';
import { buildNewswire, decodeOlderCursor } from '../newswire.js';
import { EVIDENCE_TIER_IDS, EVIDENCE_TIERS, type EvidenceTier, type SourceType } from '../tiers.js';
import { ITEM_TYPES, type EvidenceDetail, type NewswireItem } from '../types.js';
import { frame, problemPage, sendHtml } from './frame.js';
import { html, type Html } from './html.js';
import type { PageDeps } from './lookups.js';
import { FEED_DEFAULT_LIMIT, PAGE_PARAMETERS, withoutEmptyParams } from './parameters.js';
import { apiHref, checkedOn, daysSince, eventDate, FEED_PAGE_PATH, feedHref, itemHref, plural, shortUrl, SOURCE_TYPE_LABELS, sourceLink, tierBadge, tierLetter, typeLabel } from './wording.js';

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
<p class="evidence">${tierBadge(item.evidenceTier)} · confidence ${item.confidence.toFixed(2)} · ${plural(item.corroborationCount, 'distinct source', 'distinct sources')} · checked ${checkedOn(item)}</p>
<p class="sources">Sources: ${sources.map((s, i) => html`${i ? ' · ' : ''}${sourceLink(s.url, shortUrl(s.url))}${s.type ? html` <span class="source-type">(${SOURCE_TYPE_LABELS[s.type] ?? s.type})</span>` : null}`)}${
    evidence || item.sourceTypes.length === 1 ? null : html` <span class="source-type">(${item.sourceTypes.map((t) => SOURCE_TYPE_LABELS[t] ?? t).join(', ')})</span>`
  }</p>
</article>`;
}

/**
 * How old the newest event on an unfiltered first page is, so a reader sees
 * at once whether the feed is current (a deployment keeps it current with
 * its collectors and imports; the README says how).
 */
function newestEventNote(items: NewswireItem[], filters: string, generatedAt: string): Html | null {
  const newest = items.find((i) => !i.retracted);
  if (filters || !newest) return null;
  const days = daysSince(newest.eventDate, Date.parse(generatedAt));
  const checked = items.reduce((a, i) => (i.observedAt > a ? i.observedAt : a), newest.observedAt);
  const age = days === 0 ? 'today' : days === 1 ? 'yesterday' : `${days} days before this page was made`;
  return html`<p class="as-of">Newest event: ${eventDate(newest)} (${age}). Sources last checked ${checkedOn({ observedAt: checked })}.</p>`;
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
  if (v.event_since !== undefined) parts.push(`events since ${v.event_since}`);
  if (v.cursor !== undefined) parts.push('older items');
  if (includeRetracted) parts.push('retracted items included');
  return parts.join(', ');
}

export async function feedPage(c: Context, deps: PageDeps): Promise<Response> {
  const { lookups, icon } = deps;
  const q = parseQuery(PAGE_PARAMETERS.feed, withoutEmptyParams(new URL(c.req.url)));
  if (!q.ok) {
    return sendHtml(c, 400, problemPage(icon(), 400, 'Bad filter', html`This page cannot show the newswire for that address.`, q.details.map((d) => `${d.path.replace(/^query:/, '')} ${d.message ?? d.rule}`)));
  }
  const v = q.values;
  if (v.entity !== undefined && !(await deps.store.entity(v.entity as string))) {
    return sendHtml(
      c,
      404,
      problemPage(icon(), 404, 'Unknown entity', html`The entity graph has no entity with the id “${v.entity as string}”, so no item can name it. Every entity and its id is listed in <a href="/v1/graph">the graph</a>.`),
    );
  }
  if (v.cursor !== undefined && (v.since !== undefined || !decodeOlderCursor(v.cursor as string))) {
    return sendHtml(c, 400, problemPage(icon(), 400, 'Bad page link', html`This page cannot show the newswire for that address.`, ['cursor is not an older-items link of this page']));
  }
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
    event_since: v.event_since as string | undefined,
    cursor: v.cursor as string | undefined,
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
${newestEventNote(feed.items, filters, feed.generatedAt)}
<p class="count">${plural(feed.count, 'item', 'items')}${filters ? ` · ${filters}` : ''}${filters ? html` · <a href="${FEED_PAGE_PATH}">clear filters</a>` : null}${includeRetracted ? null : ' · retracted items are hidden'}</p>
${articles.length ? html`<section class="feed" aria-label="Items">${articles}</section>` : html`<p class="empty">No items match.</p>`}
${
    feed.truncated && feed.olderCursor
      ? html`<nav class="pager" aria-label="Older items"><a rel="next" href="${feedHref({ ...pageParams, cursor: feed.olderCursor })}">Older items →</a></nav>`
      : feed.truncated
        ? html`<nav class="pager" aria-label="More items"><a rel="next" href="${feedHref({ ...pageParams, since: feed.nextCursor })}">More items (updated after ${feed.nextCursor}) →</a></nav>`
        : null
  }
${tierLegend()}`;
  return sendHtml(c, 200, frame({ title: 'Newswire · Machine-economy newswire', description: 'Sourced machine-economy news items, newest first, with sources and evidence tiers.', json, icon: icon(), body }));
}
