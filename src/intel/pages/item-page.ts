/**
 * The item page (`GET /newswire/{slug}`): one published or retracted item
 * with its evidence, corrections in both directions and a link to exactly
 * this version in the JSON feed. Unknown, malformed and held slugs are 404.
 */
import type { Context } from 'hono';
import { ID_PATTERN } from '../schema-parts.js';
import type { ContentStore } from '../store/contract.js';
import { formatMicros, parseTimestamp } from '../time.js';
import { EVIDENCE_TIERS } from '../tiers.js';
import type { EvidenceDetail, NewswireItem } from '../types.js';
import { frame, problemPage, sendHtml } from './frame.js';
import { html, type Html } from './html.js';
import type { PageDeps, PageLookups } from './lookups.js';
import { apiHref, checkedOn, eventDate, FEED_PAGE_PATH, feedHref, itemHref, plural, SOURCE_TYPE_LABELS, sourceLink, tierBadge, timestamp, typeLabel } from './wording.js';

const SLUG_RE = new RegExp(ID_PATTERN);

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
<dt>Sources checked</dt><dd>${checkedOn(item)}</dd>
<dt>On this newswire since</dt><dd>${timestamp(item.publishedAt)}</dd>
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

export async function itemPage(c: Context, deps: PageDeps): Promise<Response> {
  const { lookups, icon } = deps;
  const slug = c.req.param('slug') ?? '';
  const found = SLUG_RE.test(slug) ? await lookups.bySlug(slug) : undefined;
  if (!found) {
    return sendHtml(c, 404, problemPage(icon(), 404, 'Item not found', html`There is no published item at ${FEED_PAGE_PATH}/${slug}. It may never have existed, or it may not be published.`));
  }
  const body = await itemBody(found, lookups, deps.store);
  const title = `${found.item.retracted ? '[Retracted] ' : ''}${found.item.headline} · Machine-economy newswire`;
  return sendHtml(c, 200, frame({ title, description: found.item.summary, json: versionJsonHref(found.item), jsonLabel: 'this item in GET /v1/newswire', icon: icon(), body }));
}
