/**
 * The operator's dashboard (issue 25): revenue and paid calls per capability
 * over time, attempts by state with the unresolved ones listed, settlement
 * time, facilitator health, buyers, and the last deliveries with their
 * transactions, as a page for people and the same document as JSON.
 *
 * Like the content admin API, it exists only when ADMIN_TOKEN is set (every
 * path is 404 otherwise). Access: `Authorization: Bearer <ADMIN_TOKEN>`
 * (scripts), or the session cookie the sign-in form sets (browsers, which
 * cannot send a bearer header on navigation; session.ts says why it is safe).
 * Without either, the page answers 401 with the sign-in form and the JSON
 * 401 `unauthorized`.
 */
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { ERROR_BODY_SCHEMA, errorBody, type ErrorCode, type ErrorDetail } from '../errors.js';
import { bearerCheck } from '../intel/admin.js';
import type { FreeRoute, ModuleContext, ServiceModule } from '../module.js';
import { DASHBOARD_JSON_PATH, DASHBOARD_PATH, dashboardPage, LOGIN_PATH, loginPage, LOGOUT_PATH, OPERATOR_CSP, problemPage } from './page.js';
import { DASHBOARD_WINDOWS, dashboardReport, DEFAULT_WINDOW, type DashboardWindowName, type ReportDeps } from './report.js';
import { OperatorSessions, SESSION_COOKIE } from './session.js';
import { pageHeaders } from '../http/security-headers.js';

/** The sign-in form's body: one field. */
const LOGIN_MAX_BODY_BYTES = 4096;

const PAGE_HEADERS = {
  ...pageHeaders(OPERATOR_CSP),
  'Referrer-Policy': 'no-referrer',
  // Revenue and payers: never kept by a cache, shared or not.
  'Cache-Control': 'no-store',
};

function page(status: 200 | 400 | 401, body: string, extra: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { 'Content-Type': 'text/html; charset=utf-8', ...PAGE_HEADERS, ...extra } });
}

function jsonError(c: Context, status: 400 | 401, code: ErrorCode, message: string, details: ErrorDetail[] = [], extra: Record<string, string> = {}): Response {
  return c.json(errorBody(code, message, details), status, { 'Cache-Control': 'no-store', ...extra });
}

const WINDOW_NAMES = Object.keys(DASHBOARD_WINDOWS) as DashboardWindowName[];

/** `?window=`: one of the named windows (default 7d); anything else is refused. */
function windowOf(c: Context): { ok: true; name: DashboardWindowName } | { ok: false; message: string; details: ErrorDetail[] } {
  const all = c.req.queries('window') ?? [];
  const v = all[0];
  if (v === undefined) return { ok: true, name: DEFAULT_WINDOW };
  if (all.length === 1 && (WINDOW_NAMES as string[]).includes(v)) return { ok: true, name: v as DashboardWindowName };
  const message = `window must be one of ${WINDOW_NAMES.join(', ')}, given once.`;
  return { ok: false, message, details: [{ path: 'query:window', rule: 'enum', message: `one of ${WINDOW_NAMES.join(', ')}` }] };
}

/** The request came over https (directly, or through the trusted proxy: forwarded.ts rewrites the URL). */
const overHttps = (c: Context) => new URL(c.req.url).protocol === 'https:';

const reportSchema = {
  type: 'object',
  required: ['generatedAt', 'window', 'asset', 'totals', 'capabilities', 'series', 'attempts', 'settlement', 'facilitators', 'buyers', 'lastDeliveries'],
  properties: {
    generatedAt: { type: 'string', format: 'date-time' },
    window: { type: 'object', description: 'The window (name, from, to) and the width of one bucket of `series`.' },
    asset: { type: 'object', description: 'Symbol, decimals and network of the amounts.' },
    totals: { type: 'object', description: 'Paid calls (deliveries: settled with the result stored) and revenue in the window, and the same without own and test wallets (`independent…`). Money is `{atomic, usd}`.' },
    capabilities: { type: 'array', description: 'Per capability (resource id, path, title): paid calls and revenue, all and independent.', items: { type: 'object' } },
    series: { type: 'object', description: '`buckets` (ISO starts) and per capability its paid calls and revenue in dollars in each bucket.' },
    attempts: { type: 'object', description: '`byState`: attempts created in the window by their state now; `unresolvedTotal` and `unresolved`: attempts of any age neither settled nor failed, oldest first, with their lease (held, expired, free).' },
    settlement: { type: 'object', description: 'Seconds from reserve to settled recorded: count, mean, max and a cumulative histogram (`atMostSeconds`, `count`).' },
    facilitators: { type: 'array', description: 'Per facilitator, as this instance saw it since it started (its metrics): up, and for verify and settle the calls, outcomes, errors, mean and the bucket bounds of the median and 90th percentile.', items: { type: 'object' } },
    buyers: { type: 'object', description: 'Independent buyers in the window: count, repeat (more than one delivery), repeatShare, top payers; `excluded`: own and test wallets apart.' },
    lastDeliveries: { type: 'array', description: 'The last deliveries, newest first: settledAt, resource, payer, amount, network, asset, txHash, facilitator, secondsToSettle.', items: { type: 'object' } },
  },
};

const windowParameter = {
  name: 'window',
  in: 'query',
  required: false,
  description: 'The window: 24h (hourly buckets), 7d (6-hour buckets, the default) or 30d (daily buckets, UTC).',
  schema: { type: 'string', enum: WINDOW_NAMES },
};
const error = (description: string) => ({ description, content: { 'application/json': { schema: ERROR_BODY_SCHEMA } } });
const htmlAnswer = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
const ADMIN_NOTE = 'Operator only; exists only when ADMIN_TOKEN is set (404 otherwise).';

function operatorRoutes(deps: ReportDeps & { adminToken: string }): FreeRoute[] {
  const bearer = bearerCheck(deps.adminToken);
  const sessions = new OperatorSessions(deps.adminToken);
  const allowed = (c: Context) => bearer(c.req.header('authorization')) || sessions.valid(getCookie(c, SESSION_COOKIE), deps.now());

  return [
    {
      method: 'GET',
      path: DASHBOARD_PATH,
      operation: {
        operationId: 'getOperatorDashboard',
        summary: "The operator's dashboard as a page: revenue and paid calls per capability over time, attempts by state and the unresolved ones, settlement time, facilitators, buyers, last deliveries",
        description: `${ADMIN_NOTE} Send Authorization: Bearer <ADMIN_TOKEN>, or sign in with the form this page answers 401 with (POST ${LOGIN_PATH} sets an HttpOnly, SameSite=Strict session cookie). Server-rendered HTML with inline SVG charts; no script.`,
        tags: ['admin'],
        parameters: [windowParameter],
        responses: { '200': htmlAnswer('The dashboard'), '400': htmlAnswer('A page naming the bad query parameter'), '401': htmlAnswer('The sign-in form (no or wrong token, or the session ended)'), '404': error('ADMIN_TOKEN is not set') },
      },
      async handle(c) {
        if (!allowed(c)) return page(401, loginPage());
        const w = windowOf(c);
        if (!w.ok) return page(400, problemPage(w.message));
        return page(200, dashboardPage(await dashboardReport(deps, w.name)));
      },
    },
    {
      method: 'GET',
      path: DASHBOARD_JSON_PATH,
      operation: {
        operationId: 'getOperatorDashboardJson',
        summary: "The operator's dashboard as JSON (the document the page shows)",
        description: `${ADMIN_NOTE} Send Authorization: Bearer <ADMIN_TOKEN> (or the dashboard's session cookie).`,
        tags: ['admin'],
        parameters: [windowParameter],
        responses: {
          '200': { description: 'The dashboard', content: { 'application/json': { schema: reportSchema } } },
          '400': error('Bad query parameter (invalid_parameter)'),
          '401': error('Missing or wrong bearer token (unauthorized)'),
          '404': error('ADMIN_TOKEN is not set'),
        },
      },
      async handle(c) {
        if (!allowed(c)) return jsonError(c, 401, 'unauthorized', `${DASHBOARD_JSON_PATH} needs Authorization: Bearer <ADMIN_TOKEN>.`, [{ path: 'header:Authorization', rule: 'bearer' }], { 'WWW-Authenticate': 'Bearer realm="admin"' });
        const w = windowOf(c);
        if (!w.ok) return jsonError(c, 400, 'invalid_parameter', w.message, w.details);
        return c.json(await dashboardReport(deps, w.name), 200, { 'Cache-Control': 'no-store' });
      },
    },
    {
      method: 'POST',
      path: LOGIN_PATH,
      maxBodyBytes: LOGIN_MAX_BODY_BYTES,
      operation: {
        operationId: 'operatorSignIn',
        summary: "Sign in to the operator's dashboard with ADMIN_TOKEN (form post); sets the session cookie",
        description: `${ADMIN_NOTE} Body: application/x-www-form-urlencoded \`token=<ADMIN_TOKEN>\`. The right token answers 303 to ${DASHBOARD_PATH} with Set-Cookie (HttpOnly, SameSite=Strict, Secure over https, 12 hours; the cookie holds an expiry and its HMAC under a key derived from the token, never the token). A wrong one answers 401 with the form again.`,
        tags: ['admin'],
        security: [],
        requestBody: { required: true, content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', required: ['token'], properties: { token: { type: 'string' } } } } } },
        responses: { '303': { description: 'Signed in: to the dashboard' }, '400': htmlAnswer('Not a form with a token'), '401': htmlAnswer('Wrong token: the form again'), '404': error('ADMIN_TOKEN is not set'), '413': error('Body too large') },
      },
      async handle(c) {
        const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
        if (type !== 'application/x-www-form-urlencoded') return page(400, loginPage('Send the sign-in form (application/x-www-form-urlencoded).'));
        const token = new URLSearchParams(await c.req.text()).get('token');
        if (!token) return page(400, loginPage('Enter the admin token.'));
        if (!bearer(`Bearer ${token}`)) return page(401, loginPage('That is not the admin token.'));
        return new Response(null, { status: 303, headers: { Location: DASHBOARD_PATH, 'Set-Cookie': sessions.cookie(sessions.issue(deps.now()), overHttps(c)), 'Cache-Control': 'no-store' } });
      },
    },
    {
      method: 'POST',
      path: LOGOUT_PATH,
      maxBodyBytes: LOGIN_MAX_BODY_BYTES,
      operation: {
        operationId: 'operatorSignOut',
        summary: "Sign out of the operator's dashboard: the session cookie is cleared",
        description: `${ADMIN_NOTE} Answers 303 to ${DASHBOARD_PATH} (the sign-in form).`,
        tags: ['admin'],
        security: [],
        responses: { '303': { description: 'Signed out' }, '404': error('ADMIN_TOKEN is not set') },
      },
      handle: (c) => new Response(null, { status: 303, headers: { Location: DASHBOARD_PATH, 'Set-Cookie': OperatorSessions.clear(overHttps(c)), 'Cache-Control': 'no-store' } }),
    },
  ];
}

/** The operator's module: its routes only when ADMIN_TOKEN is set. */
export const operatorModule: ServiceModule = {
  name: 'operator',
  freeRoutes(ctx: ModuleContext): FreeRoute[] {
    const adminToken = ctx.config.adminToken;
    if (!adminToken) return [];
    return operatorRoutes({ adminToken, ledger: ctx.ledger, catalog: ctx.catalog, payment: ctx.payment, ownWallets: ctx.ownWallets, now: ctx.now });
  },
};
