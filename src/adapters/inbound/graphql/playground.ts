import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const packageDir = (name: string): string => dirname(require.resolve(`${name}/package.json`));

/** Every file the explorer needs, served by the service itself (no CDN: it works offline). */
const ASSETS: Readonly<Record<string, { file: () => string; type: string }>> = {
  'react.production.min.js': { file: () => join(packageDir('react'), 'umd', 'react.production.min.js'), type: 'text/javascript; charset=utf-8' },
  'react-dom.production.min.js': { file: () => join(packageDir('react-dom'), 'umd', 'react-dom.production.min.js'), type: 'text/javascript; charset=utf-8' },
  'graphiql.min.js': { file: () => join(packageDir('graphiql'), 'graphiql.min.js'), type: 'text/javascript; charset=utf-8' },
  'graphiql.min.css': { file: () => join(packageDir('graphiql'), 'graphiql.min.css'), type: 'text/css; charset=utf-8' },
};

const cache = new Map<string, Promise<Buffer>>();

/** An explorer asset by name, read once from the installed package; `undefined` if unknown. */
export async function playgroundAsset(name: string): Promise<{ body: Buffer; type: string } | undefined> {
  const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (!asset) return undefined;
  let body = cache.get(name);
  if (!body) {
    body = readFile(asset.file());
    cache.set(name, body);
    body.catch(() => cache.delete(name));
  }
  return { body: await body, type: asset.type };
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The GraphiQL page, pointed at the general route; assets come from `<playground route>/assets/`. */
export function playgroundPage(playgroundRoute: string, generalRoute: string): string {
  const assets = `${playgroundRoute.replace(/\/$/, '')}/assets`;
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Portico GraphQL explorer</title>
  <link rel="stylesheet" href="${escapeHtml(assets)}/graphiql.min.css">
  <style>html, body, #graphiql { height: 100%; margin: 0; }</style>
</head>
<body>
  <div id="graphiql">Loading the GraphQL explorer…</div>
  <script src="${escapeHtml(assets)}/react.production.min.js"></script>
  <script src="${escapeHtml(assets)}/react-dom.production.min.js"></script>
  <script src="${escapeHtml(assets)}/graphiql.min.js"></script>
  <script>
    const fetcher = GraphiQL.createFetcher({ url: ${JSON.stringify(generalRoute).replace(/</g, '\\u003c')} });
    ReactDOM.createRoot(document.getElementById('graphiql')).render(
      React.createElement(GraphiQL, { fetcher, defaultEditorToolsVisibility: true, defaultQuery: '{ queryHealth { status message } }' }),
    );
  </script>
</body>
</html>
`;
}
