import type Router from '@koa/router';
import type { OpenApiDocument } from '../openapi.js';
import { assetsPath, ownFile, packageFile, pageHtml, servePage, type PageAsset } from '../pageAssets.js';
import { operation, raw, RestRoutes } from '../operations.js';
import type { RequestState } from '../state.js';

export const DOCUMENT_PATH = '/api/v1/openapi.json';
export const DOCS_PAGE = '/docs';
const ASSETS_PATH = assetsPath(DOCS_PAGE);

/**
 * Starts Swagger UI on the document the page names. Served as a file, not inline: the page's
 * Content-Security-Policy allows only the service's own scripts.
 */
const START_SCRIPT = `window.addEventListener('load', function () {
  var root = document.getElementById('swagger-ui');
  var url = root.getAttribute('data-document');
  root.textContent = '';
  window.ui = SwaggerUIBundle({ url: url, dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null, defaultModelsExpandDepth: 0, displayRequestDuration: true });
});
`;

/** Every file the page loads, served by the service itself from the installed package (it works offline). */
const ASSETS: Readonly<Record<string, PageAsset>> = {
  'swagger-ui-bundle.js': packageFile('swagger-ui-dist', 'swagger-ui-bundle.js'),
  'swagger-ui.css': packageFile('swagger-ui-dist', 'swagger-ui.css'),
  'start.js': ownFile('start.js', START_SCRIPT),
};

/** The docs page and its assets: public, never rate limited (README: API document). */
export const DOCS_PATHS: readonly string[] = [
  DOCUMENT_PATH,
  DOCS_PAGE,
  ...Object.keys(ASSETS).map((name) => `${ASSETS_PATH}/${name}`),
];

const tag = { name: 'docs', description: 'This document' };

export const DOCS_OPERATIONS = [
  operation({
    id: 'getApiDocument',
    method: 'GET',
    path: DOCUMENT_PATH,
    tag,
    summary: 'The API document',
    description: 'This OpenAPI 3.1 document; the interactive reference for it is at /docs.',
    access: 'public',
    rateLimited: false,
    answers: [
      raw(200, 'The OpenAPI document', {
        type: 'object',
        properties: { openapi: { const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' } },
        required: ['openapi', 'info', 'paths'],
      }),
    ],
  }),
];

const page = (documentUrl: string): string =>
  pageHtml(DOCS_PAGE, {
    title: 'Portico API reference',
    styles: ['swagger-ui.css'],
    scripts: ['swagger-ui-bundle.js', 'start.js'],
    root: { id: 'swagger-ui', data: { document: documentUrl }, loading: 'Loading the API reference…' },
  });

/** `GET /api/v1/openapi.json` (the document, serialized once) and `GET /docs` (Swagger UI, offline). */
export function docsRoutes(document: OpenApiDocument): (router: Router<RequestState>) => void {
  const json = JSON.stringify(document);
  const html = page(DOCUMENT_PATH);
  return (router) => {
    new RestRoutes(router).on(DOCS_OPERATIONS[0]!, async (ctx) => {
      ctx.type = 'application/json';
      ctx.body = json;
    });

    servePage(router, DOCS_PAGE, html, ASSETS);
  };
}
