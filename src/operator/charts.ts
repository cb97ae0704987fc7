/**
 * Charts drawn on the server as inline SVG: no script, nothing fetched, and
 * the data is in the page itself (each bar carries a <title> tooltip, and a
 * table beside every chart gives the exact figures).
 *
 * The drawing holds no text: it is stretched to the width it is given
 * (preserveAspectRatio="none"), and text inside a stretched or shrunk SVG
 * would be unreadable on a phone. Axis labels are HTML around it.
 */
import { html, type Html } from '../intel/pages/html.js';

/** Distinct on light and dark backgrounds, in the order capabilities are listed. */
export const PALETTE = ['#2f6fdf', '#e8772e', '#2a9d5b', '#b54fc2', '#c9a227', '#d1495b', '#1b998b', '#6c757d'];

export interface Series {
  name: string;
  colour: string;
  values: readonly number[];
}

/** The smallest 1, 2 or 5 × 10ⁿ at or above `v` (0 for nothing). */
function niceCeiling(v: number): number {
  if (!(v > 0)) return 0;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * p >= v * (1 - 1e-12)) return m * p;
  return 10 * p;
}

const W = 1000;
const H = 200;

/**
 * Stacked columns, one per bucket: `buckets` name each column (its tooltip),
 * `series` stack in the given order from the bottom.
 */
export function stackedColumns(o: { label: string; buckets: readonly string[]; series: readonly Series[]; format: (v: number) => string; first: string; last: string }): Html {
  const totals = o.buckets.map((_, i) => o.series.reduce((n, s) => n + (s.values[i] ?? 0), 0));
  const top = niceCeiling(Math.max(0, ...totals));
  const step = W / Math.max(1, o.buckets.length);
  const bars: Html[] = [];
  if (top > 0) {
    o.buckets.forEach((bucket, i) => {
      let y = H;
      for (const s of o.series) {
        const v = s.values[i] ?? 0;
        if (v <= 0) continue;
        const h = (v / top) * H;
        y -= h;
        bars.push(html`<rect x="${(i * step + step * 0.1).toFixed(2)}" y="${y.toFixed(2)}" width="${(step * 0.8).toFixed(2)}" height="${h.toFixed(2)}" fill="${s.colour}"><title>${bucket} · ${s.name}: ${o.format(v)}</title></rect>`);
      }
    });
  }
  const grid = [0.25, 0.5, 0.75].map((f) => html`<line x1="0" x2="${W}" y1="${H * f}" y2="${H * f}" class="grid" vector-effect="non-scaling-stroke"/>`);
  return html`<figure class="chart">
<div class="axis-y"><span>${top > 0 ? o.format(top) : ''}</span></div>
<svg viewBox="0 0 ${W} ${H}" preserveAspectRatio="none" role="img" aria-label="${o.label}"><title>${o.label}</title>${grid}<line x1="0" x2="${W}" y1="${H}" y2="${H}" class="base" vector-effect="non-scaling-stroke"/>${bars}</svg>
<div class="axis-x"><span>${o.first}</span><span>${o.last}</span></div>
${top > 0 ? null : html`<p class="empty">Nothing in this window.</p>`}
<figcaption>${o.series.map((s) => html`<span class="key"><span class="swatch" style="background:${s.colour}"></span>${s.name}</span>`)}</figcaption>
</figure>`;
}

/** One horizontal bar, `value` of `max`, for a row of a table. */
export function bar(value: number, max: number, colour: string, label: string): Html {
  const width = max > 0 ? Math.max(value > 0 ? 0.5 : 0, (value / max) * 100) : 0;
  return html`<svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" aria-label="${label}"><rect x="0" y="0" width="${width.toFixed(2)}" height="10" fill="${colour}"/></svg>`;
}
