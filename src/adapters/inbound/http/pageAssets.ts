import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type Router from '@koa/router';
import { routeNotFound } from './HttpProblem.js';
import { PAGE_CSP } from './pagePolicy.js';
import type { RequestState } from './state.js';

const require = createRequire(import.meta.url);

/** One file a page loads: how to read it and its content type. */
export interface PageAsset {
  read(): Promise<Buffer>;
  readonly type: string;
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const typeOf = (file: string): string => (file.endsWith('.css') ? CSS : JS);

/** A file of an installed package (`graphiql`, `graphiql.min.js`): served from `node_modules`, so the page works offline. */
export const packageFile = (pkg: string, ...path: string[]): PageAsset => ({
  read: () => readFile(join(dirname(require.resolve(`${pkg}/package.json`)), ...path)),
  type: typeOf(path[path.length - 1] ?? ''),
});

/** A script or style of the service's own (a page's start script): a file, since the page's CSP allows nothing inline. */
export const ownFile = (name: string, text: string): PageAsset => ({
  read: () => Promise.resolve(Buffer.from(text)),
  type: typeOf(name),
});

/**
 * Serves an HTML page under PAGE_CSP at `path` and its assets at `<path>/assets/<name>`, each read
 * once (a failed read is tried again next time); an unknown asset is 404 `route not found`.
 */
export function servePage(
  router: Router<RequestState>,
  path: string,
  html: string,
  assets: Readonly<Record<string, PageAsset>>,
): void {
  const cache = new Map<string, Promise<Buffer>>();
  const read = (name: string): Promise<Buffer> | undefined => {
    const asset = Object.hasOwn(assets, name) ? assets[name] : undefined;
    if (!asset) return undefined;
    let body = cache.get(name);
    if (!body) {
      body = asset.read();
      cache.set(name, body);
      body.catch(() => cache.delete(name));
    }
    return body;
  };
  router.get(path, (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Content-Security-Policy', PAGE_CSP);
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = html;
  });
  router.get(`${assetsPath(path)}/:name`, async (ctx) => {
    const name = ctx.params.name ?? '';
    const body = read(name);
    // Thrown, not left unanswered: the route fallback would call an unanswered GET on a known path 405.
    if (!body) throw routeNotFound();
    ctx.type = assets[name]!.type;
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = await body;
  });
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** What one of the service's pages holds: its assets (by name, in order) and the element its start script fills. */
export interface PageSpec {
  readonly title: string;
  readonly styles: readonly string[];
  readonly scripts: readonly string[];
  /** The element the start script mounts the UI in, its `data-*` attributes (the script's settings) and its text until then. */
  readonly root: { readonly id: string; readonly data: Readonly<Record<string, string>>; readonly loading: string };
}

/**
 * The HTML of a page served at `path` by `servePage`: its styles and scripts from `<path>/assets/`,
 * nothing inline (it is served under PAGE_CSP), every value escaped.
 */
export function pageHtml(path: string, page: PageSpec): string {
  const assets = escapeHtml(assetsPath(path));
  const data = Object.entries(page.root.data)
    .map(([name, value]) => ` data-${name}="${escapeHtml(value)}"`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(page.title)}</title>
${page.styles.map((name) => `  <link rel="stylesheet" href="${assets}/${escapeHtml(name)}">\n`).join('')}</head>
<body>
  <div id="${escapeHtml(page.root.id)}"${data}>${escapeHtml(page.root.loading)}</div>
${page.scripts.map((name) => `  <script src="${assets}/${escapeHtml(name)}"></script>\n`).join('')}</body>
</html>
`;
}

/** Where a page's assets are: `<page path>/assets`. */
export const assetsPath = (pagePath: string): string => `${pagePath.replace(/\/$/, '')}/assets`;
