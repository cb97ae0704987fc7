#!/usr/bin/env node
// Regenerates the schema.org type table the catalog offer evidence extractor reads
// (src/capabilities/catalog-offer-evidence-extractor/schemaorg-types.ts) from schema.org's
// published vocabulary file, so type recognition follows schema.org rather than a list in code.
//
//   node scripts/gen-schemaorg-types.mjs <path-or-URL of schemaorg-current-https.jsonld> \
//     [--version 30.0] [--out <file>]
//
// e.g. https://schema.org/version/30.0/schemaorg-current-https.jsonld (or .../version/latest/…
// with --version). The version is taken from a `/version/X/` or `/releases/X/` segment of the
// source when --version is not given. The handler never runs this: it only imports the output.
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DEFAULT_OUT = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'src',
  'capabilities',
  'catalog-offer-evidence-extractor',
  'schemaorg-types.ts',
);

/** Classes whose whole subtree the extractor needs (rdfs:subClassOf, transitively). */
const ROOTS = ['Product', 'Offer', 'PriceSpecification'];
/** Enumerations whose members the extractor needs. */
const ENUMERATIONS = ['PriceComponentTypeEnumeration'];

const RDFS = 'http://www.w3.org/2000/01/rdf-schema#';
const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';

function usage(message) {
  if (message) console.error(`gen-schemaorg-types: ${message}`);
  console.error('usage: node scripts/gen-schemaorg-types.mjs <path-or-URL of schemaorg-current-https.jsonld> [--version X.Y] [--out FILE]');
  process.exit(2);
}

function parseArgs(argv) {
  const args = { source: null, version: null, out: DEFAULT_OUT };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--version' || a === '--out') {
      const v = argv[++i];
      if (v === undefined) usage(`${a} needs a value`);
      if (a === '--version') args.version = v;
      else args.out = v;
    } else if (a === '--help' || a === '-h') usage();
    else if (a.startsWith('--')) usage(`unknown option ${a}`);
    else if (args.source === null) args.source = a;
    else usage('only one source may be given');
  }
  if (args.source === null) usage('no source given');
  if (args.version === null) {
    const m = /\/(?:version|releases)\/(\d+(?:\.\d+)*)\//.exec(args.source);
    if (!m) usage('cannot tell the schema.org version from the source; pass --version');
    args.version = m[1];
  }
  if (!/^\d+(?:\.\d+)*$/.test(args.version)) usage(`not a schema.org version number: ${args.version}`);
  return args;
}

async function load(source) {
  if (/^https?:\/\//i.test(source)) {
    const res = await fetch(source, { headers: { accept: 'application/ld+json, application/json' } });
    if (!res.ok) throw new Error(`GET ${source}: HTTP ${res.status}`);
    return Buffer.from(await res.arrayBuffer());
  }
  return readFile(source);
}

/** Expand a compact IRI (`schema:Product`, `rdfs:Class`) with the document's own prefixes. */
function expander(context) {
  const prefixes = new Map([
    ['rdfs', RDFS],
    ['rdf', RDF],
  ]);
  const contexts = Array.isArray(context) ? context : [context];
  for (const c of contexts) {
    if (c && typeof c === 'object') {
      for (const [k, v] of Object.entries(c)) if (typeof v === 'string') prefixes.set(k, v);
    }
  }
  return (term) => {
    if (typeof term !== 'string') return null;
    const colon = term.indexOf(':');
    if (colon > 0 && !term.startsWith('//', colon + 1)) {
      const base = prefixes.get(term.slice(0, colon));
      if (base !== undefined) return base + term.slice(colon + 1);
    }
    return term;
  };
}

/** Local name of a schema.org IRI (http or https, with or without www), else null. */
function schemaLocal(iri) {
  const m = /^https?:\/\/(?:www\.)?schema\.org\/([A-Za-z0-9_]+)$/.exec(iri ?? '');
  return m ? m[1] : null;
}

function asList(v) {
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v : [v];
}

function idOf(v, expand) {
  if (typeof v === 'string') return expand(v);
  if (v && typeof v === 'object' && typeof v['@id'] === 'string') return expand(v['@id']);
  return null;
}

/** Values of a property given compact (`rdfs:subClassOf`) or expanded. */
function prop(node, expand, iri) {
  const out = [];
  for (const [k, v] of Object.entries(node)) if (expand(k) === iri) out.push(...asList(v));
  return out;
}

export function buildTable(doc) {
  const expand = expander(doc['@context']);
  const graph = Array.isArray(doc) ? doc : asList(doc['@graph']);
  if (graph.length === 0) throw new Error('no @graph in the source');
  const children = new Map(); // parent local name -> Set of child local names
  const classes = new Set();
  const members = new Map(); // enumeration local name -> Set of member local names
  for (const node of graph) {
    if (!node || typeof node !== 'object') continue;
    const id = schemaLocal(idOf(node, expand));
    if (id === null) continue;
    const types = asList(node['@type']).map((t) => expand(t));
    if (types.includes(RDFS + 'Class')) classes.add(id);
    for (const t of types) {
      const e = schemaLocal(t);
      if (e !== null) {
        if (!members.has(e)) members.set(e, new Set());
        members.get(e).add(id);
      }
    }
    for (const sup of prop(node, expand, RDFS + 'subClassOf')) {
      const parent = schemaLocal(idOf(sup, expand));
      if (parent === null) continue;
      if (!children.has(parent)) children.set(parent, new Set());
      children.get(parent).add(id);
    }
  }
  const subclasses = {};
  for (const root of ROOTS) {
    if (!classes.has(root)) throw new Error(`schema:${root} is not a class in the source`);
    const seen = new Set([root]);
    const todo = [root];
    while (todo.length) {
      for (const c of children.get(todo.pop()) ?? []) {
        if (!seen.has(c) && classes.has(c)) {
          seen.add(c);
          todo.push(c);
        }
      }
    }
    subclasses[root] = [...seen].sort();
  }
  const enumerations = {};
  for (const e of ENUMERATIONS) {
    const m = [...(members.get(e) ?? [])].sort();
    if (m.length === 0) throw new Error(`schema:${e} has no members in the source`);
    enumerations[e] = m;
  }
  return { subclasses, enumerations };
}

function render(table, meta) {
  const list = (xs) => `[${xs.map((x) => `'${x}'`).join(', ')}]`;
  const lines = [
    '// Generated by scripts/gen-schemaorg-types.mjs from schema.org\'s published vocabulary; do not edit.',
    '// Regenerate: node scripts/gen-schemaorg-types.mjs <schemaorg-current-https.jsonld path or URL> [--version X]',
    '',
    '/** The schema.org release this table was generated from, and the SHA-256 of the source file. */',
    `export const SCHEMA_ORG_VERSION = '${meta.version}';`,
    `export const SCHEMA_ORG_SOURCE = { file: '${meta.file}', sha256: '${meta.sha256}' } as const;`,
    '',
    '/** Each root class and every class below it (rdfs:subClassOf, transitively), by local name. */',
    'export const SCHEMA_ORG_SUBCLASSES = {',
    ...Object.entries(table.subclasses).map(([k, v]) => `  ${k}: ${list(v)},`),
    '} as const;',
    '',
    '/** Members of schema.org enumerations, by local name. */',
    'export const SCHEMA_ORG_ENUMERATIONS = {',
    ...Object.entries(table.enumerations).map(([k, v]) => `  ${k}: ${list(v)},`),
    '} as const;',
    '',
  ];
  return lines.join('\n');
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const bytes = await load(args.source);
  const doc = JSON.parse(bytes.toString('utf8'));
  const table = buildTable(doc);
  const file = args.source.replace(/[?#].*$/, '').split(/[/\\]/).pop() || 'schemaorg.jsonld';
  const text = render(table, {
    version: args.version,
    file: file.replace(/[^A-Za-z0-9._-]/g, '_'),
    sha256: createHash('sha256').update(bytes).digest('hex'),
  });
  await writeFile(args.out, text);
  const counts = Object.entries(table.subclasses).map(([k, v]) => `${k} ${v.length}`).join(', ');
  console.log(`wrote ${args.out} (schema.org ${args.version}: ${counts})`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((e) => {
    console.error(`gen-schemaorg-types: ${e.message}`);
    process.exit(1);
  });
}
