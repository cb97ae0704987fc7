/**
 * The operator's dashboard and its sign-in form as HTML: server-rendered,
 * no script, nothing from another origin (styles inline, charts inline SVG),
 * every value escaped by `html```. It renders a DashboardReport and nothing
 * else, so the page shows exactly what /admin/dashboard.json says.
 */
import { html, raw, type Html } from '../intel/pages/html.js';
import { bar, PALETTE, stackedColumns } from './charts.js';
import { DASHBOARD_WINDOWS, type DashboardReport, type DashboardWindowName } from './report.js';
import type { FacilitatorOperationHealth } from '../observability/facilitator-health.js';
import { ATTEMPT_STATES, type AttemptState } from '../store/ledger.js';
import { pageCsp } from '../http/security-headers.js';

export const DASHBOARD_PATH = '/admin/dashboard';
export const DASHBOARD_JSON_PATH = '/admin/dashboard.json';
export const LOGIN_PATH = '/admin/login';
export const LOGOUT_PATH = '/admin/logout';

/** No script, no frames, no foreign origin; forms post only here. */
export const OPERATOR_CSP = pageCsp("default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; base-uri 'none'");

const STYLE = raw(`
:root{color-scheme:light dark;--fg:#1f2328;--muted:#59636e;--bg:#fff;--soft:#f6f8fa;--line:#d1d9e0;--link:#0550ae;--warn:#9a6700;--warn-bg:#fff8c5;--bad:#b01a2c;--ok:#1a7f37}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--soft:#151b23;--line:#3d444d;--link:#6cb6ff;--warn:#daaa3f;--warn-bg:#2e2206;--bad:#ff7b72;--ok:#57ab5a}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:72rem;padding:0 1rem 3rem;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--link)}
header.top{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:center;justify-content:space-between;padding:1rem 0 .6rem;border-bottom:3px solid var(--fg)}
h1{font-size:1.5rem;margin:0}
h2{font-size:1.15rem;margin:2rem 0 .5rem}
nav.windows{display:flex;flex-wrap:wrap;gap:.25rem .9rem;align-items:center;font-size:.925rem}
nav.windows [aria-current]{font-weight:700;color:var(--fg);text-decoration:none}
form.inline{display:inline;margin:0}
button{font:inherit;padding:.25rem .7rem;border:1px solid var(--line);border-radius:5px;background:var(--soft);color:var(--fg);cursor:pointer}
.note{color:var(--muted);font-size:.875rem;margin:.4rem 0}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(10.5rem,1fr));gap:.75rem;margin-top:1rem}
.card{border:1px solid var(--line);border-radius:8px;padding:.7rem .85rem;background:var(--soft)}
.card .k{font-size:.8rem;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
.card .v{font-size:1.45rem;font-weight:700;line-height:1.25;overflow-wrap:anywhere}
.card .s{font-size:.825rem;color:var(--muted)}
.card.warn{border-color:var(--warn);background:var(--warn-bg)}
.grid2{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,30rem),1fr));gap:0 2rem}
figure.chart{margin:.5rem 0 1rem}
figure.chart svg{display:block;width:100%;height:190px;border-left:1px solid var(--line)}
figure.chart .grid{stroke:var(--line);stroke-dasharray:4 4}
figure.chart .base{stroke:var(--muted)}
.axis-y,.axis-x{font-size:.75rem;color:var(--muted)}
.axis-x{display:flex;justify-content:space-between;gap:1rem}
figcaption{display:flex;flex-wrap:wrap;gap:.2rem 1rem;font-size:.825rem;margin-top:.3rem}
.key{display:inline-flex;align-items:center;gap:.35rem}
.swatch{display:inline-block;width:.8rem;height:.8rem;border-radius:2px}
.empty{color:var(--muted);font-size:.875rem;margin:.2rem 0}
.table-wrap{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%;font-size:.875rem}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-weight:600;color:var(--muted);white-space:nowrap}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.barcell{width:40%;min-width:5rem}
svg.bar{display:block;width:100%;height:.8rem;margin-top:.3rem;background:var(--soft)}
code{font-size:.8rem;overflow-wrap:anywhere;word-break:break-all}
@media (max-width:44rem){
table.rows thead{position:absolute;left:-9999px}
table.rows,table.rows tbody,table.rows tfoot,table.rows tr,table.rows td{display:block}
table.rows tr{border-bottom:1px solid var(--line);padding:.45rem 0}
table.rows td,table.rows td.n{border:0;padding:.05rem 0;text-align:left;white-space:normal}
table.rows td::before{content:attr(data-label);display:inline-block;min-width:9rem;padding-right:.5rem;color:var(--muted);font-size:.8rem}
table.rows td:first-child{font-weight:600}
}
.up{color:var(--ok);font-weight:600}.down{color:var(--bad);font-weight:600}
.state-unknown{color:var(--bad);font-weight:600}
form.login{display:flex;flex-direction:column;gap:.75rem;max-width:24rem;margin:1.5rem 0}
form.login input{font:inherit;padding:.4rem .5rem;width:100%}
.problem{padding:.5rem .75rem;border-left:4px solid var(--bad);background:var(--soft)}
footer{margin-top:2.5rem;padding-top:.75rem;border-top:1px solid var(--line);font-size:.8rem;color:var(--muted)}
`);

function frame(title: string, body: Html): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`.text;
}

/** The sign-in form (a 401 answer of the dashboard, and the answer to a wrong token). */
export function loginPage(problem?: string): string {
  return frame(
    'Operator sign-in · agent-pay-service',
    html`<header class="top"><h1>Operator dashboard</h1></header>
<main>
<p>This page is for the service's operator. Enter the service's <code>ADMIN_TOKEN</code>; it is sent once, in this form's body, and the browser keeps a session cookie (HttpOnly, SameSite=Strict, 12 hours) that holds no secret.</p>
${problem ? html`<p class="problem" role="alert">${problem}</p>` : null}
<form class="login" method="post" action="${LOGIN_PATH}">
<label for="token">Admin token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required minlength="16">
<button type="submit">Open the dashboard</button>
</form>
<p class="note">Scripts can skip this: <code>curl -H "Authorization: Bearer $ADMIN_TOKEN" ${DASHBOARD_JSON_PATH}</code> returns the same figures as JSON.</p>
</main>`,
  );
}

/** A bad query on an otherwise authorised request. */
export function problemPage(message: string): string {
  return frame('Bad request · Operator dashboard', html`<header class="top"><h1>Operator dashboard</h1></header><main><p class="problem" role="alert">${message}</p><p><a href="${DASHBOARD_PATH}">Back to the dashboard</a></p></main>`);
}

const count = (n: number) => n.toLocaleString('en-US');
/** "1 paid call", "2 paid calls". */
const calls = (n: number) => `${count(n)} paid call${n === 1 ? '' : 's'}`;
const dollars = (usd: string) => `$${usd}`;
const seconds = (s: number | null) => (s === null ? '–' : s < 1 ? `${Math.round(s * 1000)} ms` : s < 120 ? `${s.toFixed(s < 10 ? 2 : 1)} s` : `${(s / 60).toFixed(1)} min`);
const percent = (f: number | null) => (f === null ? '–' : `${Math.round(f * 100)}%`);
/** "2026-11-26 21:00" (UTC), for axes and tables. */
const minute = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
const age = (s: number) => (s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : s < 172_800 ? `${Math.round(s / 3600)} h` : `${Math.round(s / 86_400)} d`);

interface Cell {
  label: string;
  value: Html | string;
  num?: boolean;
  cls?: string;
}

/**
 * A table of rows with a header; on a narrow screen each row becomes a block
 * of "label value" lines (the labels from `data-label`), so a phone reads it
 * without scrolling sideways.
 */
function rowsTable(id: string, rows: readonly Cell[][], foot?: readonly Cell[]): Html {
  const head = rows[0] ?? foot ?? [];
  const td = (c: Cell) => html`<td data-label="${c.label}" class="${[c.num ? 'n' : '', c.cls ?? ''].join(' ').trim()}">${c.value}</td>`;
  return html`<div class="table-wrap"><table class="rows" id="${id}"><thead><tr>${head.map((c) => html`<th${c.num ? raw(' class="n"') : null}>${c.label}</th>`)}</tr></thead>
<tbody>${rows.map((r) => html`<tr>${r.map(td)}</tr>`)}</tbody>${foot ? html`<tfoot><tr>${foot.map(td)}</tr></tfoot>` : null}</table></div>`;
}

function card(k: string, v: string, s: Html | string | null = null, warn = false): Html {
  return html`<div class="card${warn ? ' warn' : ''}"><div class="k">${k}</div><div class="v">${v}</div>${s === null ? null : html`<div class="s">${s}</div>`}</div>`;
}

function windowNav(current: DashboardWindowName): Html {
  return html`<nav class="windows" aria-label="Window">${(Object.keys(DASHBOARD_WINDOWS) as DashboardWindowName[]).map((name) =>
    name === current ? html`<a aria-current="page" href="${DASHBOARD_PATH}?window=${name}">${DASHBOARD_WINDOWS[name].label}</a>` : html`<a href="${DASHBOARD_PATH}?window=${name}">${DASHBOARD_WINDOWS[name].label}</a>`,
  )}<a href="${DASHBOARD_JSON_PATH}?window=${current}">JSON</a><form class="inline" method="post" action="${LOGOUT_PATH}"><button type="submit">Sign out</button></form></nav>`;
}

const STATE_COLOUR: Record<AttemptState, string> = {
  reserved: '#8c959f',
  verified: '#8c959f',
  executed: '#c9a227',
  settling: '#c9a227',
  settled: '#2a9d5b',
  failed: '#6c757d',
  unknown: '#d1495b',
};

function facilitatorRow(name: string, up: boolean | null, op: 'verify' | 'settle', h: FacilitatorOperationHealth): Cell[] {
  const outcomes = Object.entries(h.outcomes)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k} ${count(v)}`)
    .join(', ');
  return [
    { label: 'Facilitator', value: html`<code>${name}</code>` },
    { label: 'Now', value: up === null ? '–' : up ? html`<span class="up">up</span>` : html`<span class="down">down</span>` },
    { label: 'Call', value: op },
    { label: 'Calls', value: count(h.calls), num: true },
    { label: 'Outcomes', value: outcomes || '–' },
    { label: 'Errors', value: h.errors ? html`<span class="down">${count(h.errors)}</span>` : '0', num: true },
    { label: 'Mean', value: seconds(h.meanSeconds), num: true },
    { label: 'Median', value: h.p50AtMostSeconds === null ? '–' : `≤ ${seconds(h.p50AtMostSeconds)}`, num: true },
    { label: '90th percentile', value: h.p90AtMostSeconds === null ? '–' : `≤ ${seconds(h.p90AtMostSeconds)}`, num: true },
  ];
}

export function dashboardPage(r: DashboardReport): string {
  const colour = new Map(r.capabilities.map((c, i) => [c.resource, PALETTE[i % PALETTE.length]!]));
  const name = (resource: string) => r.capabilities.find((c) => c.resource === resource)?.title ?? resource;
  const bucketNames = r.series.buckets.map(minute);
  const series = (pick: 'paidCalls' | 'revenueUsd') => r.series.byCapability.map((s) => ({ name: name(s.resource), colour: colour.get(s.resource) ?? PALETTE[7]!, values: s[pick] }));
  const first = bucketNames[0] ?? '';
  const last = minute(r.window.to);
  const states = ATTEMPT_STATES.map((s) => [s, r.attempts.byState[s]] as const);
  const maxState = Math.max(0, ...states.map(([, n]) => n));
  const perBin = r.settlement.histogram.map((b, i) => ({ label: `≤ ${seconds(b.atMostSeconds)}`, n: b.count - (i ? r.settlement.histogram[i - 1]!.count : 0) }));
  const slower = r.settlement.count - (r.settlement.histogram.at(-1)?.count ?? 0);
  if (slower > 0 || r.settlement.count === 0) perBin.push({ label: `> ${seconds(r.settlement.histogram.at(-1)?.atMostSeconds ?? 0)}`, n: slower });
  const maxBin = Math.max(0, ...perBin.map((b) => b.n));
  const facilitatorsUp = r.facilitators.filter((f) => f.up).length;
  const unresolvedOld = r.attempts.unresolved.filter((u) => u.lease !== 'held').length;

  const body = html`<header class="top"><h1>Operator dashboard</h1>${windowNav(r.window.name)}</header>
<p class="note">${r.window.label}: ${minute(r.window.from)} to ${minute(r.window.to)} UTC, ${r.asset.symbol} on ${r.asset.network}. Generated ${minute(r.generatedAt)} UTC. A paid call is a delivery: settled on chain with its result stored. <strong>Independent</strong> leaves out the operator's wallets, the payee and the published test wallets (the devnet's buyers), as the newswire does.</p>
<main>
<section class="cards" aria-label="Headline figures">
${card('Revenue', dollars(r.totals.revenue.usd), calls(r.totals.paidCalls))}
${card('Independent revenue', dollars(r.totals.independentRevenue.usd), calls(r.totals.independentPaidCalls))}
${card('Buyers', count(r.buyers.count), `${percent(r.buyers.repeatShare)} came back (${count(r.buyers.repeat)})`)}
${card('Unresolved attempts', count(r.attempts.unresolvedTotal), `${count(r.attempts.unresolved.filter((u) => u.state === 'unknown').length)} unknown; ${count(unresolvedOld)} not in flight`, r.attempts.unresolvedTotal > 0 && unresolvedOld > 0)}
${card('Time to settle', seconds(r.settlement.meanSeconds), r.settlement.count ? `mean of ${count(r.settlement.count)}; slowest ${seconds(r.settlement.maxSeconds)}` : 'no settlement in the window')}
${card('Facilitators up', `${facilitatorsUp} of ${r.facilitators.length}`, 'as this instance sees them', facilitatorsUp < r.facilitators.length)}
</section>

<div class="grid2">
<section aria-labelledby="revenue-h">
<h2 id="revenue-h">Revenue per capability, by ${r.window.bucketLabel}</h2>
${stackedColumns({ label: `Revenue in dollars per ${r.window.bucketLabel}, stacked by capability`, buckets: bucketNames, series: series('revenueUsd'), format: (v) => `$${Number(v.toPrecision(6))}`, first, last })}
</section>
<section aria-labelledby="calls-h">
<h2 id="calls-h">Paid calls per capability, by ${r.window.bucketLabel}</h2>
${stackedColumns({ label: `Paid calls per ${r.window.bucketLabel}, stacked by capability`, buckets: bucketNames, series: series('paidCalls'), format: (v) => count(v), first, last })}
</section>
</div>

${rowsTable(
  'capabilities',
  r.capabilities.map((c) => [
    { label: 'Capability', value: html`<span class="swatch" style="background:${colour.get(c.resource)}"></span> ${c.title ?? c.resource}${c.path ? html`<br><code>${c.path}</code>` : null}` },
    { label: 'Paid calls', value: count(c.paidCalls), num: true },
    { label: 'Revenue', value: dollars(c.revenue.usd), num: true },
    { label: 'Independent calls', value: count(c.independentPaidCalls), num: true },
    { label: 'Independent revenue', value: dollars(c.independentRevenue.usd), num: true },
  ]),
  [
    { label: 'Capability', value: 'All' },
    { label: 'Paid calls', value: count(r.totals.paidCalls), num: true },
    { label: 'Revenue', value: dollars(r.totals.revenue.usd), num: true },
    { label: 'Independent calls', value: count(r.totals.independentPaidCalls), num: true },
    { label: 'Independent revenue', value: dollars(r.totals.independentRevenue.usd), num: true },
  ],
)}

<div class="grid2">
<section aria-labelledby="states-h">
<h2 id="states-h">Payment attempts by state</h2>
<p class="note">Attempts created in the window, by the state they are in now. <code>unknown</code>: a settlement the facilitator refused or left unanswered, which the reconciler asks the chain about until it is mined or can no longer be.</p>
<div class="table-wrap"><table id="states"><tbody>${states.map(([s, n]) => html`<tr><th scope="row" class="${s === 'unknown' && n > 0 ? 'state-unknown' : ''}">${s}</th><td class="n">${count(n)}</td><td class="barcell">${bar(n, maxState, STATE_COLOUR[s], `${s}: ${n}`)}</td></tr>`)}</tbody></table></div>
</section>
<section aria-labelledby="settle-h">
<h2 id="settle-h">Time from payment to settlement</h2>
<p class="note">For the ${count(r.settlement.count)} deliveries settled in the window: from the authorization's arrival to its settlement recorded (verify, run, settle).</p>
<div class="table-wrap"><table id="settlement"><tbody>${perBin.map((b) => html`<tr><th scope="row">${b.label}</th><td class="n">${count(b.n)}</td><td class="barcell">${bar(b.n, maxBin, '#2f6fdf', `${b.label}: ${b.n}`)}</td></tr>`)}</tbody></table></div>
</section>
</div>

<section aria-labelledby="unresolved-h">
<h2 id="unresolved-h">Unresolved attempts (${count(r.attempts.unresolvedTotal)})</h2>
<p class="note">Neither settled nor failed, of any age, oldest first${r.attempts.unresolvedTotal > r.attempts.unresolved.length ? `, the first ${r.attempts.unresolved.length}` : ''}. Lease <em>held</em>: a request or the reconciler is driving it now; <em>expired</em> or <em>free</em>: nobody is, and the reconciler resolves those in executed, settling or unknown.</p>
${r.attempts.unresolved.length === 0
    ? html`<p class="empty">None.</p>`
    : rowsTable(
        'unresolved',
        r.attempts.unresolved.map((u) => [
          { label: 'State', value: u.state, cls: u.state === 'unknown' ? 'state-unknown' : '' },
          { label: 'Age', value: age(u.ageSeconds), num: true },
          { label: 'Lease', value: u.lease },
          { label: 'Capability', value: name(u.resource) },
          { label: 'Amount', value: dollars(u.amount.usd), num: true },
          { label: 'Payer', value: html`<code>${u.payer}</code>` },
          { label: 'Why / facilitator', value: html`${u.failureCode ?? ''}${u.facilitator ? html`<br><code>${u.facilitator}</code>` : null}${u.txHash ? html`<br>tx <code>${u.txHash}</code>` : null}` },
          { label: 'Attempt', value: html`<code>${u.id}</code>` },
        ]),
      )}
</section>

<section aria-labelledby="facilitators-h">
<h2 id="facilitators-h">Facilitators</h2>
<p class="note">Verify and settle calls as this instance saw them since it started (from its <a href="/metrics">/metrics</a>; Grafana sums every instance). Errors are calls without an answer: timeout, 5xx or network; percentiles are the bucket bounds that hold them.</p>
${r.facilitators.length === 0
    ? html`<p class="empty">No facilitator call yet.</p>`
    : rowsTable('facilitators', r.facilitators.flatMap((f) => [facilitatorRow(f.facilitator, f.up, 'verify', f.verify), facilitatorRow(f.facilitator, f.up, 'settle', f.settle)]))}
</section>

<section aria-labelledby="buyers-h">
<h2 id="buyers-h">Buyers</h2>
<p class="note">${count(r.buyers.count)} independent buyers paid in the window; ${count(r.buyers.repeat)} of them (${percent(r.buyers.repeatShare)}) more than once. Left out: ${count(r.buyers.excluded.payers)} own or test wallets with ${calls(r.buyers.excluded.paidCalls)} (${dollars(r.buyers.excluded.revenue.usd)}).</p>
${r.buyers.top.length === 0
    ? html`<p class="empty">No independent buyer in this window.</p>`
    : rowsTable(
        'buyers',
        r.buyers.top.map((b) => [
          { label: 'Payer', value: html`<code>${b.payer}</code>` },
          { label: 'Paid calls', value: count(b.paidCalls), num: true },
          { label: 'Spent', value: dollars(b.revenue.usd), num: true },
          { label: 'First', value: minute(b.firstSettledAt) },
          { label: 'Latest', value: minute(b.lastSettledAt) },
        ]),
      )}
</section>

<section aria-labelledby="deliveries-h">
<h2 id="deliveries-h">Last deliveries</h2>
${r.lastDeliveries.length === 0
    ? html`<p class="empty">No delivery yet.</p>`
    : rowsTable(
        'deliveries',
        r.lastDeliveries.map((d) => [
          { label: 'Settled (UTC)', value: minute(d.settledAt) },
          { label: 'Capability', value: name(d.resource) },
          { label: 'Amount', value: dollars(d.amount.usd), num: true },
          { label: 'Payer', value: html`<code>${d.payer}</code>` },
          { label: 'Transaction', value: html`<code>${d.txHash ?? '–'}</code><br><span class="note">${d.network}</span>` },
          { label: 'Took', value: seconds(d.secondsToSettle), num: true },
        ]),
      )}
</section>
</main>
<footer><p>Figures from the payment ledger (the source of truth for delivery) and this instance's metrics. The same document as JSON: <a href="${DASHBOARD_JSON_PATH}?window=${r.window.name}">${DASHBOARD_JSON_PATH}</a>. A Grafana dashboard over /metrics is in the repository: ops/grafana/agent-pay-service.json.</p></footer>`;
  return frame(`Operator dashboard · ${r.window.label}`, body);
}
