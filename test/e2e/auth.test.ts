import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import {
  Api,
  dataOf,
  expectError,
  expectUnauthorized,
  expectValidation,
  login,
  newRegistration,
  refresh,
  register,
  uniqueEmail,
  type SessionJson,
  type TokensJson,
  type UserJson,
} from '../support/api.js';
import { testConfig } from '../support/config.js';
import { silentLogger } from '../support/logger.js';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const USER_KEYS = ['id', 'email', 'first_name', 'last_name', 'role', 'email_verified', 'created_at', 'updated_at'];

function expectSessionShape(data: SessionJson): void {
  expect(Object.keys(data).sort()).to.deep.equal(['access_token', 'expires_in', 'refresh_token', 'token_type', 'user']);
  expect(data.token_type).to.equal('Bearer');
  expect(data.expires_in).to.equal(86400);
  expect(data.access_token)
    .to.be.a('string')
    .and.match(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  expect(data.refresh_token)
    .to.be.a('string')
    .and.match(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  expect(data.access_token).not.to.equal(data.refresh_token);
  expectUserShape(data.user);
}

function expectUserShape(user: UserJson): void {
  expect(Object.keys(user).sort()).to.deep.equal([...USER_KEYS].sort());
  expect(user.id).to.match(UUID);
  expect(user.created_at).to.match(RFC3339);
  expect(user.updated_at).to.match(RFC3339);
}

describe('authentication (end to end)', function () {
  this.timeout(30_000);
  let service: RunningService;
  let api: Api;

  before(async () => {
    // trust_proxy so that throttling tests can speak for several client addresses.
    service = await startService(
      testConfig({ SVC_AUTH_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false', SVC_SERVER_TRUST_PROXY: 'true' }),
      {
        logger: silentLogger(),
      },
    );
    api = new Api(service.url);
  });
  after(async () => service.stop());

  describe('POST /api/v1/auth/register', () => {
    it('answers 201 with the user, a token pair, token_type Bearer and expires_in 86400', async () => {
      const input = newRegistration({ first_name: 'Grace', last_name: 'Hopper' });
      const data = dataOf<SessionJson>(await api.post('/api/v1/auth/register', { json: input }), 201);
      expectSessionShape(data);
      expect(data.user).to.include({ email: input.email, first_name: 'Grace', last_name: 'Hopper', role: 'user' });
      expect(data.user.created_at).to.equal(data.user.updated_at);
      expect(Math.abs(Date.parse(data.user.created_at) - Date.now())).to.be.lessThan(60_000);
    });

    it('never shows the password or its hash', async () => {
      const input = newRegistration({ password: 'a-very-visible-password' });
      const response = await api.post('/api/v1/auth/register', { json: input });
      expect(response.status).to.equal(201);
      expect(response.text).not.to.include('a-very-visible-password');
      expect(response.text).not.to.match(/password|hash|\$2[aby]\$/i);
    });

    it('trims and lower-cases the e-mail and trims the names before storing them', async () => {
      const email = uniqueEmail('Mixed.Case');
      const data = dataOf<SessionJson>(
        await api.post('/api/v1/auth/register', {
          json: {
            email: `  ${email.toUpperCase()}  `,
            password: 'long enough pw',
            first_name: '  Ada  ',
            last_name: '\tLovelace\n',
          },
        }),
        201,
      );
      expect(data.user).to.include({ email: email.toLowerCase(), first_name: 'Ada', last_name: 'Lovelace' });
      const profile = dataOf<UserJson>(await api.get('/api/v1/profile', { token: data.access_token }));
      expect(profile).to.include({ email: email.toLowerCase(), first_name: 'Ada', last_name: 'Lovelace' });
    });

    it('ignores a role in the body: the new user is a plain user, and so is the token', async () => {
      const data = dataOf<SessionJson>(
        await api.post('/api/v1/auth/register', { json: { ...newRegistration(), role: 'admin' } }),
        201,
      );
      expect(data.user.role).to.equal('user');
      const forbidden = await api.get('/api/v1/admin/users', { token: data.access_token });
      expectError(forbidden, 403, 'FORBIDDEN', 'forbidden');
    });

    it('ignores unknown fields', async () => {
      const data = dataOf<SessionJson>(
        await api.post('/api/v1/auth/register', { json: { ...newRegistration(), nickname: 'x', id: 'mine' } }),
        201,
      );
      expect(data.user.id).to.match(UUID);
      expect(data.user).not.to.have.property('nickname');
    });

    it('answers 409 CONFLICT "email already registered" for a taken e-mail, whatever its case', async () => {
      const first = await register(api);
      expectError(
        await api.post('/api/v1/auth/register', { json: newRegistration({ email: first.user.email }) }),
        409,
        'CONFLICT',
        'email already registered',
      );
      expectError(
        await api.post('/api/v1/auth/register', {
          json: newRegistration({ email: ` ${first.user.email.toUpperCase()} ` }),
        }),
        409,
        'CONFLICT',
        'email already registered',
      );
    });

    it('lists every failing field at once, by its JSON name', async () => {
      const response = await api.post('/api/v1/auth/register', {
        json: { email: 'not-an-email', password: 'short', first_name: '', last_name: 'x'.repeat(101) },
      });
      expectValidation(response, [
        { field: 'email', message: 'must be a valid e-mail address' },
        { field: 'password', message: 'must be 8 to 72 bytes' },
        { field: 'first_name', message: 'must be 1 to 100 characters' },
        { field: 'last_name', message: 'must be 1 to 100 characters' },
      ]);
    });

    it('says "is required" for every missing field', async () => {
      expectValidation(await api.post('/api/v1/auth/register', { json: {} }), [
        { field: 'email', message: 'is required' },
        { field: 'password', message: 'is required' },
        { field: 'first_name', message: 'is required' },
        { field: 'last_name', message: 'is required' },
      ]);
      expectValidation(
        await api.post('/api/v1/auth/register', { json: { email: uniqueEmail(), password: 'long enough pw' } }),
        [
          { field: 'first_name', message: 'is required' },
          { field: 'last_name', message: 'is required' },
        ],
      );
    });

    it('refuses wrong types and null', async () => {
      expectValidation(
        await api.post('/api/v1/auth/register', {
          json: { email: 42, password: 12345678, first_name: null, last_name: ['x'] },
        }),
        [
          { field: 'email', message: 'must be a valid e-mail address' },
          { field: 'password', message: 'must be 8 to 72 bytes' },
          { field: 'first_name', message: 'must be 1 to 100 characters' },
          { field: 'last_name', message: 'must be 1 to 100 characters' },
        ],
      );
    });

    it('measures names after trimming, in characters: blank is empty, 100 characters pass, 101 do not', async () => {
      expectValidation(
        await api.post('/api/v1/auth/register', {
          json: newRegistration({ first_name: '   ', last_name: 'y'.repeat(101) }),
        }),
        [
          { field: 'first_name', message: 'must be 1 to 100 characters' },
          { field: 'last_name', message: 'must be 1 to 100 characters' },
        ],
      );
      const data = dataOf<SessionJson>(
        await api.post('/api/v1/auth/register', {
          json: newRegistration({ first_name: ` ${'é'.repeat(100)} `, last_name: '😀'.repeat(100) }),
        }),
        201,
      );
      expect(data.user.first_name).to.equal('é'.repeat(100));
      expect(data.user.last_name).to.equal('😀'.repeat(100));
    });

    it('accepts a 72-byte password and refuses a 73-byte one (never silently cut)', async () => {
      const exactly72 = 'p'.repeat(72);
      const account = dataOf<SessionJson>(
        await api.post('/api/v1/auth/register', { json: newRegistration({ password: exactly72 }) }),
        201,
      );
      expectValidation(
        await api.post('/api/v1/auth/register', { json: newRegistration({ password: 'p'.repeat(73) }) }),
        [{ field: 'password', message: 'must be 8 to 72 bytes' }],
      );
      // The whole 72 bytes count: a password differing only in its last byte is wrong.
      await login(api, account.user.email, exactly72);
      expectError(
        await api.post('/api/v1/auth/login', { json: { email: account.user.email, password: `${'p'.repeat(71)}q` } }),
        401,
        'UNAUTHORIZED',
        'invalid credentials',
      );
    });

    it('measures the password in UTF-8 bytes, not characters', async () => {
      // 37 × "é" is 37 characters but 74 bytes; 36 × "é" is exactly 72 bytes.
      expectValidation(
        await api.post('/api/v1/auth/register', { json: newRegistration({ password: 'é'.repeat(37) }) }),
        [{ field: 'password', message: 'must be 8 to 72 bytes' }],
      );
      const long = dataOf<SessionJson>(
        await api.post('/api/v1/auth/register', { json: newRegistration({ password: 'é'.repeat(36) }) }),
        201,
      );
      await login(api, long.user.email, 'é'.repeat(36));
      // 4 × "é" is 4 characters but 8 bytes: long enough; 3 × "é" (6 bytes) is not.
      dataOf<SessionJson>(
        await api.post('/api/v1/auth/register', { json: newRegistration({ password: 'éééé' }) }),
        201,
      );
      expectValidation(await api.post('/api/v1/auth/register', { json: newRegistration({ password: 'ééé' }) }), [
        { field: 'password', message: 'must be 8 to 72 bytes' },
      ]);
    });

    it('trims the password like every text field, so 7 characters padded with spaces are too short', async () => {
      expectValidation(
        await api.post('/api/v1/auth/register', { json: newRegistration({ password: '  1234567  ' }) }),
        [{ field: 'password', message: 'must be 8 to 72 bytes' }],
      );
      const account = await register(api, { password: '  12345678  ' });
      await login(api, account.user.email, '12345678');
    });

    it('answers an array body with 400 VALIDATION_ERROR on the body', async () => {
      expectValidation(
        await api.post('/api/v1/auth/register', {
          raw: JSON.stringify([newRegistration()]),
          headers: { 'Content-Type': 'application/json' },
        }),
        [{ field: 'body', message: 'must be a JSON object' }],
      );
    });

    it('answers a JSON body that is valid JSON but not an object (42, "text", null, true) with 400 VALIDATION_ERROR on the body', async () => {
      for (const raw of ['42', '"text"', 'null', 'true']) {
        expectError(
          await api.post('/api/v1/auth/register', { raw, headers: { 'Content-Type': 'application/json' } }),
          400,
          'VALIDATION_ERROR',
          'validation failed',
          {
            fields: [{ field: 'body', message: 'must be a JSON object' }],
          },
        );
      }
    });

    it('answers any text field holding a NUL character with 400 VALIDATION_ERROR, never a 500', async () => {
      const registration = { ...newRegistration(), first_name: 'a\u0000b' };
      expectError(
        await api.post('/api/v1/auth/register', { json: registration }),
        400,
        'VALIDATION_ERROR',
        'validation failed',
        {
          fields: [{ field: 'first_name', message: 'must not contain NUL characters' }],
        },
      );
      expectError(
        await api.post('/api/v1/auth/login', { json: { email: 'a\u0000@example.com', password: 'password1' } }),
        400,
        'VALIDATION_ERROR',
        'validation failed',
        { fields: [{ field: 'email', message: 'must not contain NUL characters' }] },
      );
    });

    it('refuses lone surrogates in every text field with 400 VALIDATION_ERROR naming each field (never rewritten to U+FFFD)', async () => {
      const lone = 'must not contain unpaired surrogates';
      // JSON.stringify writes a lone surrogate as the escape `\ud800`, as any client can.
      const registration = {
        email: `a\ud800${uniqueEmail()}`,
        password: 'password\udc00',
        first_name: 'p\ud800q',
        last_name: '\udfffx',
      };
      expectValidation(await api.post('/api/v1/auth/register', { json: registration }), [
        { field: 'email', message: lone },
        { field: 'password', message: lone },
        { field: 'first_name', message: lone },
        { field: 'last_name', message: lone },
      ]);
      // Two e-mails that differ only in their lone surrogate would otherwise be stored as one.
      const email = uniqueEmail();
      const [local, domain] = email.split('@');
      expectValidation(
        await api.post('/api/v1/auth/register', { json: newRegistration({ email: `${local}\ud800@${domain}` }) }),
        [{ field: 'email', message: lone }],
      );
      expectValidation(
        await api.post('/api/v1/auth/login', {
          json: { email: `${local}\udbff@${domain}`, password: 'pass\ud800word' },
        }),
        [
          { field: 'email', message: lone },
          { field: 'password', message: lone },
        ],
      );
      // A well-formed pair is text like any other.
      const emoji = dataOf<SessionJson>(
        await api.post('/api/v1/auth/register', { json: newRegistration({ first_name: '\ud83d\ude00 Joy' }) }),
        201,
      );
      expect(emoji.user.first_name).to.equal('😀 Joy');
    });

    it('refuses invisible characters (zero-width, bidi controls, BOM) in the e-mail and the names', async () => {
      const invisible = 'must not contain invisible characters';
      for (const char of [
        '\u200b',
        '\u200c',
        '\u200d',
        '\u2060',
        '\ufeff',
        '\u200e',
        '\u200f',
        '\u202e',
        '\u2066',
        '\u2069',
        '\u00ad',
      ]) {
        const email = uniqueEmail();
        const registration = {
          ...newRegistration(),
          email: `${email.slice(0, 3)}${char}${email.slice(3)}`,
          first_name: `Eve${char}`,
          last_name: `${char}Smith`,
        };
        expectValidation(await api.post('/api/v1/auth/register', { json: registration }), [
          { field: 'email', message: invisible },
          { field: 'first_name', message: invisible },
          { field: 'last_name', message: invisible },
        ]);
      }
      // Looked for before trimming: a leading byte-order mark is refused, not trimmed away.
      expectValidation(
        await api.post('/api/v1/auth/register', { json: newRegistration({ email: `\ufeff${uniqueEmail()}` }) }),
        [{ field: 'email', message: invisible }],
      );
      expectValidation(
        await api.post('/api/v1/auth/login', { json: { email: `\u200b${uniqueEmail()}`, password: 'password1' } }),
        [{ field: 'email', message: invisible }],
      );
    });

    it('NFKC-normalizes the e-mail before it is validated, stored and compared', async () => {
      const email = uniqueEmail('nfkc');
      // Full-width letters and digits: NFKC makes them ASCII.
      const fullWidth = [...email.toUpperCase()]
        .map((c) => (c >= '!' && c <= '~' ? String.fromCodePoint(c.codePointAt(0)! + 0xfee0) : c))
        .join('');
      expect(fullWidth).not.to.equal(email);
      const account = dataOf<SessionJson>(
        await api.post('/api/v1/auth/register', { json: newRegistration({ email: fullWidth, password: 'password1' }) }),
        201,
      );
      expect(account.user.email).to.equal(email);
      expect((await login(api, email, 'password1')).user.id).to.equal(account.user.id);
      expect((await login(api, fullWidth, 'password1')).user.id).to.equal(account.user.id);
      expectError(
        await api.post('/api/v1/auth/register', { json: newRegistration({ email }) }),
        409,
        'CONFLICT',
        'email already registered',
      );
      // The ligature "ﬁ" (U+FB01) is "fi" once normalized.
      const ligature = uniqueEmail('fine');
      const stored = dataOf<SessionJson>(
        await api.post('/api/v1/auth/register', { json: newRegistration({ email: ligature.replace('fi', '\ufb01') }) }),
        201,
      );
      expect(stored.user.email).to.equal(ligature);
    });

    it('answers a body that is not JSON with 400 BAD_REQUEST "invalid request body"', async () => {
      for (const raw of ['{bad', '{"email": "a@b.c",}', "{'email': 'x'}"]) {
        expectError(
          await api.post('/api/v1/auth/register', { raw, headers: { 'Content-Type': 'application/json' } }),
          400,
          'BAD_REQUEST',
          'invalid request body',
        );
      }
    });

    it('answers a body with a non-JSON content type with 415, even when it holds JSON', async () => {
      const json = JSON.stringify(newRegistration());
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
        expectError(
          await api.post('/api/v1/auth/register', { raw: json, headers: { 'Content-Type': type } }),
          415,
          'UNSUPPORTED_MEDIA_TYPE',
          'request body must be application/json',
        );
      }
    });

    it('accepts application/json with a charset', async () => {
      const response = await api.post('/api/v1/auth/register', {
        raw: JSON.stringify(newRegistration()),
        headers: { 'Content-Type': 'application/json; charset=utf-8' },
      });
      expect(response.status, response.text).to.equal(201);
    });
  });

  describe('POST /api/v1/auth/login', () => {
    it('answers 200 with the same data shape as register, for the same user', async () => {
      const account = await register(api);
      const data = await login(api, account.user.email, account.password);
      expectSessionShape(data);
      expect(data.user).to.deep.equal(account.user);
      expect(data.access_token).not.to.equal(account.access_token);
      expect(data.refresh_token).not.to.equal(account.refresh_token);
      const profile = dataOf<UserJson>(await api.get('/api/v1/profile', { token: data.access_token }));
      expect(profile.id).to.equal(account.user.id);
    });

    it('compares the e-mail case-insensitively and trimmed', async () => {
      const account = await register(api);
      const data = await login(api, `  ${account.user.email.toUpperCase()} `, account.password);
      expect(data.user.id).to.equal(account.user.id);
    });

    it('answers an unknown e-mail and a wrong password with identical 401 "invalid credentials" bodies', async () => {
      const account = await register(api);
      const wrongPassword = await api.post('/api/v1/auth/login', {
        json: { email: account.user.email, password: 'not the password' },
      });
      const unknownEmail = await api.post('/api/v1/auth/login', {
        json: { email: uniqueEmail('nobody'), password: 'not the password' },
      });
      expectError(wrongPassword, 401, 'UNAUTHORIZED', 'invalid credentials');
      expectError(unknownEmail, 401, 'UNAUTHORIZED', 'invalid credentials');
      expect(wrongPassword.text).to.equal(unknownEmail.text);
    });

    it('validates the body: e-mail shape and a present password', async () => {
      expectValidation(await api.post('/api/v1/auth/login', { json: {} }), [
        { field: 'email', message: 'is required' },
        { field: 'password', message: 'is required' },
      ]);
      expectValidation(await api.post('/api/v1/auth/login', { json: { email: 'nope', password: '' } }), [
        { field: 'email', message: 'must be a valid e-mail address' },
        { field: 'password', message: 'must be 1 to 72 bytes' },
      ]);
    });

    describe('throttling of failed logins (per e-mail and client IP)', () => {
      const fail = (email: string, ip: string) =>
        api.post('/api/v1/auth/login', {
          json: { email, password: 'wrong password' },
          headers: { 'X-Forwarded-For': ip },
        });

      it('after 5 failures answers 429 RATE_LIMITED with Retry-After, even for the right password', async () => {
        const account = await register(api);
        const ip = '203.0.113.10';
        for (let i = 0; i < 5; i += 1)
          expectError(await fail(account.user.email, ip), 401, 'UNAUTHORIZED', 'invalid credentials');
        const blocked = await api.post('/api/v1/auth/login', {
          json: { email: account.user.email, password: account.password },
          headers: { 'X-Forwarded-For': ip },
        });
        expectError(blocked, 429, 'RATE_LIMITED', 'too many failed logins');
        const retryAfter = Number(blocked.headers.get('retry-after'));
        expect(Number.isInteger(retryAfter), `Retry-After: ${blocked.headers.get('retry-after')}`).to.equal(true);
        expect(retryAfter).to.be.within(1, 15 * 60);
        // The same e-mail in another case is the same account, so it is blocked too.
        expectError(
          await api.post('/api/v1/auth/login', {
            json: { email: account.user.email.toUpperCase(), password: account.password },
            headers: { 'X-Forwarded-For': ip },
          }),
          429,
          'RATE_LIMITED',
          'too many failed logins',
        );
      });

      it('lets another client IP log in to the blocked account, and the blocked IP log in to another account', async () => {
        const account = await register(api);
        const other = await register(api);
        const ip = '203.0.113.20';
        for (let i = 0; i < 5; i += 1) await fail(account.user.email, ip);
        expect(
          (
            await api.post('/api/v1/auth/login', {
              json: { email: account.user.email, password: account.password },
              headers: { 'X-Forwarded-For': ip },
            })
          ).status,
        ).to.equal(429);
        const elsewhere = await login(api, account.user.email, account.password, { 'X-Forwarded-For': '198.51.100.7' });
        expect(elsewhere.user.id).to.equal(account.user.id);
        const sameIpOtherAccount = await login(api, other.user.email, other.password, { 'X-Forwarded-For': ip });
        expect(sameIpOtherAccount.user.id).to.equal(other.user.id);
      });

      it('takes the X-Forwarded-For entry the proxy appended: a client inventing entries of its own is still throttled', async () => {
        const account = await register(api);
        // The proxy appends the address it saw, so what arrives is `<client-written>, <client>`.
        const spoofed = (i: number) => ({ 'X-Forwarded-For': `198.51.100.${i + 1}, ${randomUUID()}, 203.0.113.50` });
        for (let i = 0; i < 5; i += 1) {
          const response = await api.post('/api/v1/auth/login', {
            json: { email: account.user.email, password: 'wrong password' },
            headers: spoofed(i),
          });
          expectError(response, 401, 'UNAUTHORIZED', 'invalid credentials');
        }
        const blocked = await api.post('/api/v1/auth/login', {
          json: { email: account.user.email, password: account.password },
          headers: spoofed(99),
        });
        expectError(blocked, 429, 'RATE_LIMITED', 'too many failed logins');
      });

      it('counts failures for unknown e-mails too', async () => {
        const email = uniqueEmail('ghost');
        const ip = '203.0.113.30';
        for (let i = 0; i < 5; i += 1) expectError(await fail(email, ip), 401, 'UNAUTHORIZED', 'invalid credentials');
        expectError(await fail(email, ip), 429, 'RATE_LIMITED', 'too many failed logins');
      });

      it('resets the count after a successful login', async () => {
        const account = await register(api);
        const ip = '203.0.113.40';
        const headers = { 'X-Forwarded-For': ip };
        for (let i = 0; i < 4; i += 1)
          expectError(await fail(account.user.email, ip), 401, 'UNAUTHORIZED', 'invalid credentials');
        await login(api, account.user.email, account.password, headers);
        // Without the reset, 4 + 4 failures would have blocked the pair long ago.
        for (let i = 0; i < 4; i += 1)
          expectError(await fail(account.user.email, ip), 401, 'UNAUTHORIZED', 'invalid credentials');
        await login(api, account.user.email, account.password, headers);
      });
    });
  });

  describe('with server.trust_proxy_hops 2 (two proxies in front)', () => {
    let proxied: RunningService;
    before(async () => {
      proxied = await startService(
        testConfig({
          SVC_AUTH_BCRYPT_COST: '4',
          SVC_RATE_LIMIT_ENABLED: 'false',
          SVC_SERVER_TRUST_PROXY: 'true',
          SVC_SERVER_TRUST_PROXY_HOPS: '2',
        }),
        { logger: silentLogger() },
      );
    });
    after(async () => proxied.stop());

    it('throttles the client the outer proxy saw (second entry from the right), whatever comes before or after it', async () => {
      const proxiedApi = new Api(proxied.url);
      const account = await register(proxiedApi);
      // `<client-written>, <client>, <outer proxy>`: the inner proxy may be any of several.
      const hops = (i: number) => ({ 'X-Forwarded-For': `${randomUUID()}, 203.0.113.60, 10.0.0.${i + 1}` });
      for (let i = 0; i < 5; i += 1) {
        const response = await proxiedApi.post('/api/v1/auth/login', {
          json: { email: account.user.email, password: 'wrong password' },
          headers: hops(i),
        });
        expectError(response, 401, 'UNAUTHORIZED', 'invalid credentials');
      }
      expectError(
        await proxiedApi.post('/api/v1/auth/login', {
          json: { email: account.user.email, password: account.password },
          headers: hops(9),
        }),
        429,
        'RATE_LIMITED',
        'too many failed logins',
      );
      const otherClient = await login(proxiedApi, account.user.email, account.password, {
        'X-Forwarded-For': '203.0.113.60, 203.0.113.61, 10.0.0.1',
      });
      expect(otherClient.user.id).to.equal(account.user.id);
    });
  });

  describe('without server.trust_proxy', () => {
    let direct: RunningService;
    before(async () => {
      direct = await startService(testConfig({ SVC_AUTH_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false' }), {
        logger: silentLogger(),
      });
    });
    after(async () => direct.stop());

    it('ignores X-Forwarded-For, so a client cannot dodge the login throttle by inventing addresses', async () => {
      const directApi = new Api(direct.url);
      const account = await register(directApi);
      for (let i = 0; i < 5; i += 1) {
        const response = await directApi.post('/api/v1/auth/login', {
          json: { email: account.user.email, password: 'wrong password' },
          headers: { 'X-Forwarded-For': `198.51.100.${i + 1}` },
        });
        expectError(response, 401, 'UNAUTHORIZED', 'invalid credentials');
      }
      const blocked = await directApi.post('/api/v1/auth/login', {
        json: { email: account.user.email, password: account.password },
        headers: { 'X-Forwarded-For': '198.51.100.99' },
      });
      expectError(blocked, 429, 'RATE_LIMITED', 'too many failed logins');
      expect(blocked.headers.get('retry-after')).to.match(/^\d+$/);
    });
  });

  describe('POST /api/v1/auth/refresh', () => {
    it('answers 200 with a new pair: access_token, refresh_token, token_type, expires_in (no user)', async () => {
      const account = await register(api);
      const data = dataOf<TokensJson>(
        await api.post('/api/v1/auth/refresh', { json: { refresh_token: account.refresh_token } }),
      );
      expect(Object.keys(data).sort()).to.deep.equal(['access_token', 'expires_in', 'refresh_token', 'token_type']);
      expect(data.token_type).to.equal('Bearer');
      expect(data.expires_in).to.equal(86400);
      expect(data.refresh_token).not.to.equal(account.refresh_token);
      expect(data.access_token).not.to.equal(account.access_token);
      const profile = dataOf<UserJson>(await api.get('/api/v1/profile', { token: data.access_token }));
      expect(profile.id).to.equal(account.user.id);
    });

    it('spends the refresh token: a second use is 401 and revokes every token descended from the same login', async () => {
      const account = await register(api);
      const first = await refresh(api, account.refresh_token);
      const second = await refresh(api, first.refresh_token);
      expectUnauthorizedBody(
        await api.post('/api/v1/auth/refresh', { json: { refresh_token: account.refresh_token } }),
        'refresh token already used',
      );
      // The tokens issued after the reused one are revoked with their family.
      expectUnauthorizedBody(
        await api.post('/api/v1/auth/refresh', { json: { refresh_token: second.refresh_token } }),
        'invalid token',
      );
      expectUnauthorizedBody(
        await api.post('/api/v1/auth/refresh', { json: { refresh_token: first.refresh_token } }),
        'invalid token',
      );
    });

    it('revokes the token issued by the first refresh when the original is replayed', async () => {
      const account = await register(api);
      const first = await refresh(api, account.refresh_token);
      expect(
        (await api.post('/api/v1/auth/refresh', { json: { refresh_token: account.refresh_token } })).status,
      ).to.equal(401);
      expectUnauthorizedBody(
        await api.post('/api/v1/auth/refresh', { json: { refresh_token: first.refresh_token } }),
        'invalid token',
      );
    });

    it('does not touch the sessions of other logins of the same user', async () => {
      const account = await register(api);
      const otherLogin = await login(api, account.user.email, account.password);
      await refresh(api, account.refresh_token);
      expect(
        (await api.post('/api/v1/auth/refresh', { json: { refresh_token: account.refresh_token } })).status,
      ).to.equal(401);
      const fresh = await refresh(api, otherLogin.refresh_token);
      expect(fresh.token_type).to.equal('Bearer');
    });

    it('keeps access tokens already issued working across refreshes (the session goes on)', async () => {
      const account = await register(api);
      const first = await refresh(api, account.refresh_token);
      await refresh(api, first.refresh_token);
      expect((await api.get('/api/v1/profile', { token: first.access_token })).status).to.equal(200);
      expect((await api.get('/api/v1/profile', { token: account.access_token })).status).to.equal(200);
    });

    it('ends the whole session on reuse: its access tokens are refused too (docs/authentication.md: a replayed token has leaked)', async () => {
      const account = await register(api);
      const first = await refresh(api, account.refresh_token);
      expect(
        (await api.post('/api/v1/auth/refresh', { json: { refresh_token: account.refresh_token } })).status,
      ).to.equal(401);
      expect((await api.get('/api/v1/profile', { token: first.access_token })).status).to.equal(401);
      expect((await api.get('/api/v1/profile', { token: account.access_token })).status).to.equal(401);
    });

    it('refuses an access token posted as a refresh token', async () => {
      const account = await register(api);
      expectUnauthorizedBody(
        await api.post('/api/v1/auth/refresh', { json: { refresh_token: account.access_token } }),
        'invalid token',
      );
    });

    it('refuses a refresh token used as a bearer access token', async () => {
      const account = await register(api);
      expectUnauthorized(await api.get('/api/v1/profile', { token: account.refresh_token }));
      // The refresh token was not spent by that attempt.
      await refresh(api, account.refresh_token);
    });

    it('refuses garbage and validates the body', async () => {
      expectUnauthorizedBody(
        await api.post('/api/v1/auth/refresh', { json: { refresh_token: 'not.a.token' } }),
        'invalid token',
      );
      expectValidation(await api.post('/api/v1/auth/refresh', { json: {} }), [
        { field: 'refresh_token', message: 'is required' },
      ]);
      expectValidation(await api.post('/api/v1/auth/refresh', { json: { refresh_token: '  ' } }), [
        { field: 'refresh_token', message: 'must be a non-empty string' },
      ]);
    });
  });

  describe('POST /api/v1/auth/logout', () => {
    it('answers 204 with no body; that refresh token and its family stop working', async () => {
      const account = await register(api);
      const next = await refresh(api, account.refresh_token);
      const response = await api.post('/api/v1/auth/logout', {
        token: account.access_token,
        json: { refresh_token: next.refresh_token },
      });
      expect(response.status).to.equal(204);
      expect(response.text).to.equal('');
      expectUnauthorizedBody(
        await api.post('/api/v1/auth/refresh', { json: { refresh_token: next.refresh_token } }),
        'invalid token',
      );
    });

    it('ends the family of the token given even when an earlier token of it is presented', async () => {
      const account = await register(api);
      const next = await refresh(api, account.refresh_token);
      // Logging out with the (already spent) first token still ends the session it started.
      expect(
        (
          await api.post('/api/v1/auth/logout', {
            token: account.access_token,
            json: { refresh_token: account.refresh_token },
          })
        ).status,
      ).to.equal(204);
      expect((await api.post('/api/v1/auth/refresh', { json: { refresh_token: next.refresh_token } })).status).to.equal(
        401,
      );
    });

    it('leaves the user’s other sessions alone', async () => {
      const account = await register(api);
      const other = await login(api, account.user.email, account.password);
      expect(
        (
          await api.post('/api/v1/auth/logout', {
            token: account.access_token,
            json: { refresh_token: account.refresh_token },
          })
        ).status,
      ).to.equal(204);
      expect(
        (await api.post('/api/v1/auth/refresh', { json: { refresh_token: account.refresh_token } })).status,
      ).to.equal(401);
      await refresh(api, other.refresh_token);
    });

    it('answers 401 without a bearer token, and does not end the session', async () => {
      const account = await register(api);
      expectUnauthorized(
        await api.post('/api/v1/auth/logout', { json: { refresh_token: account.refresh_token } }),
        'missing bearer token',
      );
      await refresh(api, account.refresh_token);
    });

    it('refuses to end another user’s session', async () => {
      const alice = await register(api);
      const bob = await register(api);
      expectUnauthorizedBody(
        await api.post('/api/v1/auth/logout', {
          token: alice.access_token,
          json: { refresh_token: bob.refresh_token },
        }),
        'invalid token',
      );
      await refresh(api, bob.refresh_token);
    });

    it('validates the body after authentication', async () => {
      const account = await register(api);
      expectValidation(await api.post('/api/v1/auth/logout', { token: account.access_token, json: {} }), [
        { field: 'refresh_token', message: 'is required' },
      ]);
    });
  });
});

/** 401 UNAUTHORIZED with this message (refresh and logout bodies; no header assertion). */
function expectUnauthorizedBody(response: Awaited<ReturnType<Api['post']>>, message: string): void {
  expectError(response, 401, 'UNAUTHORIZED', message);
}
