import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
import { testConfig } from '../support/config.js';
import { externalService } from '../support/env.js';
import { silentLogger } from '../support/logger.js';

/** The TOTP code of `secret` at `epochSeconds`, computed by Debian's oathtool, not by the service's library. */
function oathtool(secret: string, epochSeconds: number): string {
  return execFileSync('oathtool', ['--totp', '-b', '-N', `@${epochSeconds}`, secret], { encoding: 'utf8' }).trim();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Now, once at least 12 seconds of the current 30-second step are left: the codes of the step
 * before, this one and the next then all stay within one step of the service's clock while a test
 * uses them.
 */
async function freshStep(): Promise<number> {
  const left = 30 - (Math.floor(Date.now() / 1000) % 30);
  if (left < 12) await sleep(left * 1000 + 200);
  return Math.floor(Date.now() / 1000);
}

interface MfaRequiredJson {
  mfa_required: true;
  mfa_token: string;
  methods: string[];
}

interface Engine {
  readonly name: string;
  settings(scratch: string): Record<string, string> | undefined;
  /** The bytes of the database, where the engine keeps them in a file. */
  file?(scratch: string): string;
}

const POSTGRES = externalService('SVC_TEST_POSTGRES_URL');

const ENGINES: Engine[] = [
  {
    name: 'SQLite',
    settings: (scratch) => ({ SVC_DATABASE_URL: `sqlite:${join(scratch, 'portico.sqlite')}` }),
    file: (scratch) => join(scratch, 'portico.sqlite'),
  },
  {
    name: 'PostgreSQL',
    settings: () => (POSTGRES === undefined ? undefined : { SVC_DATABASE_URL: POSTGRES }),
  },
];

for (const engine of ENGINES) {
  describe(`TOTP and the two-step login: ${engine.name} (end to end, codes from oathtool)`, function () {
    this.timeout(120_000);
    const scratch = mkdtempSync(join(tmpdir(), 'portico-totp-'));
    let service: RunningService | undefined;
    let api: Api;

    before(async function () {
      const settings = engine.settings(scratch);
      if (!settings) return this.skip();
      service = await startService(
        testConfig({
          ...settings,
          SVC_AUTH_BCRYPT_COST: '4',
          SVC_RATE_LIMIT_ENABLED: 'false',
          SVC_AUTH_MFA_REQUIRED_ROLES: 'admin',
        }),
        { logger: silentLogger() },
      );
      api = new Api(service.url);
    });
    after(async () => {
      await service?.stop();
      rmSync(scratch, { recursive: true, force: true });
    });

    const row = async <T>(sql: string, params: string[]): Promise<T | undefined> =>
      service!.container.get(TOKENS.Database).sql.one<T>(sql, params);

    const startTotp = async (account: Account): Promise<{ secret: string; otpauth_uri: string }> =>
      dataOf(
        await api.post('/api/v1/profile/mfa/totp', {
          token: account.access_token,
          json: { current_password: account.password },
        }),
      );

    const confirm = (account: Account, code: string) =>
      api.post('/api/v1/profile/mfa/totp/confirm', { token: account.access_token, json: { code } });

    /** A new account with TOTP on: its secret, its recovery codes, and the step its confirmation used. */
    const enrolled = async (): Promise<{ account: Account; secret: string; recoveryCodes: string[]; now: number }> => {
      const account = await register(api);
      const { secret } = await startTotp(account);
      const now = await freshStep();
      const { recovery_codes } = dataOf<{ recovery_codes: string[] }>(
        await confirm(account, oathtool(secret, now - 30)),
      );
      return { account, secret, recoveryCodes: recovery_codes, now };
    };

    const loginStep = async (account: Account): Promise<MfaRequiredJson> =>
      dataOf<MfaRequiredJson>(
        await api.post('/api/v1/auth/login', { json: { email: account.user.email, password: account.password } }),
      );

    const secondStep = (mfaToken: string, code: string) =>
      api.post('/api/v1/auth/mfa', { json: { mfa_token: mfaToken, code } });

    it('turns TOTP on only with the right password, and answers the secret with its otpauth URI', async () => {
      const account = await register(api);
      expectValidation(
        await api.post('/api/v1/profile/mfa/totp', {
          token: account.access_token,
          json: { current_password: 'not the password' },
        }),
        [{ field: 'current_password', message: 'is incorrect' }],
      );
      const { secret, otpauth_uri } = await startTotp(account);
      expect(secret).to.match(/^[A-Z2-7]{32}$/);
      const uri = new URL(otpauth_uri);
      expect(uri.protocol).to.equal('otpauth:');
      expect(uri.host).to.equal('totp');
      expect(uri.searchParams.get('secret')).to.equal(secret);
      // Started, not confirmed: a password still signs in alone.
      const session = dataOf<SessionJson>(
        await api.post('/api/v1/auth/login', { json: { email: account.user.email, password: account.password } }),
      );
      expect(session.access_token).to.be.a('string');
    });

    it('refuses to confirm with a wrong code, and confirms with oathtool’s: ten recovery codes, once', async () => {
      const account = await register(api);
      const { secret } = await startTotp(account);
      const now = await freshStep();
      const wrong = String((Number(oathtool(secret, now)) + 1) % 1_000_000).padStart(6, '0');
      expectValidation(await confirm(account, wrong), [{ field: 'code', message: 'is incorrect' }]);
      const { recovery_codes } = dataOf<{ recovery_codes: string[] }>(await confirm(account, oathtool(secret, now)));
      expect(recovery_codes).to.have.length(10);
      expect(new Set(recovery_codes).size).to.equal(10);
      expectError(
        await confirm(account, oathtool(secret, now + 30)),
        409,
        'CONFLICT',
        'no TOTP secret waits for confirmation',
      );
      expectError(
        await api.post('/api/v1/profile/mfa/totp', {
          token: account.access_token,
          json: { current_password: account.password },
        }),
        409,
        'CONFLICT',
        'TOTP is already on',
      );
    });

    it('keeps the secret and the recovery codes unreadable in the database', async () => {
      const { account, secret, recoveryCodes } = await enrolled();
      const stored = await row<Record<string, unknown>>('select * from totp_enrolments where user_id = ?', [
        account.user.id,
      ]);
      expect(stored, 'the enrolment row').to.not.equal(undefined);
      const text = JSON.stringify(stored);
      expect(text).to.not.include(secret);
      expect(text.toLowerCase()).to.not.include(secret.toLowerCase());
      const codes = JSON.stringify(
        await service!.container
          .get(TOKENS.Database)
          .sql.all('select * from recovery_codes where user_id = ?', [account.user.id]),
      );
      expect(codes.match(/"code_hash"/g)).to.have.length(10);
      for (const code of recoveryCodes) {
        expect(codes).to.not.include(code);
        expect(codes).to.not.include(code.replace(/-/g, ''));
      }
      if (engine.file) {
        const bytes = readFileSync(engine.file(scratch)).toString('latin1');
        expect(bytes).to.not.include(secret);
      }
    });

    it('gives a TOTP user no tokens for the password alone: mfa_required, then tokens for an oathtool code, once', async () => {
      const { account, secret, now } = await enrolled();
      const held = await loginStep(account);
      expect(held).to.deep.equal({
        mfa_required: true,
        mfa_token: held.mfa_token,
        methods: ['totp', 'recovery_code'],
      });
      expect(JSON.stringify(held)).to.not.match(/access_token|refresh_token/);

      // The confirmation's own code was spent by it.
      expectError(await secondStep(held.mfa_token, oathtool(secret, now - 30)), 401, 'UNAUTHORIZED', 'invalid code');
      const signedIn = dataOf<SessionJson>(await secondStep(held.mfa_token, oathtool(secret, now)));
      expect(signedIn.user.id).to.equal(account.user.id);
      expect(decodeJwt(signedIn.access_token).payload.amr).to.deep.equal(['pwd', 'otp']);
      dataOf(await api.get('/api/v1/profile', { token: signedIn.access_token }));
      const sessions = dataOf<{ id: string }[]>(
        await api.get('/api/v1/auth/sessions', { token: signedIn.access_token }),
      );
      expect(sessions.length).to.be.greaterThan(0);

      // The token is spent by its first success.
      expectError(
        await secondStep(held.mfa_token, oathtool(secret, now + 30)),
        400,
        'INVALID_TOKEN',
        'invalid or expired token',
      );
      // The same code in another sign-in: a replay, refused.
      const again = await loginStep(account);
      expectError(await secondStep(again.mfa_token, oathtool(secret, now)), 401, 'UNAUTHORIZED', 'invalid code');
      // A wrong code does not spend the token: the next step's code still works with it.
      const next = dataOf<SessionJson>(await secondStep(again.mfa_token, oathtool(secret, now + 30)));
      expect(decodeJwt(next.access_token).payload.amr).to.deep.equal(['pwd', 'otp']);
      // Refreshed pairs keep saying how the session was signed in.
      const refreshed = dataOf<{ access_token: string }>(
        await api.post('/api/v1/auth/refresh', { json: { refresh_token: next.refresh_token } }),
      );
      expect(decodeJwt(refreshed.access_token).payload.amr).to.deep.equal(['pwd', 'otp']);
    });

    it('takes each recovery code once, in any case and without its dashes', async () => {
      const { account, recoveryCodes } = await enrolled();
      const [first, second] = recoveryCodes as [string, string];
      const held = await loginStep(account);
      const signedIn = dataOf<SessionJson>(await secondStep(held.mfa_token, first));
      expect(decodeJwt(signedIn.access_token).payload.amr).to.deep.equal(['pwd', 'otp']);
      const again = await loginStep(account);
      expectError(await secondStep(again.mfa_token, first), 401, 'UNAUTHORIZED', 'invalid code');
      dataOf<SessionJson>(await secondStep(again.mfa_token, second.replace(/-/g, '').toUpperCase()));
    });

    it('refuses an mfa_token that is malformed or unknown (400 INVALID_TOKEN)', async () => {
      expectError(await secondStep('not-a-token', '123456'), 400, 'INVALID_TOKEN', 'invalid or expired token');
      const { account } = await enrolled();
      const held = await loginStep(account);
      const forged = `${held.mfa_token.slice(0, -1)}${held.mfa_token.endsWith('A') ? 'B' : 'A'}`;
      expectError(await secondStep(forged, '123456'), 400, 'INVALID_TOKEN', 'invalid or expired token');
    });

    it('counts wrong codes toward the login throttle: past it, 429 even for the right code and the password', async () => {
      const { account, secret } = await enrolled();
      const held = await loginStep(account);
      for (let i = 0; i < 5; i += 1) {
        expectError(await secondStep(held.mfa_token, `00000${i}`), 401, 'UNAUTHORIZED', 'invalid code');
      }
      const now = await freshStep();
      const blocked = await secondStep(held.mfa_token, oathtool(secret, now + 30));
      expectError(blocked, 429, 'RATE_LIMITED', 'too many failed attempts');
      expect(Number(blocked.headers.get('Retry-After'))).to.be.greaterThan(0);
      expectError(
        await api.post('/api/v1/auth/login', { json: { email: account.user.email, password: account.password } }),
        429,
        'RATE_LIMITED',
        'too many failed logins',
      );
    });

    it('turns TOTP off with the right password: the password signs in alone again', async () => {
      const { account } = await enrolled();
      expectValidation(
        await api.delete('/api/v1/profile/mfa/totp', {
          token: account.access_token,
          json: { current_password: 'not the password' },
        }),
        [{ field: 'current_password', message: 'is incorrect' }],
      );
      const off = await api.delete('/api/v1/profile/mfa/totp', {
        token: account.access_token,
        json: { current_password: account.password },
      });
      expect(off.status, off.text).to.equal(204);
      const session = dataOf<SessionJson>(
        await api.post('/api/v1/auth/login', { json: { email: account.user.email, password: account.password } }),
      );
      expect(decodeJwt(session.access_token).payload.amr).to.deep.equal(['pwd']);
      expect(await row('select user_id from totp_enrolments where user_id = ?', [account.user.id])).to.equal(undefined);
      expectError(
        await api.delete('/api/v1/profile/mfa/totp', {
          token: session.access_token,
          json: { current_password: account.password },
        }),
        409,
        'CONFLICT',
        'TOTP is not on',
      );
    });

    it('lets an admin without a second factor reach only enrolment, until it turns TOTP on', async () => {
      const registered = await register(api);
      await setRole(service!, registered.user.id, 'admin');
      const admin: Account = {
        ...dataOf<SessionJson>(
          await api.post('/api/v1/auth/login', {
            json: { email: registered.user.email, password: registered.password },
          }),
        ),
        password: registered.password,
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
      expectError(
        await api.get('/api/v1/auth/sessions', { token: admin.access_token }),
        403,
        'MFA_ENROLLMENT_REQUIRED',
        'a second factor must be enrolled first',
      );
      // A plain user is not concerned.
      const user = await register(api);
      dataOf(await api.get('/api/v1/profile', { token: user.access_token }));

      const { secret } = await startTotp(admin);
      const now = await freshStep();
      dataOf(await confirm(admin, oathtool(secret, now)));
      dataOf(await api.get('/api/v1/admin/users', { token: admin.access_token }));
      const held = await loginStep(admin);
      expect(held.mfa_required).to.equal(true);
      const signedIn = dataOf<SessionJson>(await secondStep(held.mfa_token, oathtool(secret, now + 30)));
      dataOf(await api.get('/api/v1/admin/users', { token: signedIn.access_token }));
    });
  });
}
