/**
 * A browsable API reference at `/docs`: Swagger UI from the maintained
 * `swagger-ui-dist` package, its files served from this origin (no CDN: the
 * page must work on a machine, or behind a firewall, without internet),
 * reading this service's own `/openapi.json`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Context } from 'hono';
import { html } from 'hono/html';
import { errorBody } from '../errors.js';
import type { FreeRoute } from '../module.js';
import { pageCsp, pageHeaders } from '../http/security-headers.js';
import { SERVICE_NAME } from './identity.js';

const DOCS_PATH = '/docs';

/** Our own start-up script: our document, no calls to the public validator badge (validatorUrl: null). */
const INITIALIZER = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null, presets: [SwaggerUIBundle.presets.apis] });
});
`;

/** The files the page loads: from the package, except the initializer, which is ours. */
const ASSETS: Record<string, { type: string; file?: string; text?: string }> = {
  'swagger-ui.css': { type: 'text/css; charset=utf-8', file: 'swagger-ui.css' },
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', file: 'swagger-ui-bundle.js' },
  'swagger-initializer.js': { type: 'text/javascript; charset=utf-8', text: INITIALIZER },
  'favicon-32x32.png': { type: 'image/png', file: 'favicon-32x32.png' },
};

/** Scripts and styles from this origin only; Swagger UI sets inline styles and fetches /openapi.json. */
const DOCS_CSP = pageCsp("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:");

const PAGE = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · ${SERVICE_NAME}</title>
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
<link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png">
</head>
<body>
<noscript>This reference needs JavaScript; the same description is at <a href="/openapi.json">/openapi.json</a>.</noscript>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/swagger-initializer.js"></script>
</body>
</html>
`.toString();

let packageDir: string | undefined;
const loaded = new Map<string, Buffer>();

/** Read once from node_modules/swagger-ui-dist and kept (the bundle is ~1.5 MB; it never changes while the process runs). */
function assetBytes(name: string): Buffer {
  let b = loaded.get(name);
  if (!b) {
    const a = ASSETS[name]!;
    if (a.text !== undefined) b = Buffer.from(a.text);
    else {
      packageDir ??= dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
      b = readFileSync(join(packageDir, a.file!));
    }
    loaded.set(name, b);
  }
  return b;
}

function serveAsset(c: Context): Response {
  const name = c.req.param('asset') ?? '';
  if (!Object.prototype.hasOwnProperty.call(ASSETS, name)) {
    return c.json(errorBody('not_found', `No file ${DOCS_PATH}/${name}; the reference is at ${DOCS_PATH}.`), 404);
  }
  return c.body(new Uint8Array(assetBytes(name)), 200, { 'Content-Type': ASSETS[name]!.type, 'Cache-Control': 'public, max-age=86400' });
}

export function apiReferenceRoutes(): FreeRoute[] {
  return [
    {
      method: 'GET',
      path: DOCS_PATH,
      operation: {
        operationId: 'getApiReference',
        summary: 'Browsable API reference (Swagger UI over /openapi.json)',
        tags: ['discovery'],
        security: [],
        responses: { '200': { description: 'The reference page', content: { 'text/html': { schema: { type: 'string' } } } } },
      },
      handle: (c) => c.html(PAGE, 200, { ...pageHeaders(DOCS_CSP), 'Cache-Control': 'public, max-age=300' }),
    },
    {
      method: 'GET',
      path: `${DOCS_PATH}/{asset}`,
      operation: {
        operationId: 'getApiReferenceAsset',
        summary: "A file of the API reference page (Swagger UI's, served from this origin)",
        tags: ['discovery'],
        security: [],
        parameters: [{ name: 'asset', in: 'path', required: true, schema: { type: 'string', enum: Object.keys(ASSETS) } }],
        responses: {
          '200': { description: 'The file', content: Object.fromEntries(Object.values(ASSETS).map((a) => [a.type.split(';')[0]!, { schema: { type: 'string' } }])) },
          '404': { description: 'No such file', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        },
      },
      handle: serveAsset,
    },
  ];
}
