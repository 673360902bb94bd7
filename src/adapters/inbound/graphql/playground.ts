import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/**
 * Mounts GraphiQL on the route the page names. Served as a file, not inline: the page's
 * Content-Security-Policy (PAGE_CSP) allows only the service's own scripts.
 */
const START_SCRIPT = `window.addEventListener('load', function () {
  var root = document.getElementById('graphiql');
  var fetcher = GraphiQL.createFetcher({ url: root.getAttribute('data-url') });
  root.textContent = '';
  ReactDOM.createRoot(root).render(
    React.createElement(GraphiQL, { fetcher: fetcher, defaultEditorToolsVisibility: true, defaultQuery: '{ queryHealth { status message } }' }),
  );
});
`;

/** The page's own layout, as a file for the same reason (no inline style). */
const PAGE_STYLE = 'html, body, #graphiql { height: 100%; margin: 0; }\n';

const packageDir = (name: string): string => dirname(require.resolve(`${name}/package.json`));

/** Every file the explorer needs, served by the service itself (no CDN: it works offline). */
const ASSETS: Readonly<Record<string, { read: () => Promise<Buffer>; type: string }>> = {
  'react.production.min.js': { read: () => readFile(join(packageDir('react'), 'umd', 'react.production.min.js')), type: JS },
  'react-dom.production.min.js': { read: () => readFile(join(packageDir('react-dom'), 'umd', 'react-dom.production.min.js')), type: JS },
  'graphiql.min.js': { read: () => readFile(join(packageDir('graphiql'), 'graphiql.min.js')), type: JS },
  'graphiql.min.css': { read: () => readFile(join(packageDir('graphiql'), 'graphiql.min.css')), type: CSS },
  'start.js': { read: () => Promise.resolve(Buffer.from(START_SCRIPT)), type: JS },
  'playground.css': { read: () => Promise.resolve(Buffer.from(PAGE_STYLE)), type: CSS },
};

const cache = new Map<string, Promise<Buffer>>();

/** An explorer asset by name, read once from the installed package; `undefined` if unknown. */
export async function playgroundAsset(name: string): Promise<{ body: Buffer; type: string } | undefined> {
  const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (!asset) return undefined;
  let body = cache.get(name);
  if (!body) {
    body = asset.read();
    cache.set(name, body);
    body.catch(() => cache.delete(name));
  }
  return { body: await body, type: asset.type };
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The GraphiQL page, pointed at the general route; assets come from `<playground route>/assets/`.
 * Nothing inline: it is served under PAGE_CSP.
 */
export function playgroundPage(playgroundRoute: string, generalRoute: string): string {
  const assets = `${playgroundRoute.replace(/\/$/, '')}/assets`;
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Portico GraphQL explorer</title>
  <link rel="stylesheet" href="${escapeHtml(assets)}/graphiql.min.css">
  <link rel="stylesheet" href="${escapeHtml(assets)}/playground.css">
</head>
<body>
  <div id="graphiql" data-url="${escapeHtml(generalRoute)}">Loading the GraphQL explorer…</div>
  <script src="${escapeHtml(assets)}/react.production.min.js"></script>
  <script src="${escapeHtml(assets)}/react-dom.production.min.js"></script>
  <script src="${escapeHtml(assets)}/graphiql.min.js"></script>
  <script src="${escapeHtml(assets)}/start.js"></script>
</body>
</html>
`;
}
