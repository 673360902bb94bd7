import { createHmac, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import {
  Api,
  dataOf,
  decodeJwt,
  expectUnauthorized,
  rawRequest,
  register,
  type Account,
  type UserJson,
} from '../support/api.js';
import { testConfig } from '../support/config.js';
import { silentLogger } from '../support/logger.js';

const config = testConfig({ SVC_AUTH_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false' });
const SECRET = config.jwt.secret;
const ISSUER = config.jwt.issuer;

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Signs header.payload with HMAC by hand, so any header (even a lying `alg`) can be tried. */
function handSigned(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  key = SECRET,
  hmac = 'sha256',
): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${createHmac(hmac, key).update(input).digest('base64url')}`;
}

describe('access tokens (end to end)', function () {
  this.timeout(30_000);
  let service: RunningService;
  let api: Api;
  let account: Account;

  /** Claims like the service's own access tokens, for `account`. */
  const claims = (overrides: Record<string, unknown> = {}): Record<string, unknown> => {
    const now = Math.floor(Date.now() / 1000);
    const sid = decodeJwt(account.access_token).payload.sid;
    return {
      sub: account.user.id,
      role: 'user',
      sid,
      typ: 'access',
      jti: randomUUID(),
      iss: ISSUER,
      iat: now,
      exp: now + 600,
      ...overrides,
    };
  };
  const profileWith = (token: string) => api.get('/api/v1/profile', { token });

  before(async () => {
    service = await startService(config, { logger: silentLogger() });
    api = new Api(service.url);
    account = await register(api);
  });
  after(async () => service.stop());

  describe('the tokens the service issues', () => {
    it('access token: header alg HS256; claims exactly sub, role, sid, amr, iss "portico", iat, exp, jti, typ "access"', () => {
      const { header, payload } = decodeJwt(account.access_token);
      expect(header).to.deep.equal({ alg: 'HS256', typ: 'JWT' });
      expect(Object.keys(payload).sort()).to.deep.equal([
        'amr',
        'exp',
        'iat',
        'iss',
        'jti',
        'role',
        'sid',
        'sub',
        'typ',
      ]);
      expect(payload.amr, 'signed in with a password (RFC 8176)').to.deep.equal(['pwd']);
      expect(payload.sid, 'the session: the id GET /api/v1/auth/sessions lists').to.match(
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      );
      expect(payload).to.include({ sub: account.user.id, role: 'user', iss: 'portico', typ: 'access' });
      expect(payload.jti).to.be.a('string').and.not.equal('');
      expect(payload.iat).to.be.a('number');
      expect(Math.abs((payload.iat as number) - Date.now() / 1000)).to.be.lessThan(60);
      expect((payload.exp as number) - (payload.iat as number)).to.equal(24 * 3600);
      expect(() =>
        jwt.verify(account.access_token, SECRET, { algorithms: ['HS256'], issuer: 'portico' }),
      ).not.to.throw();
    });

    it('refresh token: typ "refresh", lives 168h, and has its own jti', () => {
      const access = decodeJwt(account.access_token).payload;
      const { header, payload } = decodeJwt(account.refresh_token);
      expect(header.alg).to.equal('HS256');
      expect(payload).to.include({ sub: account.user.id, iss: 'portico', typ: 'refresh' });
      expect((payload.exp as number) - (payload.iat as number)).to.equal(168 * 3600);
      expect(payload.jti).to.be.a('string').and.not.equal(access.jti);
    });

    it('every token gets a fresh jti', async () => {
      const again = await register(api);
      expect(decodeJwt(again.access_token).payload.jti).not.to.equal(decodeJwt(account.access_token).payload.jti);
    });
  });

  describe('GET /api/v1/profile with hand-made tokens', () => {
    it('accepts a token made with the secret and the right claims (so the refusals below are about one thing each)', async () => {
      const token = jwt.sign(claims(), SECRET, { algorithm: 'HS256' });
      const profile = dataOf<UserJson>(await profileWith(token));
      expect(profile.id).to.equal(account.user.id);
      expect(dataOf<UserJson>(await profileWith(handSigned({ alg: 'HS256', typ: 'JWT' }, claims()))).id).to.equal(
        account.user.id,
      );
    });

    it('refuses alg "none" (unsigned)', async () => {
      for (const alg of ['none', 'None', 'NONE']) {
        const unsigned = `${b64({ alg, typ: 'JWT' })}.${b64(claims())}.`;
        expectUnauthorized(await profileWith(unsigned));
      }
    });

    it('refuses the HS256 signature under a header that says "none"', async () => {
      expectUnauthorized(await profileWith(handSigned({ alg: 'none', typ: 'JWT' }, claims())));
    });

    it('refuses HS384 and HS512 signed with the right secret', async () => {
      expectUnauthorized(await profileWith(jwt.sign(claims(), SECRET, { algorithm: 'HS384' })));
      expectUnauthorized(await profileWith(jwt.sign(claims(), SECRET, { algorithm: 'HS512' })));
      // A header that claims HS256 over an HS384 MAC is no better.
      expectUnauthorized(await profileWith(handSigned({ alg: 'HS256', typ: 'JWT' }, claims(), SECRET, 'sha384')));
    });

    it('refuses a token signed with another key', async () => {
      expectUnauthorized(await profileWith(jwt.sign(claims(), `${SECRET}-not`, { algorithm: 'HS256' })));
      expectUnauthorized(
        await profileWith(jwt.sign(claims(), 'another-secret-of-at-least-32-bytes!!', { algorithm: 'HS256' })),
      );
    });

    it('refuses a tampered payload', async () => {
      const [header, , signature] = account.access_token.split('.');
      const forged = `${header}.${b64({ ...decodeJwt(account.access_token).payload, role: 'admin' })}.${signature}`;
      expectUnauthorized(await profileWith(forged));
    });

    it('refuses an expired token', async () => {
      const now = Math.floor(Date.now() / 1000);
      expectUnauthorized(
        await profileWith(jwt.sign(claims({ iat: now - 7200, exp: now - 60 }), SECRET, { algorithm: 'HS256' })),
      );
    });

    it('refuses another issuer, and a token without one', async () => {
      expectUnauthorized(await profileWith(jwt.sign(claims({ iss: 'someone-else' }), SECRET, { algorithm: 'HS256' })));
      const { iss: _iss, ...noIssuer } = claims();
      expectUnauthorized(await profileWith(jwt.sign(noIssuer, SECRET, { algorithm: 'HS256' })));
    });

    it('refuses a missing or other typ (refresh, id)', async () => {
      const { typ: _typ, ...untyped } = claims();
      expectUnauthorized(await profileWith(jwt.sign(untyped, SECRET, { algorithm: 'HS256' })));
      expectUnauthorized(await profileWith(jwt.sign(claims({ typ: 'refresh' }), SECRET, { algorithm: 'HS256' })));
      expectUnauthorized(await profileWith(jwt.sign(claims({ typ: 'id' }), SECRET, { algorithm: 'HS256' })));
      expectUnauthorized(await profileWith(jwt.sign(claims({ typ: 'ACCESS' }), SECRET, { algorithm: 'HS256' })));
    });

    it('refuses a valid token for a user id that does not exist', async () => {
      expectUnauthorized(await profileWith(jwt.sign(claims({ sub: randomUUID() }), SECRET, { algorithm: 'HS256' })));
      // A session that is not this user's, one that never existed, and none at all (a token from before sessions).
      const other = await register(api);
      expectUnauthorized(
        await profileWith(
          jwt.sign(claims({ sid: decodeJwt(other.access_token).payload.sid }), SECRET, { algorithm: 'HS256' }),
        ),
      );
      expectUnauthorized(await profileWith(jwt.sign(claims({ sid: randomUUID() }), SECRET, { algorithm: 'HS256' })));
      expectUnauthorized(await profileWith(jwt.sign(claims({ sid: undefined }), SECRET, { algorithm: 'HS256' })));
    });

    it('refuses a token without a subject or with one that is not a user id', async () => {
      const { sub: _sub, ...anonymous } = claims();
      expectUnauthorized(await profileWith(jwt.sign(anonymous, SECRET, { algorithm: 'HS256' })));
      expectUnauthorized(await profileWith(jwt.sign(claims({ sub: 42 }), SECRET, { algorithm: 'HS256' })));
      expectUnauthorized(await profileWith(jwt.sign(claims({ sub: "' or 1=1 --" }), SECRET, { algorithm: 'HS256' })));
    });

    it('refuses a token that is not a JWT at all, and an oversized one', async () => {
      expectUnauthorized(await profileWith('abc'));
      expectUnauthorized(await profileWith('a.b.c'));
      expectUnauthorized(
        await profileWith(jwt.sign(claims({ pad: 'x'.repeat(5000) }), SECRET, { algorithm: 'HS256' })),
      );
    });
  });

  describe('the Authorization header', () => {
    const withHeader = (value: string) => api.get('/api/v1/profile', { headers: { Authorization: value } });

    it('without one: 401 "missing bearer token" with WWW-Authenticate: Bearer', async () => {
      expectUnauthorized(await api.get('/api/v1/profile'), 'missing bearer token');
    });

    it('"Bearer" alone, another scheme, or junk after the token: 401 "invalid authorization header"', async () => {
      for (const value of [
        'Bearer',
        'Basic dXNlcjpwYXNz',
        'Basic x',
        `Token ${account.access_token}`,
        `Bearer ${account.access_token} extra`,
        `Bearer  ${account.access_token}`,
      ]) {
        expectUnauthorized(await withHeader(value), 'invalid authorization header');
      }
    });

    it('treats the scheme case-insensitively, as RFC 7235 says: "bearer" and "BEARER" work', async () => {
      expect(dataOf<UserJson>(await withHeader(`bearer ${account.access_token}`)).id).to.equal(account.user.id);
      expect(dataOf<UserJson>(await withHeader(`BEARER ${account.access_token}`)).id).to.equal(account.user.id);
    });

    it('accepts exactly "Bearer <token>"', async () => {
      expect(dataOf<UserJson>(await withHeader(`Bearer ${account.access_token}`)).id).to.equal(account.user.id);
    });

    it('two Authorization headers: 400 BAD_REQUEST "more than one Authorization header", even when both are valid', async () => {
      const other = await register(api);
      for (const values of [
        [`Bearer ${account.access_token}`, `Bearer ${other.access_token}`],
        [`Bearer ${account.access_token}`, `Bearer ${account.access_token}`],
        [`Bearer ${account.access_token}`, 'Basic dXNlcjpwYXNz'],
        ['', `Bearer ${account.access_token}`],
      ]) {
        const response = await rawRequest(service.url, 'GET', '/api/v1/profile', { Authorization: values });
        expect(response.status, response.text).to.equal(400);
        expect(response.headers['content-type']).to.match(/^application\/json/);
        expect(JSON.parse(response.text)).to.deep.equal({
          success: false,
          error: { code: 'BAD_REQUEST', message: 'more than one Authorization header' },
        });
      }
      // One header is still fine through the same client.
      const one = await rawRequest(service.url, 'GET', '/api/v1/profile', {
        Authorization: `Bearer ${account.access_token}`,
      });
      expect(one.status, one.text).to.equal(200);
    });
  });
});
