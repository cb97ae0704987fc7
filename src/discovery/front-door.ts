/**
 * The front door, `GET /`: one resource in two representations chosen by the
 * Accept header. A browser (Accept: text/html) gets a page for people: what is
 * for sale at what price in dollars, a curl that shows the 402, how to pay and
 * where the machine-readable documents are. Anything else gets the same facts
 * as a compact JSON index for agents. Both are written from the catalog and
 * the OpenAPI description, never by hand, so a new capability shows up here.
 */
import type { Context } from 'hono';
import { accepts } from 'hono/accepts';
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { Capability } from '../catalog/capability.js';
import { atomicToDecimal } from '../catalog/price.js';
import { DEVNET_NETWORK } from '../config.js';
import type { ModuleContext } from '../module.js';
import { HOW_TO_PAY, RESEND_NEEDS_PROOF } from '../payments/how-to-pay.js';
import { railFacts, railNames } from '../payments/rails.js';
import { operations } from './documents.js';
import { pageCsp } from '../http/security-headers.js';
import { ICON_CONTENT_TYPE, ICON_PATH, SERVICE_NAME } from './identity.js';

/** No script, no foreign origin: inline styles and this origin's icon only. */
export const FRONT_DOOR_CSP = pageCsp("default-src 'none'; style-src 'unsafe-inline'; img-src 'self'");

/** Where the other documents are, each included only when this instance serves it. */
const LINKS: ReadonlyArray<{ key: string; path: string; label: string; what: string }> = [
  { key: 'docs', path: '/docs', label: 'API reference', what: 'every operation, browsable (Swagger UI)' },
  { key: 'openapi', path: '/openapi.json', label: 'OpenAPI 3.1', what: 'schemas, prices, error codes' },
  { key: 'llms_txt', path: '/llms.txt', label: 'llms.txt', what: 'a short guide for language-model agents' },
  { key: 'mcp', path: '/mcp', label: 'MCP endpoint', what: 'Model Context Protocol, one tool per resource' },
  { key: 'newswire', path: '/newswire', label: 'Newswire', what: 'sourced machine-economy news, readable pages' },
  { key: 'graph', path: '/graph', label: 'Entity graph', what: 'who builds, lists and pays for what, drawn' },
  { key: 'router', path: '/v1/router', label: 'Outcome router', what: 'which paid call delivers your objective, at what price' },
  { key: 'services', path: '/v1/services', label: 'Services listing', what: 'every resource as JSON' },
  { key: 'manifest', path: '/.well-known/x402', label: 'x402 manifest', what: 'every paid resource as a URL' },
  { key: 'agent_card', path: '/.well-known/agent-card.json', label: 'Agent card', what: 'A2A skills' },
];

interface Offer {
  id: string;
  method: string;
  path: string;
  title: string;
  summary: string;
  /** Fixed price in atomic units, or the smallest of a range. */
  priceAtomic: string;
  /** US dollars as shown to people: "0.001", or "0.001–0.5" for an input-priced entry. */
  priceUsd: string;
  example: unknown;
  exampleOutput: unknown;
}

function offersOf(ctx: ModuleContext): Offer[] {
  const d = ctx.payment.asset.decimals;
  // USDC is pegged 1:1 to the US dollar, so the asset amount is the dollar price.
  const usd = (c: Capability) =>
    c.priceRange ? `${atomicToDecimal(c.priceRange.minAtomic, d)}–${atomicToDecimal(c.priceRange.maxAtomic, d)}` : atomicToDecimal(c.priceAtomic, d);
  return ctx.catalog.map((c) => ({
    id: c.id,
    method: c.method,
    path: c.path,
    title: c.title,
    summary: c.summary,
    priceAtomic: c.priceAtomic,
    priceUsd: usd(c),
    example: c.examples[0]?.input,
    exampleOutput: c.examples[0]?.output,
  }));
}

/** A POSIX shell single-quoted word. */
function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The copy-paste command that shows a 402: the cheapest fixed-price resource with its own example. */
function curlFor402(ctx: ModuleContext, base: string): string | null {
  const o = offersOf(ctx)
    .filter((x) => x.example !== undefined && !x.priceUsd.includes('–'))
    .sort((a, b) => Number(BigInt(a.priceAtomic) - BigInt(b.priceAtomic)))[0];
  if (!o) return null;
  return `curl -i -X ${o.method} ${base}${o.path} -H 'content-type: application/json' -d ${shellQuote(JSON.stringify(o.example))}`;
}

function linksOf(ctx: ModuleContext, openapi: Record<string, unknown>) {
  const served = new Set(operations(openapi).map((o) => o.path));
  return LINKS.filter((l) => served.has(l.path));
}

/** The JSON index agents get (our own keys are snake_case). */
export function frontDoorIndex(ctx: ModuleContext, openapi: Record<string, unknown>, base: string) {
  const a = ctx.payment.asset;
  return {
    service: 'agent-pay-service',
    description: 'Deterministic paid utilities and free machine-economy discovery for software agents, paid per call with x402 v2 in USDC.',
    links: Object.fromEntries(linksOf(ctx, openapi).map((l) => [l.key, base + l.path])),
    // The first rail's fields stay at the top (older clients read them); `rails` lists every chain the 402 offers.
    payment: { protocol: 'x402', x402_version: 2, scheme: 'exact', network: ctx.payment.network, asset: a.address, asset_symbol: a.symbol, decimals: a.decimals, pay_to: ctx.payment.payTo, rails: railFacts(ctx.payment) },
    how_to_pay: HOW_TO_PAY,
    paid: offersOf(ctx).map((o) => ({ id: o.id, method: o.method, url: base + o.path, title: o.title, summary: o.summary, price_atomic: o.priceAtomic, price_usd: o.priceUsd })),
  };
}

const STYLE = raw(`
:root{color-scheme:light dark;--fg:#1f2328;--muted:#59636e;--bg:#fff;--soft:#f6f8fa;--line:#d1d9e0;--link:#0550ae;--accent:#1a7f37}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--soft:#151b23;--line:#3d444d;--link:#6cb6ff;--accent:#57ab5a}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:52rem;padding:0 1.25rem 3rem;font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--link)}
header{padding:1.25rem 0 .5rem;border-bottom:3px solid var(--fg)}
h1{font-size:1.8rem;line-height:1.2;margin:.2rem 0 .4rem}
h2{font-size:1.2rem;margin:2rem 0 .6rem}
h3{font-size:1.05rem;margin:0 0 .25rem;line-height:1.35}
.lede{color:var(--muted);margin:0}
.offers{display:grid;grid-template-columns:repeat(auto-fill,minmax(20rem,1fr));gap:.9rem}
.offer{border:1px solid var(--line);border-radius:8px;padding:.85rem 1rem;background:var(--bg);min-width:0}
.offer .price{float:right;margin:0 0 .3rem .75rem;font-weight:700;color:var(--accent);white-space:nowrap}
.offer .price span{font-weight:400;color:var(--muted);font-size:.85rem}
.offer p{margin:.35rem 0}
.route code{overflow-wrap:anywhere}
details{margin-top:.4rem}details summary{cursor:pointer;color:var(--link);font-size:.9rem}
.label{font-size:.8rem;color:var(--muted);margin:.5rem 0 .1rem;text-transform:uppercase;letter-spacing:.04em}
code{font:.875em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:.6rem .75rem;margin:.2rem 0;white-space:pre-wrap;overflow-wrap:anywhere;font-size:.95em}
ol.steps{padding-left:1.4rem}ol.steps li{margin:.45rem 0}
dl.free{margin:0}dl.free dt{font-weight:600;margin-top:.6rem}dl.free dd{margin:.1rem 0 0;color:var(--muted)}
ul.links{padding-left:1.2rem}ul.links li{margin:.3rem 0}
.muted{color:var(--muted);font-size:.9rem}
footer{margin-top:2.5rem;padding-top:.75rem;border-top:1px solid var(--line);font-size:.8rem;color:var(--muted);overflow-wrap:anywhere}
`);

/** At most this much of an example is shown (the extractor's example is a whole HTML page). */
const EXAMPLE_CHARS = 360;

function excerpt(value: unknown): string {
  const text = JSON.stringify(value, null, 1).replace(/\n\s*/g, ' ');
  return text.length > EXAMPLE_CHARS ? `${text.slice(0, EXAMPLE_CHARS - 1)}…` : text;
}

/** The free things a visitor can use at once, each shown only when this instance serves it. */
const FREE: ReadonlyArray<{ path: string; name: string; what: string; also?: { path: string; label: string } }> = [
  { path: '/v1/router', name: 'Outcome router', what: 'Say what you want done, in words, and get the paid call that delivers it: the route, the exact body to send and its price, before paying anything.', also: { path: '/v1/router/quote', label: 'POST /v1/router/quote' } },
  { path: '/newswire', name: 'Newswire', what: 'Sourced news about agent payments, x402, MCP and the services around them; every item links its sources and says how strong they are.' },
  { path: '/graph', name: 'Entity graph', what: 'The protocols, facilitators, directories, wallets and resources of the machine economy and how they relate, drawn and listed.' },
  { path: '/.well-known/agent-card.json', name: 'A2A agent', what: 'Agents that speak A2A find every product as a skill here and pay inside the task (the a2a-x402 extension).', also: { path: '/a2a', label: 'POST /a2a' } },
  { path: '/mcp', name: 'MCP endpoint', what: 'MCP clients list every product as a tool; a paid tool hands the payment request back to you, and the endpoint never pays by itself.' },
];

/** The page for people. */
export function frontDoorPage(ctx: ModuleContext, openapi: Record<string, unknown>, base: string): string {
  const a = ctx.payment.asset;
  const curl = curlFor402(ctx, base);
  const devnet = ctx.payment.network === DEVNET_NETWORK;
  const links = linksOf(ctx, openapi);
  const served = new Set(operations(openapi).map((o) => o.path));
  const free = FREE.filter((f) => served.has(f.path));
  const mpp = ctx.flow.takesMpp;
  const solana = ctx.payment.solana !== undefined;
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${SERVICE_NAME}</title>
<meta name="description" content="Paid per call with x402 v2 in USDC: no account, no API key.">
<link rel="icon" href="${ICON_PATH}" type="${ICON_CONTENT_TYPE}">
<link rel="alternate" type="application/json" href="/" title="This index as JSON (Accept: application/json)">
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>${SERVICE_NAME}</h1>
<p class="lede">Deterministic utilities for software agents, paid per request in ${a.symbol}. No account and no API key: each request carries its own payment, and you pay only for a result you receive.</p>
</header>
<main>
<h2 id="for-sale">What is for sale</h2>
<div class="offers">
${offersOf(ctx).map(
  (o) => html`<article class="offer" id="offer-${o.id}">
<p class="price">$${o.priceUsd} <span>per call</span></p>
<h3>${o.title}</h3>
<p class="what">${o.summary}</p>
<p class="route"><code>${o.method} ${o.path}</code></p>
${o.example !== undefined
  ? html`<details><summary>Example</summary>
<p class="label">You send</p><pre><code>${excerpt(o.example)}</code></pre>
${o.exampleOutput !== undefined ? html`<p class="label">You get back</p><pre><code>${excerpt(o.exampleOutput)}</code></pre>` : ''}
</details>`
  : ''}
</article>
`,
)}</div>
<p class="muted">Prices per call, in ${a.symbol} (1 ${a.symbol} = US$1), paid on ${railNames(ctx.payment)}${devnet ? ' (development chains: the money is not real)' : ''}. Every paid result is computed here: no network fetches, no model calls.</p>
${free.length
  ? html`<h2 id="free">Free to use</h2>
<dl class="free">
${free.map((f) => html`<dt><a href="${f.path}">${f.name}</a>${f.also && served.has(f.also.path) ? html` · <code>${f.also.label}</code>` : ''}</dt><dd>${f.what}</dd>
`)}</dl>`
  : ''}
${curl
  ? html`<h2 id="try">Try it</h2>
<p>Ask without paying and get <strong>402 Payment Required</strong>, with the price and where to pay in the <code>PAYMENT-REQUIRED</code> header:</p>
<pre><code>${curl}</code></pre>`
  : ''}
<h2 id="pay">How to pay</h2>
<ol class="steps">
<li><strong>Call the product</strong> with its JSON body, as you would any API. Without a payment the answer is <code>402 Payment Required</code>: its <code>PAYMENT-REQUIRED</code> header states the price, the token (${a.symbol}), the network and who is paid${mpp ? html`, and <code>WWW-Authenticate: Payment</code> offers the same price to MPP clients` : ''}.</li>
<li><strong>Let a payment client sign</strong> a ${a.symbol} transfer of exactly that price on the chain you hold it on (an EIP-3009 authorization${solana ? html`, or on Solana a transfer transaction that the facilitator sends and pays the fee of` : ''}: a signature, nothing moves yet). Any x402 v2 client does it for you, such as <code>@x402/fetch</code>${devnet ? html`, or <code>npm run buy -- POST /path '{…}'</code> in the repository (add <code>--chain solana</code> to pay on Solana), which pays with the funded development buyer` : ''}.</li>
<li><strong>The client sends the same request again</strong> with the signature in the <code>PAYMENT-SIGNATURE</code> header. The service checks it, computes and stores your result, and only then settles the transfer on chain.</li>
<li><strong>You get <code>200</code></strong> with the result and a <code>PAYMENT-RESPONSE</code> receipt naming the transaction. ${RESEND_NEEDS_PROOF}</li>
</ol>
<p class="muted">x402 is the open protocol for paying over HTTP 402; ${a.symbol} is a dollar stablecoin. Invalid requests are refused with a <code>400</code> before any payment step.</p>
<h2 id="docs">For agents and developers</h2>
<ul class="links">
${links.map((l) => html`<li><a href="${l.path}">${l.label}</a> — ${l.what}</li>
`)}</ul>
<p class="muted">Agents: <code>GET /</code> with <code>Accept: application/json</code> returns this index as JSON.</p>
</main>
<footer>${railFacts(ctx.payment).map((r) => html`<div>Network ${r.network} · asset ${r.asset} (${r.asset_symbol}, ${r.decimals} decimals) · pay to ${r.pay_to}</div>`)}</footer>
</body>
</html>
`;
  return settled(page);
}

/** hono's html`` is a Promise only when a value was one; none here is. */
function settled(h: HtmlEscapedString | Promise<HtmlEscapedString>): string {
  if (h instanceof Promise) throw new Error('front door: an asynchronous value in the page');
  return h.toString();
}

/** Accept: text/html (as browsers send) → the page; anything else, `*\/*` included → JSON. */
export function wantsHtml(c: Context): boolean {
  return accepts(c, { header: 'Accept', supports: ['application/json', 'text/html'], default: 'application/json' }) === 'text/html';
}

export const FRONT_DOOR_OPERATION = {
  operationId: 'getFrontDoor',
  summary: 'Front door: what is for sale and where everything is (HTML for browsers, JSON otherwise)',
  description: 'Content negotiation on Accept: `text/html` gets a page for people; anything else gets a JSON index of links and paid resources with their prices.',
  tags: ['discovery'],
  security: [],
  responses: {
    '200': {
      description: 'The index',
      headers: { Vary: { schema: { type: 'string', const: 'Accept' } } },
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['service', 'links', 'payment', 'how_to_pay', 'paid'],
            properties: {
              service: { type: 'string' },
              description: { type: 'string' },
              links: { type: 'object', additionalProperties: { type: 'string', format: 'uri' } },
              payment: { type: 'object' },
              how_to_pay: { type: 'string' },
              paid: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['id', 'method', 'url', 'price_atomic', 'price_usd'],
                  properties: {
                    id: { type: 'string' },
                    method: { type: 'string' },
                    url: { type: 'string', format: 'uri' },
                    title: { type: 'string' },
                    summary: { type: 'string', description: 'What a call returns, in one sentence.' },
                    price_atomic: { type: 'string' },
                    price_usd: { type: 'string' },
                  },
                },
              },
            },
          },
        },
        'text/html': { schema: { type: 'string' } },
      },
    },
  },
};
