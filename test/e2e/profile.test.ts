import { expect } from 'chai';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import {
  Api,
  dataOf,
  expectError,
  expectUnauthorized,
  expectValidation,
  login,
  register,
  uniqueEmail,
  type Account,
  type UserJson,
} from '../support/api.js';
import { testConfig } from '../support/config.js';
import { silentLogger } from '../support/logger.js';

describe('profile (end to end)', function () {
  this.timeout(30_000);
  let service: RunningService;
  let api: Api;

  before(async () => {
    service = await startService(testConfig({ SVC_AUTH_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false' }), {
      logger: silentLogger(),
    });
    api = new Api(service.url);
  });
  after(async () => service.stop());

  const update = (account: Account, json: unknown) => api.put('/api/v1/profile', { token: account.access_token, json });

  describe('GET /api/v1/profile', () => {
    it('answers 200 with the caller’s own user, exactly the public fields', async () => {
      const account = await register(api, { first_name: 'Katherine', last_name: 'Johnson' });
      const response = await api.get('/api/v1/profile', { token: account.access_token });
      expect(dataOf<UserJson>(response)).to.deep.equal(account.user);
      expect(response.text).not.to.match(/password|hash/i);
    });

    it('answers 401 without a token', async () => {
      expectUnauthorized(await api.get('/api/v1/profile'), 'missing bearer token');
    });
  });

  describe('PUT /api/v1/profile', () => {
    it('updates only the fields present: first_name alone keeps the others', async () => {
      const account = await register(api, { first_name: 'Dorothy', last_name: 'Vaughan' });
      await new Promise((r) => setTimeout(r, 5));
      const updated = dataOf<UserJson>(await update(account, { first_name: '  Dot  ' }));
      expect(updated).to.deep.equal({ ...account.user, first_name: 'Dot', updated_at: updated.updated_at });
      expect(Date.parse(updated.updated_at)).to.be.greaterThan(Date.parse(account.user.updated_at));
      expect(updated.created_at).to.equal(account.user.created_at);
      expect(dataOf<UserJson>(await api.get('/api/v1/profile', { token: account.access_token }))).to.deep.equal(
        updated,
      );
    });

    it('updates last_name alone', async () => {
      const account = await register(api, { first_name: 'Mary', last_name: 'Jackson' });
      const updated = dataOf<UserJson>(await update(account, { last_name: 'Winston-Jackson' }));
      expect(updated).to.include({ first_name: 'Mary', last_name: 'Winston-Jackson', email: account.user.email });
    });

    it('changes the e-mail, trimmed and lower-cased; the new one logs in, the old one no longer does', async () => {
      const account = await register(api);
      const fresh = uniqueEmail('Renamed');
      const updated = dataOf<UserJson>(
        await update(account, { current_password: account.password, email: `  ${fresh.toUpperCase()} ` }),
      );
      expect(updated.email).to.equal(fresh.toLowerCase());
      expect((await login(api, fresh, account.password)).user.id).to.equal(account.user.id);
      expectError(
        await api.post('/api/v1/auth/login', { json: { email: account.user.email, password: account.password } }),
        401,
        'UNAUTHORIZED',
        'invalid credentials',
      );
    });

    it('NFKC-normalizes a new e-mail, and refuses one or names with invisible characters or lone surrogates, changing nothing', async () => {
      const taken = await register(api);
      const account = await register(api);
      // Full-width "＠" (U+FF20) is "@" once normalized: the other user's address, so a conflict.
      expectError(
        await update(account, { current_password: account.password, email: taken.user.email.replace('@', '\uff20') }),
        409,
        'CONFLICT',
        'email already registered',
      );
      expectValidation(
        await update(account, {
          current_password: account.password,
          email: `\u200b${uniqueEmail()}`,
          first_name: 'A\u202eB',
          last_name: 'x\ud800',
        }),
        [
          { field: 'first_name', message: 'must not contain invisible characters' },
          { field: 'last_name', message: 'must not contain unpaired surrogates' },
          { field: 'email', message: 'must not contain invisible characters' },
        ],
      );
      expect(dataOf<UserJson>(await api.get('/api/v1/profile', { token: account.access_token }))).to.deep.equal(
        account.user,
      );
      const fresh = uniqueEmail('width');
      const updated = dataOf<UserJson>(
        await update(account, {
          current_password: account.password,
          email: fresh.replace('@', '\uff20').replace('.com', '\uff0e\uff43\uff4f\uff4d'),
        }),
      );
      expect(updated.email).to.equal(fresh);
    });

    it('keeps the own e-mail in another case without a conflict', async () => {
      const account = await register(api);
      const updated = dataOf<UserJson>(
        await update(account, { current_password: account.password, email: account.user.email.toUpperCase() }),
      );
      expect(updated.email).to.equal(account.user.email);
    });

    it('answers 409 CONFLICT "email already registered" for another user’s e-mail (any case), changing nothing', async () => {
      const taken = await register(api);
      const account = await register(api);
      expectError(
        await update(account, { current_password: account.password, email: taken.user.email }),
        409,
        'CONFLICT',
        'email already registered',
      );
      expectError(
        await update(account, {
          current_password: account.password,
          email: taken.user.email.toUpperCase(),
          first_name: 'Changed',
        }),
        409,
        'CONFLICT',
        'email already registered',
      );
      expect(dataOf<UserJson>(await api.get('/api/v1/profile', { token: account.access_token }))).to.deep.equal(
        account.user,
      );
    });

    it('changes the password with the right current_password: the new one logs in, the old one fails', async () => {
      const account = await register(api, { password: 'old password 1' });
      const updated = dataOf<UserJson>(
        await update(account, { password: 'new password 2', current_password: 'old password 1' }),
      );
      expect(updated.id).to.equal(account.user.id);
      await login(api, account.user.email, 'new password 2');
      expectError(
        await api.post('/api/v1/auth/login', { json: { email: account.user.email, password: 'old password 1' } }),
        401,
        'UNAUTHORIZED',
        'invalid credentials',
      );
    });

    it('needs current_password for a new password: missing → 400 on current_password, nothing changed', async () => {
      const account = await register(api, { password: 'old password 1' });
      expectValidation(await update(account, { password: 'new password 2' }), [
        { field: 'current_password', message: 'is required to change the password' },
      ]);
      await login(api, account.user.email, 'old password 1');
    });

    it('refuses a wrong current_password with 400 on current_password, and changes nothing else in the request', async () => {
      const account = await register(api, { password: 'old password 1', first_name: 'Before' });
      expectValidation(
        await update(account, { password: 'new password 2', current_password: 'not my password', first_name: 'After' }),
        [{ field: 'current_password', message: 'is incorrect' }],
      );
      await login(api, account.user.email, 'old password 1');
      expectError(
        await api.post('/api/v1/auth/login', { json: { email: account.user.email, password: 'new password 2' } }),
        401,
        'UNAUTHORIZED',
        'invalid credentials',
      );
      expect(dataOf<UserJson>(await api.get('/api/v1/profile', { token: account.access_token })).first_name).to.equal(
        'Before',
      );
    });

    it('validates the new password like registration (8 to 72 bytes)', async () => {
      const account = await register(api, { password: 'old password 1' });
      expectValidation(await update(account, { password: 'short', current_password: 'old password 1' }), [
        { field: 'password', message: 'must be 8 to 72 bytes' },
      ]);
      expectValidation(await update(account, { password: 'x'.repeat(73), current_password: 'old password 1' }), [
        { field: 'password', message: 'must be 8 to 72 bytes' },
      ]);
    });

    it('never changes the role, whatever the body says', async () => {
      const account = await register(api);
      const updated = dataOf<UserJson>(await update(account, { role: 'admin', first_name: 'Sneaky' }));
      expect(updated).to.include({ role: 'user', first_name: 'Sneaky' });
      const onlyRole = dataOf<UserJson>(await update(account, { role: 'admin' }));
      expect(onlyRole.role).to.equal('user');
      const again = await login(api, account.user.email, account.password);
      expect(again.user.role).to.equal('user');
      expectError(await api.get('/api/v1/admin/users', { token: again.access_token }), 403, 'FORBIDDEN', 'forbidden');
    });

    it('lists every failing field at once', async () => {
      const account = await register(api);
      expectValidation(
        await update(account, {
          first_name: '',
          last_name: 'z'.repeat(101),
          email: 'nope',
          password: 'short',
          current_password: '',
        }),
        [
          { field: 'first_name', message: 'must be 1 to 100 characters' },
          { field: 'last_name', message: 'must be 1 to 100 characters' },
          { field: 'email', message: 'must be a valid e-mail address' },
          { field: 'password', message: 'must be 8 to 72 bytes' },
          { field: 'current_password', message: 'must be 1 to 72 bytes' },
        ],
      );
      expectValidation(await update(account, { first_name: null }), [
        { field: 'first_name', message: 'must be 1 to 100 characters' },
      ]);
    });

    it('answers a non-object body with 400 and non-JSON with 400 BAD_REQUEST', async () => {
      const account = await register(api);
      expectValidation(await update(account, ['first_name']), [{ field: 'body', message: 'must be a JSON object' }]);
      expectError(
        await api.put('/api/v1/profile', {
          token: account.access_token,
          raw: '{"first_name":',
          headers: { 'Content-Type': 'application/json' },
        }),
        400,
        'BAD_REQUEST',
        'invalid request body',
      );
    });

    it('answers 401 without a token, and 400 for a malformed body even without one', async () => {
      expectUnauthorized(await api.put('/api/v1/profile', { json: { first_name: 'X' } }), 'missing bearer token');
      expectError(
        await api.put('/api/v1/profile', { raw: '{nope', headers: { 'Content-Type': 'application/json' } }),
        400,
        'BAD_REQUEST',
        'invalid request body',
      );
    });

    it('answers another method on the path with 405 and Allow', async () => {
      const account = await register(api);
      const response = await api.send('PATCH', '/api/v1/profile', {
        token: account.access_token,
        json: { first_name: 'X' },
      });
      expectError(response, 405, 'METHOD_NOT_ALLOWED', 'method not allowed');
      const allow = (response.headers.get('allow') ?? '').split(',').map((m) => m.trim());
      expect(allow).to.include.members(['GET', 'PUT']);
      expect(allow).not.to.include('PATCH');
    });
  });
});
