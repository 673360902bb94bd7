import { expect } from 'chai';
import type { RouteModule } from '../../../../src/adapters/inbound/http/app.js';
import { startHttpApp, type RunningApp } from '../../../support/httpApp.js';
import { capturingLogger } from '../../../support/logger.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const routes: RouteModule = (router) => {
  router.get('/ok', (ctx) => {
    ctx.body = { success: true, data: { requestId: ctx.state.requestId } };
  });
  router.get('/boom', () => {
    throw new Error('kaboom');
  });
};

describe('HTTP adapter: X-Request-ID', () => {
  let app: RunningApp;
  let captured: ReturnType<typeof capturingLogger>;

  beforeEach(async () => {
    captured = capturingLogger();
    app = await startHttpApp({ logger: captured.logger, routes: [routes] });
  });

  afterEach(async () => {
    await app.close();
  });

  function requestLines(): Record<string, unknown>[] {
    return captured.lines().filter((l) => l.msg === 'request');
  }

  describe('on every response', () => {
    it('is a new UUID on a success when the caller sent none', async () => {
      const res = await fetch(`${app.url}/ok`);
      expect(res.status).to.equal(200);
      const id = res.headers.get('x-request-id');
      expect(id).to.match(UUID);
      const body = (await res.json()) as { data: { requestId: string } };
      expect(body.data.requestId, 'the id the handlers see is the id answered').to.equal(id);
    });

    it('is present on a 404 for an unknown route', async () => {
      const res = await fetch(`${app.url}/no-such-route`);
      expect(res.status).to.equal(404);
      expect(res.headers.get('x-request-id')).to.match(UUID);
    });

    it('is present on a 500 from a route that throws', async () => {
      const res = await fetch(`${app.url}/boom`);
      expect(res.status).to.equal(500);
      expect(res.headers.get('x-request-id')).to.match(UUID);
    });

    it('is a different id for each request', async () => {
      const a = (await fetch(`${app.url}/ok`)).headers.get('x-request-id');
      const b = (await fetch(`${app.url}/ok`)).headers.get('x-request-id');
      expect(a).to.match(UUID);
      expect(b).to.match(UUID);
      expect(a).to.not.equal(b);
    });
  });

  describe('an incoming X-Request-ID', () => {
    const valid = ['abc-123', 'A.b_c-9', 'x', 'a'.repeat(128), '0123456789abcdef.trace_id-Z'];
    for (const id of valid) {
      it(`is echoed when valid (${id.length > 30 ? `${id.length} chars` : id})`, async () => {
        const res = await fetch(`${app.url}/ok`, { headers: { 'X-Request-ID': id } });
        expect(res.status).to.equal(200);
        expect(res.headers.get('x-request-id')).to.equal(id);
      });
    }

    it('is echoed on error answers too (404 and 500)', async () => {
      const notFound = await fetch(`${app.url}/nowhere`, { headers: { 'X-Request-ID': 'trace-404' } });
      expect(notFound.status).to.equal(404);
      expect(notFound.headers.get('x-request-id')).to.equal('trace-404');
      const failed = await fetch(`${app.url}/boom`, { headers: { 'X-Request-ID': 'trace-500' } });
      expect(failed.status).to.equal(500);
      expect(failed.headers.get('x-request-id')).to.equal('trace-500');
    });

    const invalid: [string, string][] = [
      ['129 characters long', 'a'.repeat(129)],
      ['containing spaces', 'abc def'],
      ['containing markup', '<script>'],
      ['containing a slash', 'abc/def'],
      ['containing a colon', 'abc:def'],
    ];
    for (const [label, id] of invalid) {
      it(`is replaced by a new UUID when ${label}`, async () => {
        const res = await fetch(`${app.url}/ok`, { headers: { 'X-Request-ID': id } });
        expect(res.status).to.equal(200);
        const answered = res.headers.get('x-request-id');
        expect(answered).to.not.equal(id);
        expect(answered).to.match(UUID);
        const logged = requestLines();
        expect(logged).to.have.length(1);
        expect(logged[0]!.request_id).to.equal(answered);
        expect(JSON.stringify(captured.lines())).to.not.include(id);
      });
    }
  });

  describe('in the log', () => {
    it('is the request_id of the request line (incoming id)', async () => {
      const res = await fetch(`${app.url}/ok`, { headers: { 'X-Request-ID': 'log-me-123' } });
      expect(res.status).to.equal(200);
      const logged = requestLines();
      expect(logged).to.have.length(1);
      expect(logged[0]!.request_id).to.equal('log-me-123');
    });

    it('is the request_id of the request line (generated id)', async () => {
      const res = await fetch(`${app.url}/ok`);
      const logged = requestLines();
      expect(logged).to.have.length(1);
      expect(logged[0]!.request_id).to.equal(res.headers.get('x-request-id'));
    });

    it('is carried by the error line that recovery writes for a 500', async () => {
      const res = await fetch(`${app.url}/boom`, { headers: { 'X-Request-ID': 'err-trace-1' } });
      expect(res.status).to.equal(500);
      const errorLine = captured.lines().find((l) => l.msg === 'unhandled error');
      expect(errorLine, 'recovery logs the failure').to.not.equal(undefined);
      expect(errorLine!.request_id).to.equal('err-trace-1');
    });
  });
});
