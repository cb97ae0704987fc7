/** The page frame every page shares, and how pages are sent (CSP, ETag, 304). */
import type { Context } from 'hono';
import { ifNoneMatchHits, strongEtag } from '../http.js';
import { USAGE_RIGHTS } from '../types.js';
import { html, raw, type Html } from './html.js';
import { API_PATH, FEED_PAGE_PATH, GRAPH_PAGE_PATH } from './wording.js';
import { pageCsp, pageHeaders } from '../../http/security-headers.js';

/** No script, no frames, no foreign origin: inline styles and this origin's images only. */
export const PAGE_CSP = pageCsp("default-src 'none'; style-src 'unsafe-inline'; img-src 'self'");

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
.as-of{font-size:.925rem;color:var(--muted)}
body.wide{max-width:80rem}
.graph-box{overflow-x:auto;border:1px solid var(--line);border-radius:6px;background:var(--soft);margin:1rem 0}
svg.graph{display:block;width:100%;height:auto;min-width:72rem}
svg.graph-column{display:none}
@media (max-width:75rem){svg.graph{display:none}svg.graph-column{display:block;max-width:100%;height:auto;margin:0 auto}}
.graph-box svg .edge{fill:none;stroke:var(--muted);stroke-opacity:.45;stroke-width:1.3}
.graph-box svg .arrowhead{fill:var(--muted)}
.graph-box svg text{font:13px system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;fill:var(--fg)}
.graph-box svg a:hover text,.graph-box svg a:focus text{text-decoration:underline;fill:var(--link)}
ul.types{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.35rem .9rem;font-size:.9rem}
ul.types li{white-space:nowrap}
.swatch{display:inline-block;width:.8rem;height:.8rem;border-radius:50%;vertical-align:-.05rem;margin-right:.3rem}
ul.types .on{font-weight:700}
section.entity-list h3{font-size:1rem;margin:1.2rem 0 .3rem}
section.entity-list ul{padding-left:1.1rem;margin:.2rem 0}
section.entity-list li{margin:.2rem 0;overflow-wrap:anywhere}
.relations{color:var(--muted);font-size:.9rem}
`);

export interface FrameOptions {
  title: string;
  description: string;
  /** The JSON this page is a view of, and how to name it in the note. */
  json: string;
  jsonLabel?: string;
  body: Html;
  icon: boolean;
  /** A page that draws (the graph): the full width of a desktop screen. */
  wide?: boolean;
}

export function frame(o: FrameOptions): string {
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
<body${o.wide ? html` class="wide"` : null}>
<a class="skip" href="#main">Skip to content</a>
<header class="site">
<p class="brand"><a href="${FEED_PAGE_PATH}">Machine-economy newswire</a></p>
<nav aria-label="Site"><a href="${FEED_PAGE_PATH}">News</a><a href="${GRAPH_PAGE_PATH}">Graph</a><a href="/">Service</a><a href="${o.json}">JSON API</a><a href="/openapi.json">OpenAPI</a></nav>
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

export function sendHtml(c: Context, status: 200 | 400 | 404, body: string): Response {
  const headers: Record<string, string> = {
    'Content-Type': 'text/html; charset=utf-8',
    ...pageHeaders(PAGE_CSP),
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

export function problemPage(icon: boolean, status: 400 | 404, title: string, message: Html, problems: string[] = []): string {
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
