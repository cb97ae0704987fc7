/**
 * The entity graph as a picture (`GET /graph`): entities on two arcs of a
 * circle, grouped by type, relationships as arrows between them, drawn on the server as
 * inline SVG (no script, nothing from another origin); where that is too wide
 * for the screen, the page's style shows the same graph in one column
 * instead, with whole labels; and the same facts as
 * a list below it for a phone, a screen reader or a reader who wants the
 * relation names. `?type=PROTOCOL,DIRECTORY` keeps entities of those types
 * and the relationships between them; each entity links to its newswire items.
 */
import type { Context } from 'hono';
import { parseQuery } from '../http.js';
import type { ContentStore } from '../store/contract.js';
import { ENTITY_TYPES, type Entity, type EntityType, type Relationship } from '../types.js';
import { frame, problemPage, sendHtml } from './frame.js';
import { html, type Html } from './html.js';
import type { PageDeps } from './lookups.js';
import { PAGE_PARAMETERS, withoutEmptyParams } from './parameters.js';
import { entityTypeLabel, feedHref, GRAPH_PAGE_PATH, plural } from './wording.js';

/** At most this many entities are drawn; past it the page asks for a type filter (the list still names every one). */
const GRAPH_PICTURE_MAX_NODES = 150;
/** How much of the graph one page reads, in pages of the store's collections. */
const READ_LIMIT = { entities: 2000, relationships: 5000 };

/** One colour per entity type, readable on the light and the dark page background. */
export const TYPE_COLOURS: Record<EntityType, string> = {
  PROTOCOL: '#2f6fdb',
  MARKETPLACE: '#b8860b',
  WALLET_PRODUCT: '#c2410c',
  ORGANIZATION: '#6d28d9',
  NETWORK: '#0f766e',
  PAYMENT_RAIL: '#15803d',
  DIRECTORY: '#be185d',
  EVENT: '#64748b',
  MCP_TOOL: '#0e7490',
  MCP_SERVER: '#4338ca',
  X402_RESOURCE: '#b91c1c',
  ASSET: '#a16207',
};

export interface GraphData {
  entities: Entity[];
  relationships: Relationship[];
}

/** Every item of a paged collection, up to `max` (more: `truncated`). */
async function readPages<T extends { id: string }>(page: (afterId: string | undefined) => Promise<{ items: T[]; more: boolean }>, max: number): Promise<{ items: T[]; truncated: boolean }> {
  const items: T[] = [];
  for (let afterId: string | undefined; ; ) {
    const p = await page(afterId);
    items.push(...p.items);
    if (!p.more) return { items, truncated: false };
    if (items.length >= max) return { items, truncated: true };
    afterId = p.items.at(-1)!.id;
  }
}

/** Every entity and relationship, in pages, up to READ_LIMIT. */
async function readGraph(store: ContentStore): Promise<GraphData & { truncated: boolean }> {
  const [entities, relationships] = await Promise.all([
    readPages((afterId) => store.entities({ limit: 500, afterId }), READ_LIMIT.entities),
    readPages((afterId) => store.relationships({ limit: 500, afterId }), READ_LIMIT.relationships),
  ]);
  return { entities: entities.items, relationships: relationships.items, truncated: entities.truncated || relationships.truncated };
}

/** The entities of `types` (all when empty) in drawing order (type, then name), and the relationships between them. */
export function selectGraph(g: GraphData, types: readonly EntityType[]): GraphData {
  const keep = types.length ? new Set(types) : undefined;
  const order = new Map(ENTITY_TYPES.map((t, i) => [t, i]));
  const entities = g.entities
    .filter((e) => !keep || keep.has(e.type))
    .sort((a, b) => order.get(a.type)! - order.get(b.type)! || a.name.localeCompare(b.name, 'en') || a.id.localeCompare(b.id));
  const drawn = new Set(entities.map((e) => e.id));
  return { entities, relationships: g.relationships.filter((r) => drawn.has(r.from) && drawn.has(r.to)) };
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const shorten = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** Where one entity is drawn: its dot, which side its label runs to, and the label's lines. */
interface Placed {
  x: number;
  y: number;
  right: boolean;
  lines: string[];
}

/** One way of drawing the graph: its size, where each entity sits, and how an arrow runs between two of them. */
interface Layout {
  width: number;
  height: number;
  at: Placed[];
  /** The path of an arrow from `a` to `b`, ending short of b's dot so the arrowhead shows. */
  edge(a: Placed, b: Placed): string;
}

/**
 * Where each entity sits: on two facing arcs of one circle (the right arc top
 * to bottom, then the left arc bottom to top, so each type is one stretch),
 * evenly spaced in height. Labels run outwards, horizontally, so neighbours
 * never overlap, which they would at the top and bottom of a full ring.
 */
function arcLayout(names: readonly string[]): Layout {
  const n = names.length;
  const right = Math.ceil(n / 2);
  const perSide = Math.max(right, 2);
  const r = Math.max(170, perSide * 19);
  const half = r * Math.sin(Math.PI / 3);
  const labelRoom = 250;
  const width = 2 * (r + labelRoom);
  const height = 2 * half + 40;
  const c = { x: width / 2, y: height / 2 };
  const at = names.map((name, i) => {
    const onRight = i < right;
    const k = onRight ? i : i - right;
    const count = onRight ? right : n - right;
    // Top to bottom on the right, bottom to top on the left.
    const t = count === 1 ? 0.5 : k / (count - 1);
    const y = onRight ? -half + 2 * half * t : half - 2 * half * t;
    const x = Math.sqrt(Math.max(r * r - y * y, 0));
    return { x: c.x + (onRight ? x : -x), y: c.y + y, right: onRight, lines: [shorten(name, 30)] };
  });
  const edge = (a: Placed, b: Placed) => {
    // The control point sits between the centre and the chord's midpoint: neighbours bend a little, opposites a lot.
    const qx = c.x + ((a.x + b.x) / 2 - c.x) * 0.3;
    const qy = c.y + ((a.y + b.y) / 2 - c.y) * 0.3;
    const dx = b.x - qx;
    const dy = b.y - qy;
    const len = Math.hypot(dx, dy) || 1;
    return `M${round1(a.x)} ${round1(a.y)} Q${round1(qx)} ${round1(qy)} ${round1(b.x - (dx / len) * 7)} ${round1(b.y - (dy / len) * 7)}`;
  };
  return { width, height, at, edge };
}

/** The label font size (px), as the page's style sets it for both drawings. */
const LABEL_PX = 13;
/** The column drawing's width: a 390 px phone's graph box, drawn at 1:1 there (narrower screens scale it down). */
const COLUMN_WIDTH = 348;
/** The column drawing's room for arrows, left of the dots. */
const COLUMN_ARC_ROOM = 100;
const COLUMN_LINE = 16;
const COLUMN_ROW = 24;

/**
 * A label's width in em, over-estimated: per-character advances near those of
 * DejaVu Sans, the widest of the usual system sans faces, so a label wrapped
 * by it fits in whatever face the browser picks.
 */
function widthEm(s: string): number {
  let em = 0;
  for (const ch of s) {
    if (ch === ' ') em += 0.32;
    else if (`fijlrtI!|.,:;'"\`()[]{}/\\-`.includes(ch)) em += 0.42;
    else if ('mwMW@%'.includes(ch)) em += 1;
    else if (ch >= 'A' && ch <= 'Z') em += 0.8;
    else if (ch >= '0' && ch <= '9') em += 0.64;
    else if (ch >= 'a' && ch <= 'z') em += 0.64;
    else em += 1;
  }
  return em;
}

/** A name in lines that each fit `roomEm`: broken after spaces, hyphens and slashes, and inside a word only when it alone is too wide. */
function wrapLabel(name: string, roomEm: number): string[] {
  const lines: string[] = [];
  let line = '';
  const push = () => {
    if (line.trim()) lines.push(line.trim());
    line = '';
  };
  for (const token of name.split(/(?<=[\s/-])/)) {
    if (widthEm(line + token.trimEnd()) <= roomEm) {
      line += token;
      continue;
    }
    push();
    for (const ch of token.trimStart()) {
      if (widthEm(line + ch) > roomEm) push();
      line += ch;
    }
  }
  push();
  return lines.length ? lines : [name];
}

/**
 * For a narrow screen: the entities in one column, grouped by type, each
 * label whole (wrapped onto as many lines as it needs) to the right of its
 * dot, and each relationship an arc on the left, wider the further apart its
 * ends are.
 */
function columnLayout(names: readonly string[]): Layout {
  const dotX = COLUMN_ARC_ROOM;
  const labelX = dotX + 12;
  const roomEm = (COLUMN_WIDTH - labelX - 4) / LABEL_PX;
  const pad = 14;
  let y = pad;
  const at = names.map((name) => {
    const lines = wrapLabel(name, roomEm);
    const row = Math.max(COLUMN_ROW, lines.length * COLUMN_LINE + 8);
    const placed = { x: dotX, y: y + row / 2, right: true, lines };
    y += row;
    return placed;
  });
  const height = y + pad;
  const edge = (a: Placed, b: Placed) => {
    // A cubic whose two control points lie `d` left of the column reaches 3/4 d out: the widest arc stays in its room.
    const bulge = 10 + ((COLUMN_ARC_ROOM - 18) * Math.abs(a.y - b.y)) / height;
    const d = bulge / 0.75;
    return `M${round1(a.x)} ${round1(a.y)} C${round1(a.x - d)} ${round1(a.y)} ${round1(b.x - d)} ${round1(b.y)} ${round1(b.x - 7)} ${round1(b.y)}`;
  };
  return { width: COLUMN_WIDTH, height, at, edge };
}

/** The ids one drawing's title, description and arrowhead go by (two drawings share a page). */
interface DrawingIds {
  className: string;
  title: string;
  desc: string;
  arrow: string;
}

/** The SVG of one layout: arrows first, then the entities, each linking to its newswire items. Deterministic. */
function drawing(g: GraphData, layout: Layout, ids: DrawingIds, shape: string): Html {
  const n = g.entities.length;
  const at = new Map(g.entities.map((e, i) => [e.id, layout.at[i]!]));
  const edges = g.relationships.map((rel) => {
    const d = layout.edge(at.get(rel.from)!, at.get(rel.to)!);
    return html`<path class="edge" d="${d}" marker-end="url(#${ids.arrow})"><title>${nameOf(g, rel.from)} ${relationLabel(rel.type)} ${nameOf(g, rel.to)}</title></path>`;
  });
  const nodes = g.entities.map((e) => {
    const p = at.get(e.id)!;
    const lx = round1(p.x + (p.right ? 12 : -12));
    // Lines centred on the dot; a single line sits as it always has.
    const ly = round1(p.y + 4 - ((p.lines.length - 1) * COLUMN_LINE) / 2);
    const text =
      p.lines.length === 1
        ? html`${p.lines[0]!}`
        : html`${p.lines.map((l, i) => html`<tspan x="${lx}"${i ? html` dy="${COLUMN_LINE}"` : null}>${l}</tspan>`)}`;
    return html`<a href="${feedHref({ entity: e.id })}" aria-label="${e.name} (${entityTypeLabel(e.type)}): its newswire items"><g class="node"><title>${e.name} · ${entityTypeLabel(e.type)} · ${e.id}</title><circle cx="${round1(p.x)}" cy="${round1(p.y)}" r="6" fill="${TYPE_COLOURS[e.type]}"/><text x="${lx}" y="${ly}" text-anchor="${p.right ? 'start' : 'end'}">${text}</text></g></a>`;
  });
  return html`<svg class="${ids.className}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${round1(layout.width)} ${round1(layout.height)}" width="${round1(layout.width)}" height="${round1(layout.height)}" role="img" aria-labelledby="${ids.title} ${ids.desc}">
<title id="${ids.title}">Entity graph</title>
<desc id="${ids.desc}">${plural(n, 'entity', 'entities')} ${shape}, and ${plural(g.relationships.length, 'relationship', 'relationships')} drawn as arrows from one to the other. The same facts are listed below the picture.</desc>
<defs><marker id="${ids.arrow}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" class="arrowhead"/></marker></defs>
<g class="edges">${edges}</g>
<g class="nodes">${nodes}</g>
</svg>`;
}

/**
 * The picture for a wide screen: entities on two arcs (arcLayout), each
 * relationship a curve bent towards the centre with an arrowhead at its `to`
 * end. Deterministic: the same graph always draws the same bytes.
 */
export function graphSvg(g: GraphData): Html {
  return drawing(g, arcLayout(g.entities.map((e) => e.name)), { className: 'graph', title: 'graph-title', desc: 'graph-desc', arrow: 'arrow' }, 'on two arcs, grouped by type');
}

/**
 * The same graph for a narrow screen (columnLayout), which the page's style
 * (frame.ts) shows instead of graphSvg below 75rem, where the two arcs (at
 * least 72rem wide) would need sideways scrolling: whole labels, at most the
 * box's width.
 */
export function graphColumnSvg(g: GraphData): Html {
  return drawing(g, columnLayout(g.entities.map((e) => e.name)), { className: 'graph-column', title: 'column-title', desc: 'column-desc', arrow: 'arrow-column' }, 'in one column, grouped by type');
}

function nameOf(g: GraphData, id: string): string {
  return g.entities.find((e) => e.id === id)?.name ?? id;
}

/** SUPPORTS → "supports", LISTED_ON → "listed on". */
function relationLabel(type: string): string {
  return type.toLowerCase().replace(/_/g, ' ');
}



function typeLinks(all: GraphData, selected: readonly EntityType[]): Html {
  const counts = new Map<EntityType, number>();
  for (const e of all.entities) counts.set(e.type, (counts.get(e.type) ?? 0) + 1);
  const present = ENTITY_TYPES.filter((t) => counts.has(t));
  const on = new Set(selected);
  return html`<nav aria-label="Filter by entity type"><ul class="types">
<li${selected.length === 0 ? html` class="on"` : null}><a href="${GRAPH_PAGE_PATH}"${selected.length === 0 ? html` aria-current="page"` : null}>All types</a></li>
${present.map(
  (t) =>
    html`<li${on.has(t) ? html` class="on"` : null}><span class="swatch" style="background:${TYPE_COLOURS[t]}"></span><a href="${GRAPH_PAGE_PATH}?type=${t}"${on.has(t) && selected.length === 1 ? html` aria-current="page"` : null}>${entityTypeLabel(t)}</a> (${counts.get(t)!})</li>`,
)}
</ul></nav>`;
}

/** Every drawn entity by type, with its relationships in words (to entities outside the filter too). */
function entityList(shown: GraphData, all: GraphData): Html {
  const byType = new Map<EntityType, Entity[]>();
  for (const e of shown.entities) byType.set(e.type, [...(byType.get(e.type) ?? []), e]);
  const name = (id: string) => nameOf(all, id);
  return html`<section class="entity-list" aria-labelledby="list-h"><h2 id="list-h">Entities and their relationships</h2>
${[...byType].map(
  ([type, list]) => html`<h3><span class="swatch" style="background:${TYPE_COLOURS[type]}"></span>${entityTypeLabel(type)}</h3><ul>
${list.map((e) => {
  const rels = all.relationships.filter((r) => r.from === e.id || r.to === e.id);
  return html`<li><a href="${feedHref({ entity: e.id })}">${e.name}</a> <code>${e.id}</code>${
    rels.length
      ? html`<br><span class="relations">${rels.map((r, i) => html`${i ? '; ' : ''}${r.from === e.id ? html`${relationLabel(r.type)} ${name(r.to)}` : html`${name(r.from)} ${relationLabel(r.type)} it`}`)}</span>`
      : null
  }</li>`;
})}</ul>`,
)}</section>`;
}

export async function graphPage(c: Context, deps: PageDeps): Promise<Response> {
  const { icon } = deps;
  const q = parseQuery(PAGE_PARAMETERS.graph, withoutEmptyParams(new URL(c.req.url)));
  if (!q.ok) {
    return sendHtml(c, 400, problemPage(icon(), 400, 'Bad filter', html`This page cannot draw the graph for that address.`, q.details.map((d) => `${d.path.replace(/^query:/, '')} ${d.message ?? d.rule}`)));
  }
  const types = q.values.type === undefined ? [] : ([...new Set((q.values.type as string).split(','))] as EntityType[]);
  const all = await readGraph(deps.store);
  const shown = selectGraph(all, types);
  const tooMany = shown.entities.length > GRAPH_PICTURE_MAX_NODES;
  const body = html`<h1>Entity graph</h1>
<p class="lede">Who builds, supports, lists and pays for what in the machine economy: ${plural(all.entities.length, 'entity', 'entities')} and ${plural(all.relationships.length, 'sourced relationship', 'sourced relationships')}. Each name opens its newswire items; each arrow points from an entity to the one it relates to (hover it for the relation, or read the list below).</p>
${typeLinks(all, types)}
${
  tooMany
    ? html`<p class="notice">${plural(shown.entities.length, 'entity', 'entities')} are too many to draw legibly (at most ${GRAPH_PICTURE_MAX_NODES}): choose a type above. All of them are listed below.</p>`
    : shown.entities.length
      ? html`<div class="graph-box">${graphSvg(shown)}${graphColumnSvg(shown)}</div><p class="count">${types.length ? `${types.map(entityTypeLabel).join(', ')}: ` : ''}${plural(shown.entities.length, 'entity', 'entities')}, ${plural(shown.relationships.length, 'relationship', 'relationships')} between them.</p>`
      : html`<p class="empty">No entity of that type yet.</p>`
}
${all.truncated ? html`<p class="notice">The graph is larger than one page reads; the JSON collections have every record.</p>` : null}
${entityList(shown, all)}
<p class="json">Machine-readable: <a href="/v1/graph">the graph summary</a> · <a href="/v1/graph/entities">entities</a> · <a href="/v1/graph/relationships">relationships</a> · <a href="/openapi.json">API description</a>.</p>`;
  return sendHtml(c, 200, frame({ title: 'Entity graph · Machine-economy newswire', description: 'Entities of the machine economy and their sourced relationships, drawn.', json: '/v1/graph', jsonLabel: 'GET /v1/graph', icon: icon(), body, wide: true }));
}
