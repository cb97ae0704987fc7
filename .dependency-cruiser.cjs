// Import boundaries of src/, checked by `npm run lint` (scripts/lint.mjs runs
// dependency-cruiser with this file). DESIGN.md states the rules; this file
// makes them fail the build.
//
// Layers, lowest first. A module may import its own layer and lower layers,
// never a higher one:
//   0 foundation    src/foundation/ (formats every layer shares: canonical JSON and the
//                   request fingerprint), src/config.ts, src/errors.ts, src/observability/ (metrics registry,
//                   request context: every layer records into it), src/crypto/ (secp256k1
//                   and EIP-712 digests: payments check signatures, commitments make them)
//   1 catalog       src/catalog/
//   2 capabilities  src/capabilities/
//   3 store         src/store/ (the ledgers)
//   4 payments      src/payments/ (gate, rail, the paid flow and the interfaces it calls
//                   down through: Executor, ReceiptHook, OfferVerifier)
//   5 executors     src/isolation/ (the handler worker pool: an Executor),
//                   src/commitments/ (signed receipts and offers: the flow's hooks)
//   6 http          src/http/, src/module.ts (the module contract)
//   7 discovery     src/discovery/ (documents built over the routes)
//   8 features      src/router/, src/mcp/, src/intel/, src/a2a/, src/operator/ (the
//                   operator's dashboard)
//   9 composition   src/app.ts, src/service.ts, src/main.ts, src/modules.ts,
//                   src/start-up-checks.ts (what the configuration points at)
//
// So a paid request's calls only go down: route (http, mcp, a2a) → flow and
// gate (payments) → ledger (store); the executor and the receipt hook are
// handed to the flow at composition, never imported by it.
//
// No folder may import another that imports it back, even when no file cycle
// results (scripts/folder-cycles.mjs, run by scripts/lint.mjs; EXCEPTIONS
// excuse those edges too).
//
// Tests (*.test.ts) sit next to their module but exercise it through higher
// layers (the HTTP input reader, the store), so the layer rules skip them;
// the circularity rule does not.
//
// Parsing: TypeScript 7 (the native compiler) has no JavaScript compiler API,
// so dependency-cruiser parses with swc, which keeps `import type` and
// `export type … from` in its syntax tree: type-only imports are edges too and
// type-only cycles are caught (what tsPreCompilationDeps asks for). Both are
// devDependencies: dependency-cruiser 17 (18 needs Node 22) and @swc/core.

const TEST = '\\.test\\.ts$';

const LAYERS = [
  { name: 'foundation', path: ['^src/foundation/', '^src/(config|errors)\\.ts$', '^src/observability/', '^src/crypto/'] },
  { name: 'catalog', path: ['^src/catalog/'] },
  { name: 'capabilities', path: ['^src/capabilities/'] },
  { name: 'store', path: ['^src/store/'] },
  { name: 'payments', path: ['^src/payments/'] },
  { name: 'executors', path: ['^src/(isolation|commitments)/'] },
  { name: 'http', path: ['^src/http/', '^src/module\\.ts$'] },
  { name: 'discovery', path: ['^src/discovery/'] },
  { name: 'features', path: ['^src/(router|mcp|intel|a2a|operator)/'] },
  { name: 'composition', path: ['^src/(app|service|main|modules|start-up-checks)\\.ts$'] },
];

// Known violations the lead must fix, each as narrow as one import: the named
// rule skips exactly that edge and still checks every other import of the file.
// Remove the entry when the import goes away.
const EXCEPTIONS = [];

const asList = (x) => (x === undefined ? [] : [].concat(x));

/** A rule, split so that each of its exceptions excuses one edge and nothing more. */
function withExceptions(rule) {
  const mine = EXCEPTIONS.filter((e) => e.rule === rule.name);
  if (mine.length === 0) return [rule];
  const rest = { ...rule, from: { ...rule.from, pathNot: [...asList(rule.from.pathNot), ...mine.map((e) => e.from)] } };
  return [
    rest,
    ...mine.map((e) => ({
      ...rule,
      comment: `${rule.comment} (One import of ${e.from} is excused, see EXCEPTIONS.)`,
      from: { path: e.from },
      to: { ...rule.to, pathNot: [...asList(rule.to.pathNot), e.to] },
    })),
  ];
}

const layerRules = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `layer-${layer.name}`,
  severity: 'error',
  comment: `${layer.name} may not import a higher layer (${LAYERS.slice(i + 1).map((l) => l.name).join(', ')}).`,
  from: { path: layer.path, pathNot: TEST },
  to: { path: LAYERS.slice(i + 1).flatMap((l) => l.path) },
}));

const ALL_LAYERS = LAYERS.flatMap((l) => l.path);
const HONO = '(^|/)node_modules/(hono|@hono/[^/]+|@x402/hono)/';

const RULES = [
  {
    name: 'no-circular',
    severity: 'error',
    comment: 'No import cycle under src/, type-only imports included.',
    from: { path: '^src/' },
    to: { circular: true },
  },
  ...layerRules,
  {
    name: 'layer-unknown',
    severity: 'error',
    comment: 'Every file under src/ belongs to a layer: place a new folder in LAYERS of .dependency-cruiser.cjs.',
    from: { path: '^src/', pathNot: ALL_LAYERS },
    to: {},
  },
  {
    name: 'layer-unknown',
    severity: 'error',
    comment: 'Every file under src/ belongs to a layer: place a new folder in LAYERS of .dependency-cruiser.cjs.',
    from: {},
    to: { path: '^src/', pathNot: ALL_LAYERS },
  },
  {
    name: 'router-planning-without-http',
    severity: 'error',
    comment: "The router's planning, quoting and execution are transport-neutral: only its module.ts (the HTTP glue) touches src/http/ or Hono.",
    from: { path: '^src/router/', pathNot: ['^src/router/module\\.ts$', TEST] },
    to: { path: ['^src/http/', HONO] },
  },
  {
    name: 'capability-imports-only-catalog-errors-own-folder',
    severity: 'error',
    comment: 'A capability builds on src/catalog and src/errors and its own folder; never on another capability or any other part of src/.',
    from: { path: '^src/capabilities/([^/]+)/', pathNot: TEST },
    to: { path: '^src/', pathNot: ['^src/catalog/', '^src/errors\\.ts$', '^src/capabilities/$1/'] },
  },
  {
    name: 'capability-no-io',
    severity: 'error',
    comment: 'Capabilities are pure: no file, network, process or DNS modules.',
    from: { path: '^src/capabilities/', pathNot: TEST },
    to: { dependencyTypes: ['core'], path: '^(node:)?(fs|net|http|https|http2|child_process|dns|tls|dgram|worker_threads|cluster)(/|$)' },
  },
  {
    name: 'framework-free-no-hono',
    severity: 'error',
    comment: 'Payment decisions and capabilities stay framework-free: no Hono (nor its x402 adapter) in src/payments or src/capabilities, tests included.',
    from: { path: '^src/(payments|capabilities)/' },
    to: { path: HONO },
  },
  {
    name: 'intel-routes-never-fetch',
    severity: 'error',
    comment: 'No intelligence route fetches: only the collectors (run by the CLI and the module\'s schedule) reach the network, so nothing else in src/intel imports them.',
    from: { path: '^src/intel/', pathNot: ['^src/intel/collectors/', '^src/intel/module\\.ts$', TEST] },
    to: { path: '^src/intel/collectors/' },
  },
  {
    name: 'intel-network-only-in-collectors',
    severity: 'error',
    comment: 'In src/intel only the collectors open network connections (node:http, https, net, dns, tls, or viem\'s transports).',
    from: { path: '^src/intel/', pathNot: ['^src/intel/collectors/', TEST] },
    to: { path: ['^(node:)?(net|http|https|http2|dns|tls|dgram)$', '(^|/)node_modules/viem/'] },
  },
  {
    name: 'no-dev-dependency-at-run-time',
    severity: 'error',
    comment: 'The container installs production dependencies only (npm ci --omit=dev): the service must not import a devDependency (tests may).',
    from: { path: '^src/', pathNot: TEST },
    to: { dependencyTypes: ['npm-dev'] },
  },
  {
    name: 'no-test-code-at-run-time',
    severity: 'error',
    comment: 'Fakes and helpers live in test/ (the build compiles src/ only, so the container has none): the service must not import them (tests may).',
    from: { path: '^src/', pathNot: TEST },
    to: { path: '^(test|bench)/' },
  },
  {
    name: 'not-to-unresolvable',
    severity: 'error',
    comment: 'An import that does not resolve would hide an edge from every rule above.',
    from: { path: '^src/' },
    to: { couldNotResolve: true },
  },
];

module.exports = {
  forbidden: RULES.flatMap(withExceptions),
  options: {
    parser: 'swc',
    tsPreCompilationDeps: true,
    doNotFollow: { path: ['(^|/)node_modules/', '^(devnet|test|cli|bench)/'] },
    moduleSystems: ['es6'],
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'types', 'node', 'default'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};

// scripts/lint.mjs fails when an exception excuses an import that no longer
// exists. Not enumerable, so dependency-cruiser's schema check does not see it.
Object.defineProperty(module.exports, 'exceptions', { value: EXCEPTIONS, enumerable: false });
