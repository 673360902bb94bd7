import { request } from 'node:http';
import { connect } from 'node:net';
import { expect } from 'chai';
import { securityHeaderList } from '../../src/adapters/inbound/http/runtime/index.js';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { launchChromium, requireChromium } from '../support/browser.js';
import { testConfig } from '../support/config.js';
import { startHttpApp, type RunningApp } from '../support/httpApp.js';
import { silentLogger } from '../support/logger.js';

/** Another origin, for a browser app reading the API across origins (mapped to the service's address). */
const APP_HOST = 'app.portico.test';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const BASE = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};
const HSTS = 'max-age=31536000; includeSubDomains';

type HeaderBag = Headers | Record<string, string>;
const read = (headers: HeaderBag, name: string): string | null =>
  headers instanceof Headers ? headers.get(name) : (headers[name] ?? null);

/** README: Metrics and Tracing headers, exactly; HSTS only when asked for; never `X-Powered-By`. */
function expectSecurityHeaders(what: string, headers: HeaderBag, hsts = false): void {
  for (const [name, value] of Object.entries(BASE)) expect(read(headers, name), `${what}: ${name}`).to.equal(value);
  expect(read(headers, 'strict-transport-security'), `${what}: strict-transport-security`).to.equal(hsts ? HSTS : null);
  expect(read(headers, 'x-powered-by'), `${what}: x-powered-by`).to.equal(null);
}

/** Writes `raw` on a new connection; the answer's status and headers (lower-cased names). */
async function rawRequest(url: string, raw: string): Promise<{ status: number; headers: Record<string, string> }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => undefined);
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.write(raw);
  const deadline = performance.now() + 3000;
  while (!received.includes('\r\n\r\n') && !socket.destroyed && performance.now() < deadline) await sleep(10);
  socket.destroy();
  const [statusLine = '', ...lines] = (received.split('\r\n\r\n')[0] ?? '').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf(':');
    headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
  }
  return { status: Number(statusLine.slice(9, 12)), headers };
}

const TOO_LARGE = `GET /health/live HTTP/1.1\r\nHost: portico\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`;
const MALFORMED = 'GET /health/live HTTP/1.1\r\nHost: portico\r\nBad Header: x\r\n\r\n';

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

describe('security headers on every answer (README: Metrics and Tracing)', function () {
  this.timeout(30_000);

  describe('with the defaults (server.hsts false)', () => {
    let service: RunningService;
    before(async () => {
      service = await startService(
        testConfig({
          SVC_API_MODE: 'both',
          SVC_AUTH_BCRYPT_COST: '4',
          SVC_SERVER_BODY_LIMIT: '1kb',
          SVC_RATE_LIMIT_RATE: '20-M',
        }),
        { logger: silentLogger() },
      );
    });
    after(async () => service.stop());

    const cases: [string, string, RequestInit | undefined, number][] = [
      ['health (live)', '/health/live', undefined, 200],
      ['health (ready)', '/health/ready', undefined, 200],
      [
        'success (register)',
        '/api/v1/auth/register',
        json({ email: 'headers@example.com', password: 'a-long-password-1', first_name: 'Head', last_name: 'Ers' }),
        201,
      ],
      ['error (401)', '/api/v1/products', undefined, 401],
      ['error (400 validation)', '/api/v1/auth/login', json({}), 400],
      ['404', '/no/such/route', undefined, 404],
      ['405', '/health/live', { method: 'DELETE' }, 405],
      ['413', '/api/v1/auth/login', json({ email: 'x'.repeat(2048) }), 413],
      [
        'OPTIONS (CORS preflight)',
        '/api/v1/products',
        { method: 'OPTIONS', headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET' } },
        204,
      ],
      ['GraphQL', '/graphql', json({ query: '{ queryHealth { status } }' }), 200],
      ['the playground', '/graphql-playground', undefined, 200],
      ['a playground asset', '/graphql-playground/assets/start.js', undefined, 200],
      ['/docs', '/docs', undefined, 200],
      ['a /docs asset', '/docs/assets/start.js', undefined, 200],
      ['the API document', '/api/v1/openapi.json', undefined, 200],
    ];
    for (const [what, path, init, status] of cases) {
      it(`${what}: ${init?.method ?? 'GET'} ${path} → ${status}`, async () => {
        const response = await fetch(`${service.url}${path}`, init);
        await response.arrayBuffer();
        expect(response.status, what).to.equal(status);
        expectSecurityHeaders(what, response.headers);
      });
    }

    it('the CORS answers still let another origin read the API (no Cross-Origin-Resource-Policy on it)', async () => {
      const response = await fetch(`${service.url}/health/live`, { headers: { Origin: 'https://app.example' } });
      expect(response.headers.get('access-control-allow-origin')).to.equal('*');
      expect(response.headers.get('cross-origin-resource-policy')).to.equal(null);
    });

    it('in a browser, a page on another origin still reads the JSON API (CORS), headers and all', async function () {
      requireChromium(this);
      const served = new URL(service.url);
      const browser = await launchChromium([`--host-resolver-rules=MAP ${APP_HOST} ${served.hostname}`]);
      try {
        const page = await browser.newPage();
        // Any page of that origin will do; this one carries no CSP of its own.
        await page.goto(`http://${APP_HOST}:${served.port}/health/live`);
        const read = await page.evaluate(`Promise.all(['/health/live', '/api/v1/products'].map((path) =>
          fetch(${JSON.stringify(service.url)} + path).then(async (r) => ({ status: r.status, body: await r.json() }))))`);
        const [live, products] = read as { status: number; body: { status?: string; error?: { code: string } } }[];
        expect([live?.status, live?.body.status]).to.deep.equal([200, 'up']);
        expect([products?.status, products?.body.error?.code]).to.deep.equal([401, 'UNAUTHORIZED']);
      } finally {
        await browser.close();
      }
    });

    it('429 (rate limited)', async () => {
      let response: Response | undefined;
      for (let i = 0; i < 40; i += 1) {
        response = await fetch(`${service.url}/api/v1/products`);
        await response.arrayBuffer();
        if (response.status === 429) break;
      }
      expect(response?.status).to.equal(429);
      expectSecurityHeaders('429', response!.headers);
    });

    it('the 431 and 400 Node makes the service write on the socket', async () => {
      const tooLarge = await rawRequest(service.url, TOO_LARGE);
      expect(tooLarge.status).to.equal(431);
      expectSecurityHeaders('431', tooLarge.headers);
      const malformed = await rawRequest(service.url, MALFORMED);
      expect(malformed.status).to.equal(400);
      expectSecurityHeaders('400 (malformed)', malformed.headers);
    });
  });

  describe('503 OVERLOADED from load shedding', () => {
    let service: RunningService;
    before(async () => {
      service = await startService(testConfig({ SVC_SERVER_MAX_IN_FLIGHT: '1', SVC_RATE_LIMIT_ENABLED: 'false' }), {
        logger: silentLogger(),
      });
    });
    after(async () => service.stop());

    it('carries them too', async () => {
      // A slow upload holds the one place while its body arrives.
      const body = JSON.stringify({ email: 'nobody@example.com', password: 'not-the-password' });
      const upload = new Promise<number>((resolve, reject) => {
        const req = request(
          `${service.url}/api/v1/auth/login`,
          { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': String(body.length) } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.write(body.slice(0, 5));
        setTimeout(() => req.end(body.slice(5)), 600);
      });
      await sleep(200);
      const shed = await fetch(`${service.url}/api/v1/products`);
      expect(shed.status).to.equal(503);
      expect(((await shed.json()) as { error: { code: string } }).error.code).to.equal('OVERLOADED');
      expectSecurityHeaders('503', shed.headers);
      expect(await upload).to.equal(401);
    });
  });

  describe('500 from recovery, and the answer Koa writes itself', () => {
    const headers = securityHeaderList({ hsts: false });
    let app: RunningApp;
    let koaAnswers: RunningApp;
    before(async () => {
      app = await startHttpApp({
        securityHeaders: headers,
        routes: [
          (router) => {
            router.get('/bug', () => {
              throw new Error('a bug');
            });
          },
        ],
      });
      // A log destination failing as the request line is written: the error escapes recovery (the
      // logger sits outside it), and Koa answers 500 itself, after removing every header set so far.
      const logger = silentLogger();
      const failing = Object.assign(Object.create(logger) as typeof logger, {
        isLevelEnabled: () => true,
        info: () => {
          throw new Error('log destination failed');
        },
      });
      koaAnswers = await startHttpApp({ securityHeaders: headers, logger: failing });
    });
    after(async () => Promise.all([app.close(), koaAnswers.close()]));

    it('a bug: 500 INTERNAL_ERROR from recovery carries them', async () => {
      const response = await fetch(`${app.url}/bug`);
      expect(response.status).to.equal(500);
      expect(((await response.json()) as { error: { code: string } }).error.code).to.equal('INTERNAL_ERROR');
      expectSecurityHeaders('500', response.headers);
    });

    it("an error past recovery: Koa's own 500 carries them", async () => {
      const response = await fetch(`${koaAnswers.url}/health/live`);
      expect(response.status).to.equal(500);
      expect(await response.text()).to.equal('Internal Server Error');
      expectSecurityHeaders("Koa's 500", response.headers);
    });
  });

  describe('with server.hsts true', () => {
    let service: RunningService;
    before(async () => {
      service = await startService(testConfig({ SVC_SERVER_HSTS: 'true', SVC_RATE_LIMIT_ENABLED: 'false' }), {
        logger: silentLogger(),
      });
    });
    after(async () => service.stop());

    it('Strict-Transport-Security is on every answer, the socket answers included', async () => {
      for (const path of ['/health/live', '/no/such/route', '/docs']) {
        const response = await fetch(`${service.url}${path}`);
        await response.arrayBuffer();
        expectSecurityHeaders(path, response.headers, true);
      }
      expectSecurityHeaders('431', (await rawRequest(service.url, TOO_LARGE)).headers, true);
    });
  });

  describe('no switch turns them off', () => {
    let service: RunningService;
    before(async () => {
      // Once a key, now unknown: an unknown SVC_ variable is ignored, so the headers stay.
      service = await startService(testConfig({ SVC_SERVER_SECURITY_HEADERS: 'false' }), { logger: silentLogger() });
    });
    after(async () => service.stop());

    it('SVC_SERVER_SECURITY_HEADERS=false changes nothing: success, error and socket answers carry them', async () => {
      for (const path of ['/health/live', '/no/such/route']) {
        const response = await fetch(`${service.url}${path}`);
        await response.arrayBuffer();
        expectSecurityHeaders(path, response.headers);
      }
      const malformed = await rawRequest(service.url, MALFORMED);
      expect(malformed.status).to.equal(400);
      expectSecurityHeaders('400', malformed.headers);
    });
  });
});
