import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, importJWK } from 'jose';
import { UserTokens } from '../../src/main/modules/identityTokens.js';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import {
  Api,
  dataOf,
  decodeJwt,
  expectError,
  expectValidation,
  register,
  type Account,
  type ApiResponse,
  type SessionJson,
  type UserJson,
} from '../support/api.js';
import { testConfig } from '../support/config.js';
import { externalService } from '../support/env.js';
import { silentLogger } from '../support/logger.js';
import {
  idTokenFor,
  newSigningKey,
  signInAtProvider,
  startTestProvider,
  type TestClient,
  type TestProvider,
} from '../support/oidcProvider.js';

/** The service's public origin, as the providers know it: the test plays the browser and the proxy in front. */
const PUBLIC = 'http://portico.test';
const FRONT = 'https://app.example/signed-in';
const NATIVE = 'http://127.0.0.1/native-app';

const PORTICO: TestClient = {
  client_id: 'portico',
  client_secret: 'portico-client-secret-of-some-length',
  redirect_uris: [`${PUBLIC}/api/v1/auth/oidc/corp/callback`, `${PUBLIC}/api/v1/auth/oidc/other/callback`, NATIVE],
};
const OTHER_APP: TestClient = {
  client_id: 'other-app',
  client_secret: 'another-client-secret-of-some-length',
  redirect_uris: [NATIVE],
};

interface Engine {
  readonly name: string;
  settings(scratch: string): Record<string, string> | undefined;
}

const POSTGRES = externalService('SVC_TEST_POSTGRES_URL');

const ENGINES: Engine[] = [
  { name: 'SQLite', settings: (scratch) => ({ SVC_DATABASE_URL: `sqlite:${join(scratch, 'portico.sqlite')}` }) },
  {
    name: 'PostgreSQL',
    settings: () => (POSTGRES === undefined ? undefined : { SVC_DATABASE_URL: POSTGRES }),
  },
];

interface MfaRequiredJson {
  mfa_required: true;
  mfa_token: string;
  methods: string[];
}

interface IdentityJson {
  id: string;
  issuer: string;
  subject: string;
  email: string | null;
  created_at: string;
}

let people = 0;
/** A new person at a provider: a fresh subject and address. */
const person = (): { subject: string; email: string } => {
  people += 1;
  const tag = `${Date.now().toString(36)}${people}`;
  return { subject: `person-${tag}`, email: `person-${tag}@example.com` };
};

for (const engine of ENGINES) {
  describe(`Sign-in with an identity provider: ${engine.name} (end to end, a real OpenID Provider in process)`, function () {
    this.timeout(120_000);
    const scratch = mkdtempSync(join(tmpdir(), 'portico-oidc-'));
    let service: RunningService | undefined;
    let api: Api;
    let corp: TestProvider;
    let other: TestProvider;

    before(async function () {
      const settings = engine.settings(scratch);
      if (!settings) return this.skip();
      corp = await startTestProvider([PORTICO, OTHER_APP]);
      // Another issuer signing with the same keys: its tokens verify by signature, and must still be refused for `corp`.
      other = await startTestProvider([PORTICO], [...corp.keys]);
      const yaml =
        'auth:\n  oidc:\n    providers:\n' +
        `      corp:\n        issuer: '${corp.issuer}'\n        client_id: portico\n` +
        `      other:\n        issuer: '${other.issuer}'\n        client_id: portico\n        client_secret: '${PORTICO.client_secret}'\n`;
      service = await startService(
        testConfig(
          {
            ...settings,
            SVC_CONFIG: 'oidc.yaml',
            SVC_AUTH_BCRYPT_COST: '4',
            SVC_RATE_LIMIT_ENABLED: 'false',
            SVC_SERVER_PUBLIC_URL: PUBLIC,
            SVC_AUTH_OIDC_REDIRECT_URIS: FRONT,
            SVC_AUTH_OIDC_CORP_CLIENT_SECRET: PORTICO.client_secret,
          },
          { 'oidc.yaml': yaml },
        ),
        { logger: silentLogger() },
      );
      api = new Api(service.url);
    });
    after(async () => {
      await service?.stop();
      await corp?.stop();
      await other?.stop();
      rmSync(scratch, { recursive: true, force: true });
    });

    const start = (provider: string, redirectUri: string = FRONT): Promise<ApiResponse> =>
      api.get(`/api/v1/auth/oidc/${provider}/start?redirect_uri=${encodeURIComponent(redirectUri)}`, {
        manualRedirect: true,
      });

    /** The browser at the provider: signs in as `subject`, and answers where the provider sends it back (the service's callback). */
    const atProvider = async (subject: string, provider = 'corp'): Promise<URL> => {
      const started = await start(provider);
      expect(started.status, started.text).to.equal(302);
      const back = await signInAtProvider(
        provider === 'corp' ? corp : other,
        started.headers.get('location')!,
        subject,
      );
      expect(back.origin).to.equal(PUBLIC);
      return back;
    };

    /** The callback, reached through the public origin: answers it (a redirect to the front end, or an error). */
    const callback = (back: URL): Promise<ApiResponse> =>
      api.get(`${back.pathname}${back.search}`, { manualRedirect: true });

    /** The whole browser flow up to the front end: where the browser lands. */
    const browserSignIn = async (subject: string, provider = 'corp'): Promise<URL> => {
      const answer = await callback(await atProvider(subject, provider));
      expect(answer.status, answer.text).to.equal(302);
      return new URL(answer.headers.get('location')!);
    };

    const exchange = (code: string) => api.post('/api/v1/auth/oidc/exchange', { json: { code } });

    /** Signs `subject` in through the browser flow and trades the code: the login answer. */
    const signedIn = async (subject: string, provider = 'corp'): Promise<SessionJson> => {
      const landed = await browserSignIn(subject, provider);
      expect(`${landed.origin}${landed.pathname}`).to.equal(FRONT);
      expect(landed.searchParams.get('error'), landed.href).to.equal(null);
      return dataOf<SessionJson>(await exchange(landed.searchParams.get('code')!));
    };

    const verifyEmailOf = async (userId: string): Promise<void> => {
      const users = service!.container.get(UserTokens.Repository);
      const user = (await users.findById(userId))!;
      await users.update(user.withVerifiedEmail(new Date()));
    };

    const identitiesOf = async (token: string): Promise<IdentityJson[]> =>
      dataOf<IdentityJson[]>(await api.get('/api/v1/profile/identities', { token }));

    it('signs a new person in through the whole flow: an account without a password, a session signed in by fed, the identity linked', async () => {
      const { subject, email } = person();
      corp.accounts.set(subject, { email, email_verified: true, given_name: 'Ada', family_name: 'Lovelace' });
      const started = await start('corp');
      expect(started.status).to.equal(302);
      const authorization = new URL(started.headers.get('location')!);
      expect(`${authorization.origin}${authorization.pathname}`).to.equal(`${corp.issuer}/auth`);
      expect(authorization.searchParams.get('code_challenge_method')).to.equal('S256');
      expect(authorization.searchParams.get('redirect_uri')).to.equal(`${PUBLIC}/api/v1/auth/oidc/corp/callback`);
      for (const name of ['state', 'nonce', 'code_challenge'])
        expect(authorization.searchParams.get(name)).to.be.a('string');

      const landed = await callback(await signInAtProvider(corp, authorization.href, subject));
      expect(landed.status).to.equal(302);
      const front = new URL(landed.headers.get('location')!);
      expect(`${front.origin}${front.pathname}`).to.equal(FRONT);
      expect([...front.searchParams.keys()]).to.deep.equal(['code']);

      const session = dataOf<SessionJson & { user: UserJson }>(await exchange(front.searchParams.get('code')!));
      expect(session.user).to.deep.include({
        email,
        first_name: 'Ada',
        last_name: 'Lovelace',
        role: 'user',
        email_verified: true,
      });
      expect(decodeJwt(session.access_token).payload.amr).to.deep.equal(['fed']);
      const sessions = dataOf<{ current: boolean }[]>(
        await api.get('/api/v1/auth/sessions', { token: session.access_token }),
      );
      expect(sessions).to.have.length(1);
      expect(sessions[0]!.current).to.equal(true);
      const identities = await identitiesOf(session.access_token);
      expect(identities.map(({ issuer, subject: sub, email: address }) => ({ issuer, sub, address }))).to.deep.equal([
        { issuer: corp.issuer, sub: subject, address: email },
      ]);

      // No password signs the account in, whatever is typed, and none can be changed without one.
      expectError(
        await api.post('/api/v1/auth/login', { json: { email, password: 'any password at all' } }),
        401,
        'UNAUTHORIZED',
        'invalid credentials',
      );
      expectValidation(
        await api.put('/api/v1/profile', {
          token: session.access_token,
          json: { password: 'a new password', current_password: 'anything' },
        }),
        [
          {
            field: 'current_password',
            message:
              'cannot be checked: the account has no password; set one with a password reset (POST /api/v1/auth/password/forgot)',
          },
        ],
      );
    });

    it('signs the same identity into the same account the second time', async () => {
      const { subject, email } = person();
      corp.accounts.set(subject, { email, email_verified: true });
      const first = await signedIn(subject);
      const second = await signedIn(subject);
      expect(second.user.id).to.equal(first.user.id);
      // The names the provider did not give: the address's local part.
      expect(first.user.first_name).to.equal(email.split('@')[0]);
      expect(await identitiesOf(second.access_token)).to.have.length(1);
    });

    it('links a verified address to the verified account that has it, and a user with TOTP gets mfa_required from the exchange', async () => {
      const account = await register(api);
      await verifyEmailOf(account.user.id);
      const { secret } = dataOf<{ secret: string }>(
        await api.post('/api/v1/profile/mfa/totp', {
          token: account.access_token,
          json: { current_password: account.password },
        }),
      );
      const now = Math.floor(Date.now() / 1000);
      const code = execFileSync('oathtool', ['--totp', '-b', '-N', `@${now}`, secret], { encoding: 'utf8' }).trim();
      dataOf(await api.post('/api/v1/profile/mfa/totp/confirm', { token: account.access_token, json: { code } }));

      const { subject } = person();
      corp.accounts.set(subject, { email: account.user.email, email_verified: true });
      const landed = await browserSignIn(subject);
      const answer = dataOf<MfaRequiredJson>(await exchange(landed.searchParams.get('code')!));
      expect(answer.mfa_required).to.equal(true);
      expect(answer.methods).to.deep.equal(['totp', 'recovery_code']);
      expect(answer).to.not.have.property('access_token');
      expect((await identitiesOf(account.access_token)).map((identity) => identity.subject)).to.deep.equal([subject]);
    });

    it('never links an unverified address, on either side: the browser is sent back with error=CONFLICT, a native client gets 409', async () => {
      // The provider does not vouch for the address of a verified account.
      const verified = await register(api);
      await verifyEmailOf(verified.user.id);
      const lax = person();
      corp.accounts.set(lax.subject, { email: verified.user.email, email_verified: false });
      const landed = await browserSignIn(lax.subject);
      expect(`${landed.origin}${landed.pathname}`).to.equal(FRONT);
      expect([...landed.searchParams]).to.deep.equal([['error', 'CONFLICT']]);
      expectError(
        await api.post('/api/v1/auth/oidc/corp/token', {
          json: { id_token: await idTokenFor(corp, PORTICO, lax.subject, 'n-1'), nonce: 'n-1' },
        }),
        409,
        'CONFLICT',
        'an account with this e-mail address exists, and it is linked only when the provider and the account both have it verified',
      );
      // The provider vouches, but the account never proved the address.
      const unverified = await register(api);
      const strict = person();
      corp.accounts.set(strict.subject, { email: unverified.user.email, email_verified: true });
      expect([...(await browserSignIn(strict.subject)).searchParams]).to.deep.equal([['error', 'CONFLICT']]);
      expect(await identitiesOf(verified.access_token)).to.deep.equal([]);
      expect(await identitiesOf(unverified.access_token)).to.deep.equal([]);
    });

    it('makes an account whose address is unverified when the provider does not vouch for it', async () => {
      const { subject, email } = person();
      corp.accounts.set(subject, { email, email_verified: false });
      const session = await signedIn(subject);
      expect(session.user.email_verified).to.equal(false);
    });

    it('refuses a replayed, unknown or missing state with 400 INVALID_TOKEN, without asking the provider for tokens', async () => {
      const { subject, email } = person();
      corp.accounts.set(subject, { email, email_verified: true });
      const back = await atProvider(subject);
      expect((await callback(back)).status).to.equal(302);
      const asked = corp.requests.filter((request) => request === 'POST /token').length;

      expectError(await callback(back), 400, 'INVALID_TOKEN', 'invalid or expired token');
      const unknown = new URL(back.href);
      unknown.searchParams.set('state', `${'A'.repeat(22)}.${'A'.repeat(43)}`);
      expectError(await callback(unknown), 400, 'INVALID_TOKEN', 'invalid or expired token');
      const garbage = new URL(back.href);
      garbage.searchParams.set('state', 'not-a-state');
      expectError(await callback(garbage), 400, 'INVALID_TOKEN', 'invalid or expired token');
      garbage.searchParams.delete('state');
      expectError(await callback(garbage), 400, 'INVALID_TOKEN', 'invalid or expired token');
      // A state made for one provider does not finish at another.
      const next = await atProvider(subject);
      expectError(
        await callback(new URL(`${next.pathname.replace('/corp/', '/other/')}${next.search}`, PUBLIC)),
        400,
        'INVALID_TOKEN',
        'invalid or expired token',
      );
      expect(corp.requests.filter((request) => request === 'POST /token').length).to.equal(asked);
    });

    it('sends the browser back with error=UNAUTHORIZED when the provider refuses', async () => {
      const { subject, email } = person();
      corp.accounts.set(subject, { email, email_verified: true });
      const back = await atProvider(subject);
      const refused = new URL(back.href);
      refused.searchParams.delete('code');
      refused.searchParams.set('error', 'access_denied');
      const answer = await callback(refused);
      expect(answer.status).to.equal(302);
      expect([...new URL(answer.headers.get('location')!).searchParams]).to.deep.equal([['error', 'UNAUTHORIZED']]);
    });

    it('trades a one-time code once: again, or malformed, is 400 INVALID_TOKEN', async () => {
      const { subject, email } = person();
      corp.accounts.set(subject, { email, email_verified: true });
      const code = (await browserSignIn(subject)).searchParams.get('code')!;
      dataOf(await exchange(code));
      expectError(await exchange(code), 400, 'INVALID_TOKEN', 'invalid or expired token');
      expectError(await exchange('not-a-code'), 400, 'INVALID_TOKEN', 'invalid or expired token');
      expectValidation(await api.post('/api/v1/auth/oidc/exchange', { json: {} }), [
        { field: 'code', message: 'is required' },
      ]);
    });

    it('refuses a redirect_uri not allowed (400) and an unknown provider (404)', async () => {
      expectValidation(await start('corp', 'https://evil.example/steal'), [
        { field: 'redirect_uri', message: 'is not one of the allowed redirect URIs' },
      ]);
      expectValidation(await api.get('/api/v1/auth/oidc/corp/start', { manualRedirect: true }), [
        { field: 'redirect_uri', message: 'is required' },
      ]);
      expectError(await start('nobody'), 404, 'NOT_FOUND', 'Identity provider not found', { detail: 'id: nobody' });
      expectError(
        await api.get('/api/v1/auth/oidc/nobody/callback?state=x', { manualRedirect: true }),
        404,
        'NOT_FOUND',
        'Identity provider not found',
        { detail: 'id: nobody' },
      );
      expectError(
        await api.post('/api/v1/auth/oidc/nobody/token', { json: { id_token: 'x.y.z' } }),
        404,
        'NOT_FOUND',
        'Identity provider not found',
        { detail: 'id: nobody' },
      );
    });

    describe('the ID-token route of native clients', () => {
      const native = (idToken: string, nonce?: string, provider = 'corp') =>
        api.post(`/api/v1/auth/oidc/${provider}/token`, {
          json: { id_token: idToken, ...(nonce === undefined ? {} : { nonce }) },
        });
      const refused = (answer: ApiResponse) => expectError(answer, 401, 'UNAUTHORIZED', 'the ID token was refused');

      /** An ID token signed with `key` (the provider's own, or not), claims as the provider would write them unless overridden. */
      const crafted = async (subject: string, overrides: Record<string, unknown>, key = corp.keys[0]!) => {
        const now = Math.floor(Date.now() / 1000);
        return new SignJWT({ email: `${subject}@example.com`, email_verified: true, ...overrides })
          .setProtectedHeader({ alg: 'RS256', kid: key.kid })
          .setIssuer(typeof overrides.iss === 'string' ? overrides.iss : corp.issuer)
          .setAudience('portico')
          .setSubject(subject)
          .setIssuedAt(now - 60)
          .setExpirationTime(typeof overrides.exp === 'number' ? overrides.exp : now + 600)
          .sign(await importJWK(key, 'RS256'));
      };

      it('signs in with an ID token the provider issued for this service, its nonce checked when given', async () => {
        const { subject, email } = person();
        corp.accounts.set(subject, { email, email_verified: true });
        const idToken = await idTokenFor(corp, PORTICO, subject, 'nonce-a');
        const session = dataOf<SessionJson>(await native(idToken, 'nonce-a'));
        expect(session.user.email).to.equal(email);
        expect(decodeJwt(session.access_token).payload.amr).to.deep.equal(['fed']);
        // The same identity, through the browser: the same account.
        expect((await signedIn(subject)).user.id).to.equal(session.user.id);
        refused(await native(idToken, 'nonce-b'));
        // Without a nonce, the token is checked for everything else.
        expect(dataOf<SessionJson>(await native(idToken)).user.id).to.equal(session.user.id);
      });

      it('refuses a token for another audience, from another issuer, expired, or signed by another key', async () => {
        const { subject, email } = person();
        corp.accounts.set(subject, { email, email_verified: true });
        other.accounts.set(subject, { email, email_verified: true });
        refused(await native(await idTokenFor(corp, OTHER_APP, subject, 'n')));
        refused(await native(await idTokenFor(other, PORTICO, subject, 'n')));
        refused(await native(await crafted(subject, { exp: Math.floor(Date.now() / 1000) - 120 })));
        refused(await native(await crafted(subject, {}, await newSigningKey(corp.keys[0]!.kid))));
        refused(await native(await crafted(subject, { iss: other.issuer })));
        refused(await native('not.a.token'));
        // Not signed by a published key: unsigned (`alg: none`), or an HMAC under the client secret.
        const claimsOf = (token: string) => token.split('.')[1]!;
        const good = await crafted(subject, {});
        const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
        refused(await native(`${none}.${claimsOf(good)}.`));
        const hmac = await new SignJWT(decodeJwt(good).payload)
          .setProtectedHeader({ alg: 'HS256' })
          .sign(new TextEncoder().encode(PORTICO.client_secret));
        refused(await native(hmac));
        // The same claims, signed by the provider's own key, are taken: what failed above was each one check.
        expect(dataOf<SessionJson>(await native(await crafted(subject, {}))).user.email).to.equal(email);
      });
    });

    describe('linked identities', () => {
      it('lists them, unlinks one (204), and never the last way in (409); another user’s or none is 404', async () => {
        const { subject, email } = person();
        corp.accounts.set(subject, { email, email_verified: true });
        other.accounts.set(subject, { email, email_verified: true });
        const session = await signedIn(subject);
        expect((await signedIn(subject, 'other')).user.id).to.equal(session.user.id);
        const identities = await identitiesOf(session.access_token);
        expect(identities.map((identity) => identity.issuer)).to.deep.equal([corp.issuer, other.issuer]);

        const stranger = await register(api);
        expectError(
          await api.delete(`/api/v1/profile/identities/${identities[0]!.id}`, { token: stranger.access_token }),
          404,
          'NOT_FOUND',
          'Identity not found',
          { detail: `id: ${identities[0]!.id}` },
        );
        expect(
          (await api.delete(`/api/v1/profile/identities/${identities[0]!.id}`, { token: session.access_token })).status,
        ).to.equal(204);
        expect((await identitiesOf(session.access_token)).map((identity) => identity.id)).to.deep.equal([
          identities[1]!.id,
        ]);
        expectError(
          await api.delete(`/api/v1/profile/identities/${identities[1]!.id}`, { token: session.access_token }),
          409,
          'CONFLICT',
          'this identity is the only way to sign in to the account: set a password (a password reset) or add another way first',
        );
        expect(await identitiesOf(session.access_token)).to.have.length(1);
      });

      it('lets an account with a password unlink its only identity', async () => {
        const account: Account = await register(api);
        await verifyEmailOf(account.user.id);
        const { subject } = person();
        corp.accounts.set(subject, { email: account.user.email, email_verified: true });
        await signedIn(subject);
        const [identity] = await identitiesOf(account.access_token);
        expect(
          (await api.delete(`/api/v1/profile/identities/${identity!.id}`, { token: account.access_token })).status,
        ).to.equal(204);
        expect(await identitiesOf(account.access_token)).to.deep.equal([]);
      });
    });
  });
}
