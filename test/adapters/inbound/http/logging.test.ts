import { expect } from 'chai';
import type { RouteModule } from '../../../../src/adapters/inbound/http/app.js';
import { startHttpApp, type RunningApp } from '../../../support/httpApp.js';
import { capturingLogger } from '../../../support/logger.js';

const routes: RouteModule = (router) => {
  router.get('/items/:id', (ctx) => {
    ctx.body = { success: true, data: { id: ctx.params.id } };
  });
  router.post('/auth/login', (ctx) => {
    ctx.body = { success: true, data: { received: Object.keys(ctx.request.body as object) } };
  });
  router.get('/me', (ctx) => {
    ctx.state.principal = { userId: 'user-42', role: 'user', sessionId: 'session-7' };
    ctx.body = { success: true, data: {} };
  });
  router.get('/boom', () => {
    throw new Error('kaboom');
  });
};

describe('HTTP adapter: request logging', () => {
  let app: RunningApp;
  let captured: ReturnType<typeof capturingLogger>;

  beforeEach(async () => {
    captured = capturingLogger();
    app = await startHttpApp({ logger: captured.logger, routes: [routes] });
  });

  afterEach(async () => {
    await app.close();
  });

  const requestLines = (): Record<string, unknown>[] => captured.lines().filter((l) => l.msg === 'request');

  it('writes exactly one JSON line per request', async () => {
    for (let i = 0; i < 3; i++) expect((await fetch(`${app.url}/items/${i}`)).status).to.equal(200);
    expect((await fetch(`${app.url}/missing`)).status).to.equal(404);
    const lines = requestLines();
    expect(lines).to.have.length(4);
    expect(lines.map((l) => l.path)).to.deep.equal(['/items/0', '/items/1', '/items/2', '/missing']);
  });

  it('carries method, path, status, duration_ms, request_id and ip', async () => {
    const res = await fetch(`${app.url}/items/7?verbose=1`, { headers: { 'X-Request-ID': 'req-log-1' } });
    expect(res.status).to.equal(200);
    const [line] = requestLines();
    expect(line).to.not.equal(undefined);
    expect(line!.method).to.equal('GET');
    expect(line!.path, 'the path without the query string').to.equal('/items/7');
    expect(line!.status).to.equal(200);
    expect(line!.duration_ms).to.be.a('number');
    expect(line!.duration_ms as number)
      .to.be.at.least(0)
      .and.below(5000);
    expect(line!.request_id).to.equal('req-log-1');
    expect(line!.ip).to.be.a('string');
    expect(line!.ip as string).to.match(/^(::ffff:)?127\.0\.0\.1$/);
    expect(line!).to.not.have.property('user_id');
  });

  it('logs as ip the client the rate limit sees: with trustProxy, the X-Forwarded-For entry the proxy appended', async () => {
    await app.close();
    app = await startHttpApp({ logger: captured.logger, routes: [routes], trustProxy: true });
    expect(
      (await fetch(`${app.url}/items/1`, { headers: { 'X-Forwarded-For': '192.0.2.66, 203.0.113.7' } })).status,
    ).to.equal(200);
    await app.close();
    app = await startHttpApp({ logger: captured.logger, routes: [routes], trustProxy: true, trustProxyHops: 2 });
    expect(
      (await fetch(`${app.url}/items/2`, { headers: { 'X-Forwarded-For': '192.0.2.66, 203.0.113.8, 10.0.0.1' } }))
        .status,
    ).to.equal(200);
    expect(requestLines().map((l) => l.ip)).to.deep.equal(['203.0.113.7', '203.0.113.8']);
  });

  it('logs the real status of error answers (404, 500)', async () => {
    expect((await fetch(`${app.url}/missing`)).status).to.equal(404);
    expect((await fetch(`${app.url}/boom`)).status).to.equal(500);
    expect(requestLines().map((l) => [l.method, l.path, l.status])).to.deep.equal([
      ['GET', '/missing', 404],
      ['GET', '/boom', 500],
    ]);
  });

  it('logs the method of a POST', async () => {
    const res = await fetch(`${app.url}/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'a@example.com' }),
    });
    expect(res.status).to.equal(200);
    const [line] = requestLines();
    expect(line!.method).to.equal('POST');
    expect(line!.path).to.equal('/auth/login');
    expect(line!.status).to.equal(200);
  });

  it('adds user_id once the caller is known', async () => {
    expect((await fetch(`${app.url}/me`)).status).to.equal(200);
    const [line] = requestLines();
    expect(line!.user_id).to.equal('user-42');
  });

  it('never logs the Authorization header, or a password or token from the body', async () => {
    const token = 'eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXRva2VuLXBheWxvYWQ.sig-Zq9xW7';
    const password = 'Hunter2-very-secret-pw';
    const refreshToken = 'refresh-9b1c7e55-token-body';
    const res = await fetch(`${app.url}/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify({ email: 'someone@example.com', password, refresh_token: refreshToken }),
    });
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { data: { received: string[] } };
    expect(body.data.received, 'the route did see the password field').to.include('password');
    // The request reached the logger...
    expect(requestLines()).to.have.length(1);
    // ...and no line, in any field, holds a secret.
    const text = JSON.stringify(captured.lines());
    expect(text).to.not.include(token);
    expect(text).to.not.include('c2VjcmV0LXRva2VuLXBheWxvYWQ');
    expect(text).to.not.include(password);
    expect(text).to.not.include(refreshToken);
    expect(text.toLowerCase()).to.not.include('authorization');
    expect(text.toLowerCase()).to.not.include('bearer');
  });

  it('never logs the Authorization header of a request that fails', async () => {
    const token = 'failing-request-token-7f3a9c';
    const res = await fetch(`${app.url}/boom`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).to.equal(500);
    expect(captured.lines().some((l) => l.msg === 'unhandled error')).to.equal(true);
    const text = JSON.stringify(captured.lines());
    expect(text).to.not.include(token);
    expect(text.toLowerCase()).to.not.include('authorization');
  });

  it('never logs a password from a body that is rejected', async () => {
    const password = 'Rejected-body-secret-99';
    const res = await fetch(`${app.url}/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: `{"password": "${password}", broken`,
    });
    expect(res.status).to.equal(400);
    expect(requestLines()).to.have.length(1);
    expect(JSON.stringify(captured.lines())).to.not.include(password);
  });
});
