import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { TOKENS } from '../../src/main/wiring/tokens.js';
import {
  Api,
  dataOf,
  decodeJwt,
  expectError,
  expectValidation,
  register,
  setRole,
  type Account,
  type SessionJson,
} from '../support/api.js';
import { launchChromium, requireChromium } from '../support/browser.js';
import { testConfig } from '../support/config.js';
import { externalService, pooledPostgres } from '../support/env.js';
import { silentLogger } from '../support/logger.js';

/**
 * The page the ceremonies run in: it turns the service's options (WebAuthn JSON) into what
 * `navigator.credentials` takes, and the credential it answers back into WebAuthn JSON — what
 * `@simplewebauthn/browser` does, written out. `tweak` changes the options first (a test asking
 * the authenticator not to verify its user).
 */
const PAGE = `<!doctype html><html><head><title>passkeys</title><script>
const enc = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
const dec = (text) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
const failed = (error) => ({ error: error.name + ': ' + error.message });
window.createPasskey = async (options, userVerification) => {
  const publicKey = {
    ...options,
    challenge: dec(options.challenge),
    user: { ...options.user, id: dec(options.user.id) },
    excludeCredentials: (options.excludeCredentials || []).map((c) => ({ ...c, id: dec(c.id) })),
  };
  if (userVerification) publicKey.authenticatorSelection = { ...publicKey.authenticatorSelection, userVerification };
  try {
    const credential = await navigator.credentials.create({ publicKey });
    const response = credential.response;
    return {
      id: credential.id,
      rawId: enc(credential.rawId),
      type: credential.type,
      response: {
        clientDataJSON: enc(response.clientDataJSON),
        attestationObject: enc(response.attestationObject),
        transports: response.getTransports(),
      },
      clientExtensionResults: credential.getClientExtensionResults(),
      authenticatorAttachment: credential.authenticatorAttachment,
    };
  } catch (error) {
    return failed(error);
  }
};
window.getPasskey = async (options, userVerification) => {
  const publicKey = {
    ...options,
    challenge: dec(options.challenge),
    allowCredentials: (options.allowCredentials || []).map((c) => ({ ...c, id: dec(c.id) })),
  };
  if (userVerification) publicKey.userVerification = userVerification;
  try {
    const credential = await navigator.credentials.get({ publicKey });
    const response = credential.response;
    return {
      id: credential.id,
      rawId: enc(credential.rawId),
      type: credential.type,
      response: {
        clientDataJSON: enc(response.clientDataJSON),
        authenticatorData: enc(response.authenticatorData),
        signature: enc(response.signature),
        userHandle: response.userHandle ? enc(response.userHandle) : null,
      },
      clientExtensionResults: credential.getClientExtensionResults(),
      authenticatorAttachment: credential.authenticatorAttachment,
    };
  } catch (error) {
    return failed(error);
  }
};
</script></head><body>passkeys</body></html>`;

/** A credential as the page answers it (WebAuthn JSON), or why the browser refused. */
type CredentialJson = { id: string; response: Record<string, unknown> } & Record<string, unknown>;
type Ceremony = CredentialJson | { error: string };

/** Serves PAGE at `http://localhost:<port>/`: an origin of its own for the ceremonies (RP id `localhost`). */
async function servePage(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, resolve));
  return { server, origin: `http://localhost:${(server.address() as AddressInfo).port}` };
}

/** The signature counter an assertion's authenticator data carries (bytes 33–36, big-endian). */
const counterOf = (assertion: CredentialJson): number =>
  Buffer.from(assertion.response.authenticatorData as string, 'base64url').readUInt32BE(33);

interface PasskeyJson {
  id: string;
  name: string;
  device_type: string;
  backed_up: boolean;
  created_at: string;
  last_used_at: string | null;
}

interface MfaRequiredJson {
  mfa_required: true;
  mfa_token: string;
  methods: string[];
}

const POSTGRES = externalService('SVC_TEST_POSTGRES_URL');

const ENGINES: { name: string; settings(scratch: string): Record<string, string> | undefined }[] = [
  { name: 'SQLite', settings: (scratch) => ({ SVC_DATABASE_URL: `sqlite:${join(scratch, 'portico.sqlite')}` }) },
  {
    name: 'PostgreSQL',
    settings: () =>
      POSTGRES === undefined
        ? undefined
        : {
            SVC_DATABASE_URL: POSTGRES,
            ...(pooledPostgres(POSTGRES)
              ? {
                  SVC_DATABASE_PREPARED_STATEMENTS: 'false',
                  SVC_DATABASE_MIGRATION_URL: pooledPostgres(POSTGRES)!.migrationUrl,
                }
              : {}),
          },
  },
];

for (const engine of ENGINES) {
  describe(`passkeys: ${engine.name} (end to end, Chromium's virtual authenticator)`, function () {
    this.timeout(120_000);
    const scratch = mkdtempSync(join(tmpdir(), 'portico-passkeys-'));
    let service: RunningService | undefined;
    let api: Api;
    let browser: Browser | undefined;
    let page: Page;
    let cdp: CDPSession;
    let authenticatorId: string | undefined;
    /** The origin in auth.webauthn.origins, and one that is not. */
    let allowed: { server: Server; origin: string };
    let other: { server: Server; origin: string };

    before(async function () {
      const settings = engine.settings(scratch);
      if (!settings) return this.skip();
      requireChromium(this);
      allowed = await servePage();
      other = await servePage();
      service = await startService(
        testConfig({
          ...settings,
          SVC_AUTH_BCRYPT_COST: '4',
          SVC_RATE_LIMIT_ENABLED: 'false',
          SVC_AUTH_MFA_REQUIRED_ROLES: 'admin',
          SVC_AUTH_WEBAUTHN_ORIGINS: allowed.origin,
        }),
        { logger: silentLogger() },
      );
      api = new Api(service.url);
      browser = await launchChromium();
      page = await browser.newPage();
      cdp = await page.context().newCDPSession(page);
      await cdp.send('WebAuthn.enable', { enableUI: false });
    });
    after(async () => {
      await browser?.close();
      await service?.stop();
      await Promise.all(
        [allowed, other].map((served) => served && new Promise((resolve) => served.server.close(resolve))),
      );
      rmSync(scratch, { recursive: true, force: true });
    });

    /** Each test: a new authenticator, and the page at the allowed origin. */
    beforeEach(async function () {
      if (!service) return this.skip();
      await freshAuthenticator();
      await page.goto(`${allowed.origin}/`);
    });

    /** A new, empty authenticator (the one before removed); one that cannot verify its user when told. */
    async function freshAuthenticator(hasUserVerification = true): Promise<void> {
      if (authenticatorId !== undefined) await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
      ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: {
          protocol: 'ctap2',
          transport: 'internal',
          hasResidentKey: true,
          hasUserVerification,
          isUserVerified: hasUserVerification,
          automaticPresenceSimulation: true,
        },
      }));
    }

    const userVerified = (isUserVerified: boolean) =>
      cdp.send('WebAuthn.setUserVerified', { authenticatorId: authenticatorId!, isUserVerified });

    const row = async <T>(sql: string, params: string[]): Promise<T | undefined> =>
      service!.container.get(TOKENS.Database).sql.one<T>(sql, params);

    /** Registration in the browser: the options for `account`, and what the authenticator made of them. */
    async function create(account: Account, userVerification?: string): Promise<Ceremony> {
      const options = dataOf<Record<string, unknown>>(
        await api.post('/api/v1/profile/passkeys/options', { token: account.access_token }),
      );
      return page.evaluate(
        ([o, uv]) =>
          (globalThis as unknown as { createPasskey(o: unknown, uv?: string): Promise<Ceremony> }).createPasskey(o, uv),
        [options, userVerification] as const,
      );
    }

    const made = (ceremony: Ceremony): CredentialJson => {
      expect(ceremony, `the browser answered: ${JSON.stringify(ceremony)}`).to.not.have.property('error');
      return ceremony as CredentialJson;
    };

    const store = (account: Account, credential: CredentialJson, name?: string) =>
      api.post('/api/v1/profile/passkeys', {
        token: account.access_token,
        json: name === undefined ? credential : { ...credential, name },
      });

    async function registered(account: Account, name?: string): Promise<PasskeyJson> {
      return dataOf<PasskeyJson>(await store(account, made(await create(account)), name), 201);
    }

    /** A sign-in in the browser: new options, and the assertion the authenticator made. */
    async function assert(userVerification?: string): Promise<Ceremony> {
      const options = dataOf<Record<string, unknown>>(await api.post('/api/v1/auth/passkey/options'));
      return page.evaluate(
        ([o, uv]) =>
          (globalThis as unknown as { getPasskey(o: unknown, uv?: string): Promise<Ceremony> }).getPasskey(o, uv),
        [options, userVerification] as const,
      );
    }

    const signIn = (assertion: CredentialJson) => api.post('/api/v1/auth/passkey', { json: assertion });

    it('registers a passkey (201, never its key) and signs in with it: tokens with amr hwk, a session, the counter kept', async () => {
      const account = await register(api);
      const passkey = await registered(account, 'Work laptop');
      expect(Object.keys(passkey).sort()).to.deep.equal([
        'backed_up',
        'created_at',
        'device_type',
        'id',
        'last_used_at',
        'name',
      ]);
      expect(passkey).to.include({ name: 'Work laptop', last_used_at: null, device_type: 'singleDevice' });
      const user = await row<{ has_passkey: boolean | number }>('select has_passkey from users where id = ?', [
        account.user.id,
      ]);
      expect(Boolean(user?.has_passkey), 'users.has_passkey').to.equal(true);

      const options = dataOf<Record<string, unknown>>(await api.post('/api/v1/auth/passkey/options'));
      expect(options.rpId).to.equal('localhost');
      expect(options.userVerification).to.equal('required');
      expect(options.allowCredentials ?? [], 'discoverable: no credentials named').to.deep.equal([]);

      const assertion = made(await assert());
      const session = dataOf<SessionJson>(await signIn(assertion));
      expect(session.user.id).to.equal(account.user.id);
      const claims = decodeJwt(session.access_token).payload;
      expect(claims.amr, 'a passkey with user verification (RFC 8176)').to.deep.equal(['hwk']);
      expect(decodeJwt(session.refresh_token).payload.amr).to.deep.equal(['hwk']);
      const sessions = dataOf<{ id: string; current: boolean }[]>(
        await api.get('/api/v1/auth/sessions', { token: session.access_token }),
      );
      expect(sessions.find((s) => s.id === claims.sid)?.current, 'the session is listed').to.equal(true);

      const stored = await row<{ counter: number | string; public_key: string }>(
        'select counter, public_key from passkeys where id = ?',
        [passkey.id],
      );
      expect(Number(stored?.counter)).to.equal(counterOf(assertion)).and.to.be.greaterThan(0);
      const [listed] = dataOf<PasskeyJson[]>(
        await api.get('/api/v1/profile/passkeys', { token: session.access_token }),
      );
      expect(listed?.last_used_at, 'its last use').to.be.a('string');
      expect(JSON.stringify(listed)).to.not.include(stored!.public_key);
    });

    it('holds a password sign-in of a user with a passkey (methods: passkey) until a passkey signs in', async () => {
      const account = await register(api);
      await registered(account);
      const held = dataOf<MfaRequiredJson>(
        await api.post('/api/v1/auth/login', { json: { email: account.user.email, password: account.password } }),
      );
      expect(held.mfa_required).to.equal(true);
      expect(held.methods).to.deep.equal(['passkey']);
      expectError(
        await api.post('/api/v1/auth/mfa', { json: { mfa_token: held.mfa_token, code: '123456' } }),
        401,
        'UNAUTHORIZED',
        'invalid code',
      );
      const session = dataOf<SessionJson>(await signIn(made(await assert())));
      expect(session.user.id).to.equal(account.user.id);
    });

    it('refuses a passkey without user verification: the browser when it is asked for, the service otherwise', async () => {
      const account = await register(api);
      await userVerified(false);
      // Asked for it at registration and the authenticator cannot: the browser refuses.
      expect(await create(account))
        .to.have.property('error')
        .that.matches(/^NotAllowedError/);
      // Made without it (by an authenticator that cannot verify its user): refused.
      await freshAuthenticator(false);
      expectValidation(await store(account, made(await create(account, 'discouraged'))), [
        { field: 'response', message: 'was made without user verification' },
      ]);
      await freshAuthenticator();
      await registered(account);
      await userVerified(false);
      expect(await assert())
        .to.have.property('error')
        .that.matches(/^NotAllowedError/);
      expectError(await signIn(made(await assert('discouraged'))), 401, 'UNAUTHORIZED', 'user verification required');
    });

    it('spends each challenge once: a replayed registration or assertion is 400 INVALID_TOKEN', async () => {
      const account = await register(api);
      const credential = made(await create(account));
      dataOf(await store(account, credential), 201);
      expectError(await store(account, credential), 400, 'INVALID_TOKEN', 'invalid or expired token');
      const assertion = made(await assert());
      dataOf(await signIn(assertion));
      expectError(await signIn(assertion), 400, 'INVALID_TOKEN', 'invalid or expired token');
      // Both at once: one signs in, the other finds its challenge spent.
      const raced = made(await assert());
      const answers = await Promise.all([signIn(raced), signIn(raced)]);
      expect(answers.map((answer) => answer.status).sort()).to.deep.equal([200, 400]);
      // A registration challenge made for one user registers nothing for another.
      const stranger = await register(api);
      await freshAuthenticator();
      expectError(await store(stranger, made(await create(account))), 400, 'INVALID_TOKEN', 'invalid or expired token');
    });

    it('refuses ceremonies run at an origin not in auth.webauthn.origins', async () => {
      const account = await register(api);
      await page.goto(`${other.origin}/`);
      expectValidation(await store(account, made(await create(account))), [
        {
          field: 'response',
          message: 'is not a credential made for this service (origin, RP id or attestation)',
        },
      ]);
      await freshAuthenticator();
      await page.goto(`${allowed.origin}/`);
      await registered(account);
      await page.goto(`${other.origin}/`);
      expectError(await signIn(made(await assert())), 401, 'UNAUTHORIZED', 'invalid passkey');
      await page.goto(`${allowed.origin}/`);
      dataOf(await signIn(made(await assert())));
    });

    it('refuses an assertion whose signature counter does not move forward (a cloned authenticator)', async () => {
      const account = await register(api);
      const passkey = await registered(account);
      dataOf(await signIn(made(await assert())));
      await service!.container
        .get(TOKENS.Database)
        .sql.run('update passkeys set counter = ? where id = ?', [1000, passkey.id]);
      expectError(await signIn(made(await assert())), 401, 'UNAUTHORIZED', 'signature counter did not advance');
    });

    it('lists and removes the caller’s passkeys (404 for another’s), users.has_passkey following', async () => {
      const account = await register(api);
      const first = await registered(account, 'Phone');
      // The same authenticator is excluded from registering again.
      expect(await create(account))
        .to.have.property('error')
        .that.matches(/^InvalidStateError/);
      await freshAuthenticator();
      const second = await registered(account);
      expect(second.name).to.equal('Passkey 2');
      const list = dataOf<PasskeyJson[]>(await api.get('/api/v1/profile/passkeys', { token: account.access_token }));
      expect(list.map((p) => p.id)).to.deep.equal([first.id, second.id]);

      const stranger = await register(api);
      expectError(
        await api.delete(`/api/v1/profile/passkeys/${first.id}`, { token: stranger.access_token }),
        404,
        'NOT_FOUND',
        `Passkey not found`,
        { detail: `id: ${first.id}` },
      );
      expect((await api.delete('/api/v1/profile/passkeys/not-an-id', { token: account.access_token })).status).to.equal(
        404,
      );
      const hasPasskey = async () =>
        Boolean(
          (
            await row<{ has_passkey: boolean | number }>('select has_passkey from users where id = ?', [
              account.user.id,
            ])
          )?.has_passkey,
        );
      expect(
        (await api.delete(`/api/v1/profile/passkeys/${first.id}`, { token: account.access_token })).status,
      ).to.equal(204);
      expect(await hasPasskey()).to.equal(true);
      expect(
        (await api.delete(`/api/v1/profile/passkeys/${second.id}`, { token: account.access_token })).status,
      ).to.equal(204);
      expect(await hasPasskey()).to.equal(false);
      expect(dataOf(await api.get('/api/v1/profile/passkeys', { token: account.access_token }))).to.deep.equal([]);
      // The removed passkey signs in no more.
      expectError(await signIn(made(await assert())), 401, 'UNAUTHORIZED', 'invalid passkey');
    });

    it('lets an admin without a second factor reach only enrolment, until it registers a passkey', async () => {
      const registeredAccount = await register(api);
      await setRole(service!, registeredAccount.user.id, 'admin');
      const admin: Account = {
        ...dataOf<SessionJson>(
          await api.post('/api/v1/auth/login', {
            json: { email: registeredAccount.user.email, password: registeredAccount.password },
          }),
        ),
        password: registeredAccount.password,
      };
      expectError(
        await api.get('/api/v1/admin/users', { token: admin.access_token }),
        403,
        'MFA_ENROLLMENT_REQUIRED',
        'a second factor must be enrolled first',
      );
      expectError(
        await api.get('/api/v1/profile', { token: admin.access_token }),
        403,
        'MFA_ENROLLMENT_REQUIRED',
        'a second factor must be enrolled first',
      );
      expect(dataOf(await api.get('/api/v1/profile/passkeys', { token: admin.access_token }))).to.deep.equal([]);
      await registered(admin);
      dataOf(await api.get('/api/v1/admin/users', { token: admin.access_token }));
      dataOf(await api.get('/api/v1/profile', { token: admin.access_token }));
    });

    it('answers malformed bodies with 400 VALIDATION_ERROR, and unreadable client data with INVALID_TOKEN', async () => {
      const account = await register(api);
      expectValidation(await api.post('/api/v1/auth/passkey', { json: {} }), [
        { field: 'id', message: 'is required' },
        { field: 'type', message: 'is required' },
        { field: 'response', message: 'is required' },
      ]);
      expectValidation(
        await api.post('/api/v1/auth/passkey', {
          json: { id: 'not base64url!', type: 'password', response: { clientDataJSON: 'AAAA' } },
        }),
        [
          { field: 'id', message: 'must be a base64url credential id of 1 to 1400 characters' },
          { field: 'type', message: 'must be "public-key"' },
          { field: 'response', message: 'must have authenticatorData as base64url text' },
        ],
      );
      expectValidation(
        await store(account, { id: 'abc', type: 'public-key', response: [] } as unknown as CredentialJson, ''),
        [
          {
            field: 'response',
            message: 'must be an object with clientDataJSON, attestationObject as base64url text',
          },
          { field: 'name', message: 'must be 1 to 100 characters' },
        ],
      );
      expectError(
        await api.post('/api/v1/auth/passkey', {
          json: {
            id: 'abc',
            type: 'public-key',
            response: { clientDataJSON: 'AAAA', authenticatorData: 'AAAA', signature: 'AAAA' },
          },
        }),
        400,
        'INVALID_TOKEN',
        'invalid or expired token',
      );
    });
  });
}
