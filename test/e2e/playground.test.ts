import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { PAGE_CSP } from '../../src/adapters/inbound/http/pagePolicy.js';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { Api, expectError } from '../support/api.js';
import { launchChromium, references, requireChromium, watchedPage } from '../support/browser.js';
import { testConfig } from '../support/config.js';
import { silentLogger } from '../support/logger.js';

const SCREENSHOT = '/tmp/playground.png';

describe('GraphQL playground (GraphiQL, offline)', function () {
  this.timeout(60_000);
  let service: RunningService;
  let api: Api;
  let html: string;
  let pageHeaders: Headers;

  before(async () => {
    service = await startService(
      testConfig({ SVC_API_MODE: 'both', SVC_AUTH_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false' }),
      {
        logger: silentLogger(),
      },
    );
    api = new Api(service.url);
    const response = await fetch(`${service.url}/graphql-playground`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/html/);
    pageHeaders = response.headers;
    html = await response.text();
  });
  after(async () => service.stop());

  describe('the page and its assets', () => {
    it('is an HTML page that mounts GraphiQL pointed at the general route, from its own start script', async () => {
      expect(html).to.match(/^<!doctype html>/i);
      expect(html).to.include('<div id="graphiql" data-url="/graphql">');
      const start = await fetch(`${service.url}/graphql-playground/assets/start.js`);
      expect(start.status).to.equal(200);
      expect(await start.text()).to.include("GraphiQL.createFetcher({ url: root.getAttribute('data-url') })");
    });

    it("carries the pages' Content-Security-Policy, exactly, and nothing inline the policy would refuse", () => {
      expect(pageHeaders.get('content-security-policy')).to.equal(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self' data:; " +
          "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
      );
      expect(pageHeaders.get('content-security-policy')).to.equal(PAGE_CSP);
      expect(html).not.to.match(/<script\b[^>]*>[^<]+<\/script>/i);
      expect(html).not.to.match(/<style\b/i);
      expect(html).not.to.match(/\s(on[a-z]+|style)=/i);
    });

    it('references no other host: no http:// or https:// anywhere in the page', () => {
      expect(html).not.to.match(/https?:\/\//i);
      expect(html).not.to.match(/(src|href)="\/\//i); // no protocol-relative references either
    });

    it('references scripts and a stylesheet, each served 200 by the service with a JavaScript or CSS type', async () => {
      const { scripts, links } = references(html);
      expect(scripts.length).to.be.at.least(3);
      expect(links.length).to.be.at.least(1);
      for (const src of scripts) {
        expect(src, src).to.match(/^\/[^/]/);
        const response = await fetch(new URL(src, service.url));
        expect(response.status, src).to.equal(200);
        expect(response.headers.get('content-type'), src).to.match(/^(text|application)\/javascript\b/);
        // The libraries are large; the page's own start script is small but not empty.
        expect((await response.text()).length, src).to.be.greaterThan(src.endsWith('/start.js') ? 100 : 1000);
      }
      for (const href of links) {
        expect(href, href).to.match(/^\/[^/]/);
        const response = await fetch(new URL(href, service.url));
        expect(response.status, href).to.equal(200);
        expect(response.headers.get('content-type'), href).to.match(/^text\/css\b/);
        const css = await response.text();
        // The stylesheet pulls in nothing from elsewhere: no @import, and every url() is inline data or local.
        expect(css).not.to.match(/@import/i);
        for (const [, target] of css.matchAll(/url\(\s*['"]?([^'")]+)/gi)) {
          expect(target!.startsWith('data:') || /^\/?[^/:]+/.test(target!), target!.slice(0, 80)).to.equal(true);
        }
      }
    });

    it('an unknown asset, or a path that tries to leave the asset folder, is 404 route not found', async () => {
      for (const path of [
        '/graphql-playground/assets/nope.js',
        '/graphql-playground/assets/..%2F..%2Fpackage.json',
        '/graphql-playground/assets/%2e%2e%2fpackage.json',
        '/graphql-playground/assets/constructor',
        '/graphql-playground/assets/__proto__',
      ]) {
        expectError(await api.get(path), 404, 'NOT_FOUND', 'route not found');
      }
    });
  });

  describe('in a browser with no internet access', () => {
    let browser: Browser | undefined;
    after(async () => browser?.close());

    it('runs { queryHealth { status } } from the query editor and shows 200', async function () {
      requireChromium(this);
      browser = await launchChromium();
      const origin = new URL(service.url).origin;
      const { page, pageErrors, violations, offOrigin } = await watchedPage(browser, origin);
      const graphqlPosts: string[] = [];
      page.on('request', (request) => {
        if (request.method() === 'POST' && new URL(request.url()).pathname === '/graphql')
          graphqlPosts.push(request.postData() ?? '');
      });

      try {
        const response = await page.goto(`${service.url}/graphql-playground`, { waitUntil: 'load' });
        expect(response?.status()).to.equal(200);
        await page.waitForSelector('.graphiql-query-editor .CodeMirror', { timeout: 20_000 });
        await page.click('.graphiql-query-editor .CodeMirror');
        await page.evaluate(
          `document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue('{ queryHealth { status } }')`,
        );
        expect(
          await page.evaluate(`document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.getValue()`),
        ).to.equal('{ queryHealth { status } }');
        await page.click('.graphiql-execute-button');
        // A locator, not waitForFunction with a string: that is evaluated with eval in the page, which its CSP refuses.
        await page.locator('.graphiql-response').filter({ hasText: '200' }).waitFor({ timeout: 20_000 });
        const result = (await page.textContent('.graphiql-response')) ?? '';
        expect(result).to.include('queryHealth');
        expect(result).to.include('200');
        expect(
          graphqlPosts.some((body) => body.includes('queryHealth { status }')),
          graphqlPosts.join('\n'),
        ).to.equal(true);
        expect(offOrigin, `requests to other hosts: ${offOrigin.join(', ')}`).to.deep.equal([]);
        expect(violations, `CSP violations: ${violations.join(' | ')}`).to.deep.equal([]);
        expect(pageErrors, `page errors: ${pageErrors.join(' | ')}`).to.deep.equal([]);
      } catch (error) {
        await page.screenshot({ path: SCREENSHOT, fullPage: true }).catch(() => undefined);
        const detail = `(screenshot: ${SCREENSHOT}; page errors: ${pageErrors.join(' | ') || 'none'}; CSP violations: ${violations.join(' | ') || 'none'}; blocked: ${offOrigin.join(', ') || 'none'})`;
        if (error instanceof Error) error.message = `${error.message}\n${detail}`;
        throw error;
      }
    });
  });
});
