import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { JwtTokenIssuer } from '../../../../src/adapters/outbound/crypto/JwtTokenIssuer.js';

const SECRET = 'a-test-secret-that-is-at-least-32-bytes-long';
const ISSUER = 'portico';
const ACCESS_TTL_MS = 15 * 60_000;
const REFRESH_TTL_MS = 7 * 24 * 3_600_000;

const USER_ID = '7d0c5f1e-1b2a-4c3d-8e4f-5a6b7c8d9e0f';
const TOKEN_ID = '0f9e8d7c-6b5a-4f3e-9d2c-1b0a9f8e7d6c';
const SESSION_ID = '5e551011-0000-4000-8000-00000000beef';

const issuer = (overrides: Partial<ConstructorParameters<typeof JwtTokenIssuer>[0]> = {}): JwtTokenIssuer =>
  new JwtTokenIssuer({
    secret: SECRET,
    issuer: ISSUER,
    accessTtlMs: ACCESS_TTL_MS,
    refreshTtlMs: REFRESH_TTL_MS,
    ...overrides,
  });

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** A payload exactly like an issued access token's, for tokens built by hand. */
const accessPayload = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  sub: USER_ID,
  role: 'admin',
  sid: SESSION_ID,
  typ: 'access',
  jti: randomUUID(),
  iss: ISSUER,
  iat: nowSeconds(),
  exp: nowSeconds() + 600,
  ...overrides,
});

/**
 * Signs exactly `payload`, HS256 and the right secret unless told otherwise. (jsonwebtoken keeps
 * a given `iat`, adds one when absent, and with `noTimestamp` deletes it: only used to leave it out.)
 */
const signed = (
  payload: Record<string, unknown>,
  options: { secret?: string; algorithm?: jwt.Algorithm } = {},
): string =>
  jwt.sign(payload, options.secret ?? SECRET, {
    algorithm: options.algorithm ?? 'HS256',
    noTimestamp: !('iat' in payload),
  });

const base64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('JwtTokenIssuer', () => {
  describe('issuing', () => {
    it('issues an HS256 access token carrying sub, role, sid, iss, iat, exp, jti and typ', async () => {
      const before = nowSeconds();
      const { token } = await issuer().issueAccessToken({ userId: USER_ID, sessionId: SESSION_ID, role: 'moderator' });
      const after = nowSeconds();

      const decoded = jwt.decode(token, { complete: true });
      expect(decoded?.header.alg).to.equal('HS256');
      expect(decoded?.header.typ).to.equal('JWT');
      const payload = decoded?.payload as Record<string, unknown>;
      expect(Object.keys(payload).sort()).to.deep.equal(['exp', 'iat', 'iss', 'jti', 'role', 'sid', 'sub', 'typ']);
      expect(payload).to.include({ sub: USER_ID, role: 'moderator', sid: SESSION_ID, iss: ISSUER, typ: 'access' });
      expect(payload.jti).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(payload.iat).to.be.within(before, after);
      expect(payload.exp).to.equal((payload.iat as number) + ACCESS_TTL_MS / 1000);
    });

    it('gives every access token its own jti', async () => {
      const a = jwt.decode(
        (await issuer().issueAccessToken({ userId: USER_ID, sessionId: SESSION_ID, role: 'user' })).token,
      ) as jwt.JwtPayload;
      const b = jwt.decode(
        (await issuer().issueAccessToken({ userId: USER_ID, sessionId: SESSION_ID, role: 'user' })).token,
      ) as jwt.JwtPayload;
      expect(a.jti).not.to.equal(b.jti);
    });

    it('issues a refresh token whose jti is the stored token id and whose typ is refresh', async () => {
      const { token } = await issuer().issueRefreshToken({ userId: USER_ID, tokenId: TOKEN_ID, role: 'user' });
      const decoded = jwt.decode(token, { complete: true });
      expect(decoded?.header.alg).to.equal('HS256');
      const payload = decoded?.payload as jwt.JwtPayload;
      expect(payload).to.include({ sub: USER_ID, role: 'user', iss: ISSUER, typ: 'refresh', jti: TOKEN_ID });
      expect(payload.exp).to.equal(payload.iat! + REFRESH_TTL_MS / 1000);
    });

    it('reports expiresAt equal to the exp claim, one TTL from now', async () => {
      for (const [kind, ttlMs] of [
        ['access', ACCESS_TTL_MS],
        ['refresh', REFRESH_TTL_MS],
      ] as const) {
        const start = Date.now();
        const issued =
          kind === 'access'
            ? await issuer().issueAccessToken({ userId: USER_ID, sessionId: SESSION_ID, role: 'user' })
            : await issuer().issueRefreshToken({ userId: USER_ID, tokenId: TOKEN_ID, role: 'user' });
        const { exp } = jwt.decode(issued.token) as jwt.JwtPayload;
        expect(issued.expiresAt.getTime(), kind).to.equal(exp! * 1000);
        // exp is whole seconds, so up to one second earlier than start + TTL.
        expect(issued.expiresAt.getTime(), kind).to.be.within(start + ttlMs - 1000, Date.now() + ttlMs);
      }
    });

    it('reports the access TTL in seconds', () => {
      expect(issuer().accessTokenTtlSeconds).to.equal(900);
      expect(issuer({ accessTtlMs: 24 * 3_600_000 }).accessTokenTtlSeconds).to.equal(86_400);
    });
  });

  describe('verifying what it issued', () => {
    it('verifies its access token', async () => {
      const { token } = await issuer().issueAccessToken({ userId: USER_ID, sessionId: SESSION_ID, role: 'moderator' });
      expect(await issuer().verifyAccessToken(token)).to.deep.equal({
        userId: USER_ID,
        role: 'moderator',
        sessionId: SESSION_ID,
      });
    });

    it('verifies its refresh token', async () => {
      const { token } = await issuer().issueRefreshToken({ userId: USER_ID, tokenId: TOKEN_ID, role: 'user' });
      expect(await issuer().verifyRefreshToken(token)).to.deep.equal({ userId: USER_ID, tokenId: TOKEN_ID });
    });

    it('accepts a hand-built token with the same claims (access tokens are stateless)', async () => {
      expect(await issuer().verifyAccessToken(signed(accessPayload()))).to.deep.equal({
        userId: USER_ID,
        role: 'admin',
        sessionId: SESSION_ID,
      });
    });

    it('refuses a refresh token where an access token is expected, and the reverse', async () => {
      const access = (await issuer().issueAccessToken({ userId: USER_ID, sessionId: SESSION_ID, role: 'user' })).token;
      const refresh = (await issuer().issueRefreshToken({ userId: USER_ID, tokenId: TOKEN_ID, role: 'user' })).token;
      expect(await issuer().verifyAccessToken(refresh)).to.equal(undefined);
      expect(await issuer().verifyRefreshToken(access)).to.equal(undefined);
    });
  });

  describe('refusing', () => {
    const refusedAsAccess = async (token: string): Promise<void> => {
      expect(await issuer().verifyAccessToken(token)).to.equal(undefined);
      expect(await issuer().verifyRefreshToken(token)).to.equal(undefined);
    };

    it('an unsigned token (alg: none)', async () => {
      const header = base64url({ alg: 'none', typ: 'JWT' });
      const token = `${header}.${base64url(accessPayload())}.`;
      expect(jwt.decode(token)).to.include({ sub: USER_ID }); // well-formed, only unsigned
      await refusedAsAccess(token);
      // Also with the algorithm name in other cases, and with a bogus signature attached.
      await refusedAsAccess(`${base64url({ alg: 'None', typ: 'JWT' })}.${base64url(accessPayload())}.`);
      await refusedAsAccess(`${header}.${base64url(accessPayload())}.c2lnbmF0dXJl`);
    });

    it('the right claims signed with HS384 or HS512 and the same secret', async () => {
      for (const algorithm of ['HS384', 'HS512'] as const) {
        const token = signed(accessPayload(), { algorithm });
        expect(jwt.decode(token, { complete: true })?.header.alg).to.equal(algorithm);
        await refusedAsAccess(token);
      }
    });

    it('a token signed with another secret', async () => {
      await refusedAsAccess(signed(accessPayload(), { secret: `${SECRET}-other` }));
      const other = issuer({ secret: 'another-secret-that-is-also-32-bytes-long' });
      await refusedAsAccess(
        (await other.issueAccessToken({ userId: USER_ID, sessionId: SESSION_ID, role: 'admin' })).token,
      );
    });

    it('an expired token', async () => {
      const past = nowSeconds() - 3600;
      await refusedAsAccess(signed(accessPayload({ iat: past - 900, exp: past })));
      await refusedAsAccess(signed(accessPayload({ iat: nowSeconds() - 60, exp: nowSeconds() - 1 })));
    });

    it('a token already expired when issued (zero TTL)', async () => {
      const zero = issuer({ accessTtlMs: 0 });
      const { token } = await zero.issueAccessToken({ userId: USER_ID, sessionId: SESSION_ID, role: 'user' });
      expect(await zero.verifyAccessToken(token)).to.equal(undefined);
    });

    it('a token from another issuer, or with no issuer', async () => {
      await refusedAsAccess(signed(accessPayload({ iss: 'someone-else' })));
      await refusedAsAccess(signed(accessPayload({ iss: 'PORTICO' })));
      const { iss: _iss, ...withoutIssuer } = accessPayload();
      await refusedAsAccess(signed(withoutIssuer));
      const other = issuer({ issuer: 'other-service' });
      await refusedAsAccess(
        (await other.issueAccessToken({ userId: USER_ID, sessionId: SESSION_ID, role: 'admin' })).token,
      );
    });

    it('a token with no typ, or a typ that is neither access nor refresh', async () => {
      const { typ: _typ, ...withoutType } = accessPayload();
      await refusedAsAccess(signed(withoutType));
      await refusedAsAccess(signed(accessPayload({ typ: 'id' })));
      await refusedAsAccess(signed(accessPayload({ typ: 'ACCESS' })));
    });

    it('a token whose sub is not a UUID', async () => {
      for (const sub of ['42', 'admin', '', `${USER_ID}x`, USER_ID.replace(/-/g, '')]) {
        expect(await issuer().verifyAccessToken(signed(accessPayload({ sub }))), sub).to.equal(undefined);
      }
      expect(await issuer().verifyAccessToken(signed(accessPayload({ sub: 42 })))).to.equal(undefined);
    });

    it('a token missing role, sid, jti, iat or exp (an access token from before sessions had ids included)', async () => {
      for (const claim of ['role', 'sid', 'jti', 'iat', 'exp']) {
        const payload = accessPayload();
        delete payload[claim];
        const token = signed(payload);
        expect(jwt.decode(token), `without ${claim}`).not.to.have.property(claim);
        expect(await issuer().verifyAccessToken(token), `without ${claim}`).to.equal(undefined);
      }
    });

    it('a session id that is not a UUID', async () => {
      for (const sid of ['', 'not-a-uuid', 42, null]) {
        expect(await issuer().verifyAccessToken(signed(accessPayload({ sid }))), String(sid)).to.equal(undefined);
      }
    });

    it('garbage, without throwing', async () => {
      const garbage = [
        '',
        ' ',
        'garbage',
        'a.b.c',
        '..',
        'Bearer x.y.z',
        `${base64url({ alg: 'HS256' })}.not-json.sig`,
        `${base64url('not an object')}.${base64url(accessPayload())}.sig`,
        'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0',
        '\u0000\u0001',
      ];
      for (const token of garbage) {
        expect(await issuer().verifyAccessToken(token), JSON.stringify(token)).to.equal(undefined);
        expect(await issuer().verifyRefreshToken(token), JSON.stringify(token)).to.equal(undefined);
      }
      for (const notAString of [undefined, null, 42, {}]) {
        expect(await issuer().verifyAccessToken(notAString as unknown as string)).to.equal(undefined);
      }
    });

    it('an over-long token, even correctly signed', async () => {
      const token = signed(accessPayload({ pad: 'x'.repeat(8_000) }));
      expect(token.length).to.be.greaterThan(8_000);
      await refusedAsAccess(token);
      await refusedAsAccess('a'.repeat(1_000_000));
    });
  });
});

describe('JwtTokenIssuer verification cache', () => {
  it('still refuses a token once it expires, after it was verified (and remembered) while valid', async function () {
    this.timeout(5000);
    const issuer = new JwtTokenIssuer({
      secret: 'a-secret-for-the-cache-test-0123456789',
      issuer: 'portico',
      accessTtlMs: 1000,
      refreshTtlMs: 1000,
    });
    const { token } = await issuer.issueAccessToken({
      userId: '00000000-0000-4000-8000-000000000001',
      role: 'user',
      sessionId: SESSION_ID,
    });
    expect(await issuer.verifyAccessToken(token)).to.deep.equal({
      userId: '00000000-0000-4000-8000-000000000001',
      role: 'user',
      sessionId: SESSION_ID,
    });
    expect(await issuer.verifyRefreshToken(token)).to.equal(undefined);
    await new Promise((r) => setTimeout(r, 2100));
    expect(await issuer.verifyAccessToken(token)).to.equal(undefined);
  });
});
