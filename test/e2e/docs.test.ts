import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { PAGE_CSP } from '../../src/adapters/inbound/http/pagePolicy.js';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { Api, expectError } from '../support/api.js';
import { launchChromium, references, requireChromium, watchedPage } from '../support/browser.js';
import { contractFor } from '../support/contract.js';
import { testConfig } from '../support/config.js';
import { silentLogger } from '../support/logger.js';
import { runEntry } from '../support/process.js';

const SCREENSHOT = '/tmp/docs.png';
const DOCUMENT = '/api/v1/openapi.json';
/** A host name the browser resolves to the service (not localhost). */
const DOCS_HOST = 'docs.portico.test';

interface DocumentJson {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, { operationId?: string; summary?: string }>>;
}

describe('API document and docs page (README: API document)', function () {
  this.timeout(60_000);

  describe('served with docs.enabled (the default) and a tiny rate limit', () => {
    let service: RunningService;
    let api: Api;

    before(async () => {
      service = await startService(testConfig({ SVC_RATE_LIMIT_RATE: '2-M', SVC_AUTH_BCRYPT_COST: '4' }), {
        logger: silentLogger(),
      });
      api = new Api(service.url);
    });
    after(async () => service.stop());

    it('GET /api/v1/openapi.json answers 200 application/json: OpenAPI 3.1.0 with the served paths', async () => {
      const response = await api.get(DOCUMENT);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^application\/json\b/);
      expect(response.headers.get('x-request-id')).to.be.a('string').and.not.equal('');
      const document = response.body as DocumentJson;
      expect(document.openapi).to.equal('3.1.0');
      expect(document.info.title).to.equal('Portico API');
      expect(document.paths).to.include.keys(
        '/api/v1/products',
        '/api/v1/products/{id}',
        '/api/v1/auth/login',
        '/api/v1/auth/register',
        '/health/live',
        DOCUMENT,
      );
      expect(document.paths['/api/v1/products']!.get!.operationId).to.equal('listProducts');
      expect(document.paths[DOCUMENT]!.get!.operationId).to.equal('getApiDocument');
      // The page itself is HTML, not an API operation: it is not in the document.
      expect(document.paths).not.to.have.key('/docs');
    });

    it('both are public and not rate limited: 10 requests each are all 200 with no X-RateLimit headers, while an API route gets 429', async () => {
      for (const path of [DOCUMENT, '/docs', '/docs/assets/start.js']) {
        for (let i = 0; i < 10; i++) {
          const response = await fetch(`${service.url}${path}`);
          await response.arrayBuffer();
          expect(response.status, `${path} #${i + 1}`).to.equal(200);
          for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after']) {
            expect(response.headers.get(name), `${path} #${i + 1} ${name}`).to.equal(null);
          }
        }
      }
      // The limit is real: the third request to an API route in the minute is refused.
      const first = await api.get('/api/v1/products');
      expect(first.status).to.equal(401);
      expect(first.headers.get('x-ratelimit-limit')).to.equal('2');
      await api.get('/api/v1/products');
      const third = await api.get('/api/v1/products');
      expectError(third, 429, 'RATE_LIMITED', 'too many requests');
      expect(third.headers.get('retry-after')).to.match(/^[1-9]\d*$/);
    });

    it('GET /docs is an HTML page with the Content-Security-Policy and X-Request-ID headers', async () => {
      const response = await fetch(`${service.url}/docs`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^text\/html\b/);
      expect(response.headers.get('content-security-policy')).to.equal(PAGE_CSP);
      expect(response.headers.get('x-request-id')).to.be.a('string').and.not.equal('');
      const html = await response.text();
      expect(html).to.match(/^<!doctype html>/i);
      expect(html).to.include(`data-document="${DOCUMENT}"`);
      // Nothing inline: no script body, no event handler attribute (the CSP would refuse them).
      expect(html).not.to.match(/<script\b[^>]*>[^<]+<\/script>/i);
      expect(html).not.to.match(/\son[a-z]+=/i);
      expect(html).not.to.match(/https?:\/\//i);
      expect(html).not.to.match(/(src|href)="\/\//i);
    });

    it('serves every asset the page references with its content type, and nothing else from elsewhere', async () => {
      const html = await (await fetch(`${service.url}/docs`)).text();
      const { scripts, links } = references(html);
      expect(scripts).to.have.length.at.least(2);
      expect(links).to.have.length.at.least(1);
      for (const src of scripts) {
        expect(src, src).to.match(/^\/docs\/assets\/[^/]+$/);
        const response = await fetch(new URL(src, service.url));
        expect(response.status, src).to.equal(200);
        expect(response.headers.get('content-type'), src).to.match(/^(text|application)\/javascript\b/);
        expect((await response.text()).length, src).to.be.greaterThan(100);
      }
      for (const href of links) {
        expect(href, href).to.match(/^\/docs\/assets\/[^/]+$/);
        const response = await fetch(new URL(href, service.url));
        expect(response.status, href).to.equal(200);
        expect(response.headers.get('content-type'), href).to.match(/^text\/css\b/);
        const css = await response.text();
        expect(css).not.to.match(/@import/i);
        for (const [, target] of css.matchAll(/url\(\s*['"]?([^'")]+)/gi)) {
          expect(target!.startsWith('data:') || /^\/?[^/:]+/.test(target!), target!.slice(0, 80)).to.equal(true);
        }
      }
    });
  });

  describe('served with the rate limiter off', () => {
    let service: RunningService;
    let api: Api;
    let browser: Browser | undefined;

    before(async () => {
      service = await startService(testConfig({ SVC_AUTH_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false' }), {
        logger: silentLogger(),
      });
      api = new Api(service.url);
    });
    after(async () => {
      await browser?.close();
      await service.stop();
    });

    it('an unknown asset, or a path that tries to leave the asset folder, is 404 route not found in the envelope', async () => {
      for (const path of [
        '/docs/assets/nope.js',
        '/docs/assets/index.html',
        '/docs/assets/..%2F..%2Fpackage.json',
        '/docs/assets/%2e%2e%2fpackage.json',
        '/docs/assets/constructor',
        '/docs/assets/__proto__',
      ]) {
        expectError(await api.get(path), 404, 'NOT_FOUND', 'route not found');
      }
    });

    it('in a browser with no internet access: renders the operations under its CSP and "try it" on GET /health/live shows 200', async function () {
      requireChromium(this);
      // The page is opened under a name that is not loopback, as a deployed service would be: Swagger UI
      // skips some off-origin fetches (its online validator badge) for localhost and 127.0.0.1 only.
      const served = new URL(service.url);
      browser = await launchChromium([`--host-resolver-rules=MAP ${DOCS_HOST} ${served.hostname}`]);
      const origin = `http://${DOCS_HOST}:${served.port}`;
      const { page, pageErrors, violations, offOrigin, consoleMessages } = await watchedPage(browser, origin);
      const healthRequests: string[] = [];
      page.on('request', (request) => {
        if (new URL(request.url()).pathname === '/health/live')
          healthRequests.push(`${request.method()} ${request.url()}`);
      });

      try {
        const response = await page.goto(`${origin}/docs`, { waitUntil: 'load' });
        expect(response?.status()).to.equal(200);
        await page.waitForSelector('#operations-products-listProducts', { timeout: 20_000 });
        const text = (await page.textContent('#swagger-ui')) ?? '';
        expect(text).to.include('Portico API');
        for (const path of ['/api/v1/products', '/api/v1/products/{id}', '/api/v1/auth/login', '/health/live'])
          expect(text).to.include(path);

        const live = page.locator('.opblock-get').filter({ has: page.locator('[data-path="/health/live"]') });
        expect(await live.count()).to.equal(1);
        await live.locator('.opblock-summary-control').click();
        await live.locator('button.try-out__btn').click();
        await live.locator('button.execute').click();
        await live.locator('.live-responses-table tbody .response-col_status').first().waitFor({ timeout: 20_000 });
        const status = (
          (await live.locator('.live-responses-table tbody .response-col_status').first().textContent()) ?? ''
        ).trim();
        expect(status).to.equal('200');
        expect(
          await live.locator('.live-responses-table tbody .response-col_description').first().textContent(),
        ).to.include('"status"');
        expect(healthRequests, healthRequests.join('\n')).to.deep.equal([`GET ${origin}/health/live`]);

        expect(violations, `CSP violations: ${violations.join(' | ')}`).to.deep.equal([]);
        expect(pageErrors, `page errors: ${pageErrors.join(' | ')}`).to.deep.equal([]);
        expect(offOrigin, `requests to other hosts: ${offOrigin.join(', ')}`).to.deep.equal([]);
      } catch (error) {
        await page.screenshot({ path: SCREENSHOT, fullPage: true }).catch(() => undefined);
        const detail =
          `(screenshot: ${SCREENSHOT}; page errors: ${pageErrors.join(' | ') || 'none'}; CSP violations: ${violations.join(' | ') || 'none'}; ` +
          `blocked: ${offOrigin.join(', ') || 'none'}; console: ${consoleMessages.join(' | ') || 'none'})`;
        if (error instanceof Error) error.message = `${error.message}\n${detail}`;
        throw error;
      }
    });
  });

  describe('with docs.enabled false', () => {
    let service: RunningService;
    let api: Api;

    before(async () => {
      const config = testConfig({ SVC_DOCS_ENABLED: 'false', SVC_RATE_LIMIT_ENABLED: 'false' });
      service = await startService(config, { logger: silentLogger() });
      // Answers are checked against the document of what this configuration serves.
      api = new Api(service.url, contractFor(config));
    });
    after(async () => service.stop());

    it('the document, the page and its assets are 404 route not found', async () => {
      for (const path of [DOCUMENT, '/docs', '/docs/assets/swagger-ui-bundle.js', '/docs/assets/start.js']) {
        expectError(await api.get(path), 404, 'NOT_FOUND', 'route not found');
      }
    });
  });

  describe('with api.mode graphql', () => {
    let service: RunningService;
    let api: Api;

    before(async () => {
      const config = testConfig({ SVC_API_MODE: 'graphql', SVC_RATE_LIMIT_ENABLED: 'false' });
      service = await startService(config, { logger: silentLogger() });
      // Answers are checked against the document of what this configuration serves.
      api = new Api(service.url, contractFor(config));
    });
    after(async () => service.stop());

    it('the document has no products paths (they are not served over REST), but keeps the core routes', async () => {
      const response = await api.get(DOCUMENT);
      expect(response.status).to.equal(200);
      const paths = Object.keys((response.body as DocumentJson).paths);
      expect(paths.filter((path) => path.startsWith('/api/v1/products'))).to.deep.equal([]);
      expect(paths).to.include.members(['/api/v1/auth/login', '/health/live', DOCUMENT]);
      expectError(await api.get('/api/v1/products'), 404, 'NOT_FOUND', 'route not found');
    });
  });

  describe('npm run cli -- openapi', function () {
    const dir = mkdtempSync(join(tmpdir(), 'portico-openapi-'));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('prints the document as JSON on stdout and exits 0 without starting anything (no database file is created)', async () => {
      // The port it is configured with is already taken: had it started listening, it would fail; had it
      // started the service, it would not exit at all (runEntry kills it after 30 s and fails).
      const taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      const port = (taken.address() as AddressInfo).port;
      let result;
      try {
        result = await runEntry('src/main/cli.ts', ['openapi'], {
          SVC_DATABASE_URL: `sqlite:${join(dir, 'never.sqlite')}`,
          SVC_SERVER_HOST: '127.0.0.1',
          SVC_SERVER_PORT: String(port),
        });
      } finally {
        await new Promise((resolve) => taken.close(resolve));
      }
      expect(result.stderr).to.equal('');
      expect(result.code).to.equal(0);
      const document = JSON.parse(result.stdout) as DocumentJson;
      expect(document.openapi).to.equal('3.1.0');
      expect(document.paths['/api/v1/products']!.get!.operationId).to.equal('listProducts');
      expect(document.paths).to.include.keys('/api/v1/auth/login', '/health/live', DOCUMENT);
      expect(readdirSync(dir), 'files created in the database folder').to.deep.equal([]);
    });

    it('prints what the configuration serves: no products paths with api.mode graphql, no document path with docs off', async () => {
      const result = await runEntry('src/main/cli.ts', ['openapi'], {
        SVC_API_MODE: 'graphql',
        SVC_DOCS_ENABLED: 'false',
        SVC_DATABASE_URL: `sqlite:${join(dir, 'x.sqlite')}`,
      });
      expect(result.code).to.equal(0);
      const paths = Object.keys((JSON.parse(result.stdout) as DocumentJson).paths);
      expect(paths.filter((path) => path.startsWith('/api/v1/products') || path === DOCUMENT)).to.deep.equal([]);
      expect(paths).to.include('/api/v1/auth/login');
    });

    it('refuses an argument with exit 2 and its usage', async () => {
      const result = await runEntry('src/main/cli.ts', ['openapi', 'extra'], {});
      expect(result.code).to.equal(2);
      expect(result.stdout).to.equal('');
      expect(result.stderr).to.equal(
        'portico: openapi takes no arguments (got extra)\nusage: npm run cli -- openapi\n',
      );
    });

    it('is listed by --help', async () => {
      const result = await runEntry('src/main/cli.ts', ['--help'], {});
      expect(result.code).to.equal(0);
      expect(result.stdout).to.match(/^\s+openapi\s+print the OpenAPI 3\.1 document/m);
    });
  });
});
