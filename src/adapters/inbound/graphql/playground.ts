import { ownFile, packageFile, pageHtml, type PageAsset } from '../http/pageAssets.js';

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

/** Every file the explorer needs, served by the service itself (no CDN: it works offline). */
export const PLAYGROUND_ASSETS: Readonly<Record<string, PageAsset>> = {
  'react.production.min.js': packageFile('react', 'umd', 'react.production.min.js'),
  'react-dom.production.min.js': packageFile('react-dom', 'umd', 'react-dom.production.min.js'),
  'graphiql.min.js': packageFile('graphiql', 'graphiql.min.js'),
  'graphiql.min.css': packageFile('graphiql', 'graphiql.min.css'),
  'start.js': ownFile('start.js', START_SCRIPT),
  'playground.css': ownFile('playground.css', PAGE_STYLE),
};

/**
 * The GraphiQL page at the playground route, pointed at the general route; assets come from
 * `<playground route>/assets/`. Nothing inline: it is served under PAGE_CSP.
 */
export function playgroundPage(playgroundRoute: string, generalRoute: string): string {
  return pageHtml(playgroundRoute, {
    title: 'Portico GraphQL explorer',
    styles: ['graphiql.min.css', 'playground.css'],
    scripts: ['react.production.min.js', 'react-dom.production.min.js', 'graphiql.min.js', 'start.js'],
    root: { id: 'graphiql', data: { url: generalRoute }, loading: 'Loading the GraphQL explorer…' },
  });
}
