import { expect } from 'chai';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { TOKENS } from '../../src/main/wiring/tokens.js';
import {
  Api,
  accountWithRole,
  dataOf,
  expectError,
  expectInvalidFields,
  expectUnauthorized,
  expectValidation,
  login,
  register,
  uniqueEmail,
  type Account,
  type ApiResponse,
  type SessionJson,
  type TokensJson,
  type UserJson,
} from '../support/api.js';
import { testConfig } from '../support/config.js';
import { jobsSettled } from '../support/jobs.js';
import { silentLogger } from '../support/logger.js';
import { linkToken, startSmtpServer, type ReceivedMail, type TestSmtpServer } from '../support/smtp.js';

const LINK_BASE = 'https://app.example.com/account';
const NEW_PASSWORD = 'a brand new passphrase';

/** Sessions as `GET /api/v1/auth/sessions` lists them. */
interface SessionInfoJson {
  id: string;
  created_at: string;
  last_used_at: string;
  user_agent: string | null;
  ip: string | null;
  current: boolean;
}

const expectInvalidToken = (response: ApiResponse): void =>
  expectError(response, 400, 'INVALID_TOKEN', 'invalid or expired token');

/** Polls `probe` until it answers `status`, for at most `withinMs`; answers how long it took. */
async function until(probe: () => Promise<ApiResponse>, status: number, withinMs = 1000): Promise<number> {
  const started = Date.now();
  for (;;) {
    const response = await probe();
    const elapsed = Date.now() - started;
    if (response.status === status) return elapsed;
    if (elapsed > withinMs) throw new Error(`still ${response.status} after ${elapsed} ms: ${response.text}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

describe('account lifecycle (end to end, real SMTP server)', function () {
  this.timeout(60_000);
  let smtp: TestSmtpServer;
  let service: RunningService;
  let api: Api;

  before(async () => {
    smtp = await startSmtpServer();
    service = await startService(
      testConfig({
        SVC_AUTH_BCRYPT_COST: '4',
        SVC_RATE_LIMIT_ENABLED: 'false',
        SVC_MAIL_SMTP_URL: smtp.url,
        SVC_MAIL_LINK_BASE_URL: LINK_BASE,
        // Every test client is 127.0.0.1: the per-IP limit has a service of its own below.
        SVC_ACCOUNT_MAILS_PER_IP_PER_HOUR: '100000',
      }),
      { logger: silentLogger() },
    );
    api = new Api(service.url);
  });
  after(async () => {
    await service?.stop();
    await smtp?.close();
  });

  const mailTo = (email: string, subject: RegExp): Promise<ReceivedMail> =>
    smtp.waitFor((m) => m.to.includes(email) && subject.test(m.subject));
  const verificationMail = (email: string) => mailTo(email, /confirm your e-mail/i);
  const resetMail = (email: string) => mailTo(email, /reset your .*password/i);
  const profile = (token: string) => api.get('/api/v1/profile', { token });
  const refresh = (refreshToken: string) => api.post('/api/v1/auth/refresh', { json: { refresh_token: refreshToken } });
  const forgot = (email: string) => api.post('/api/v1/auth/password/forgot', { json: { email } });
  const reset = (token: string, password = NEW_PASSWORD) =>
    api.post('/api/v1/auth/password/reset', { json: { token, password } });
  const verify = (token: string) => api.post('/api/v1/auth/email/verify', { json: { token } });
  const listSessions = async (token: string) =>
    dataOf<SessionInfoJson[]>(await api.get('/api/v1/auth/sessions', { token }));
  /** 401 for a refresh token (a public route: no challenge). */
  const expectRefused = (response: ApiResponse) => expectError(response, 401, 'UNAUTHORIZED', 'invalid token');
  const loginFrom = (account: Account, userAgent: string) =>
    login(api, account.user.email, account.password, { 'User-Agent': userAgent });

  describe('e-mail verification', () => {
    it('registration mails a link; following it answers the user with email_verified: true, once', async () => {
      const account = await register(api);
      expect(account.user.email_verified).to.equal(false);
      const mail = await verificationMail(account.user.email);
      expect(mail.text).to.include(`${LINK_BASE}/verify-email?token=`);
      const token = linkToken(mail);
      expect(token.length * 6, 'at least 128 random bits in the token').to.be.at.least(128);

      const verified = dataOf<UserJson>(await verify(token));
      expect(verified).to.include({ id: account.user.id, email: account.user.email, email_verified: true });
      expect(dataOf<UserJson>(await profile(account.access_token)).email_verified).to.equal(true);
      expectInvalidToken(await verify(token));
    });

    it('a verified user asking for a link gets 202 and no mail; an unverified one gets a new link', async () => {
      const account = await register(api);
      const first = linkToken(await verificationMail(account.user.email));
      smtp.clear();
      const asked = await api.post('/api/v1/auth/email/verify/request', { token: account.access_token });
      expect(asked.status, asked.text).to.equal(202);
      expect(asked.body).to.include({ success: true, data: null });
      const second = linkToken(await verificationMail(account.user.email));
      expect(second).not.to.equal(first);
      dataOf<UserJson>(await verify(second));
      smtp.clear();
      expect((await api.post('/api/v1/auth/email/verify/request', { token: account.access_token })).status).to.equal(
        202,
      );
      await new Promise((r) => setTimeout(r, 300));
      expect(smtp.messages.filter((m) => m.to.includes(account.user.email))).to.have.length(0);
    });

    it('asking for a link needs a token', async () => {
      expectUnauthorized(await api.post('/api/v1/auth/email/verify/request'), 'missing bearer token');
    });

    it('changing the e-mail clears the flag and mails the new address; the old link no longer works', async () => {
      const account = await register(api);
      const oldLink = linkToken(await verificationMail(account.user.email));
      const newEmail = uniqueEmail('moved');
      const updated = dataOf<UserJson>(
        await api.put('/api/v1/profile', {
          token: account.access_token,
          json: { email: newEmail, current_password: account.password },
        }),
      );
      expect(updated).to.include({ email: newEmail, email_verified: false });
      expectInvalidToken(await verify(oldLink));
      const newLink = linkToken(await verificationMail(newEmail));
      expect(dataOf<UserJson>(await verify(newLink))).to.include({ email: newEmail, email_verified: true });
    });
  });

  describe('password reset', () => {
    it('forgot → mail → reset: every old session ends (refresh now, access within a second), the new password logs in', async () => {
      const account = await register(api);
      const other = await loginFrom(account, 'second-device/1.0');
      const asked = await forgot(account.user.email);
      expect(asked.status, asked.text).to.equal(202);
      expect(asked.body).to.deep.equal({
        success: true,
        data: null,
        message: 'if the address is registered, a reset link has been sent to it',
      });
      const mail = await resetMail(account.user.email);
      expect(mail.text).to.include(`${LINK_BASE}/reset-password?token=`);
      expect(mail.from).to.match(/no-reply@localhost/);

      const done = await reset(linkToken(mail));
      expect(done.status, done.text).to.equal(204);
      expect(done.text).to.equal('');

      expectRefused(await refresh(account.refresh_token));
      expectRefused(await refresh(other.refresh_token));
      expect(await until(() => profile(account.access_token), 401)).to.be.below(1000);
      expect(await until(() => profile(other.access_token), 401)).to.be.below(1000);
      expectError(
        await api.post('/api/v1/auth/login', { json: { email: account.user.email, password: account.password } }),
        401,
        'UNAUTHORIZED',
        'invalid credentials',
      );
      const fresh = await login(api, account.user.email, NEW_PASSWORD);
      expect(dataOf<UserJson>(await profile(fresh.access_token)).id).to.equal(account.user.id);
      expectInvalidToken(await reset(linkToken(mail), 'yet another passphrase'));
    });

    it('a token issued right after a reset works at once (no whole-second iat problem)', async () => {
      const account = await register(api);
      await forgot(account.user.email);
      expect((await reset(linkToken(await resetMail(account.user.email)))).status).to.equal(204);
      const fresh = await login(api, account.user.email, NEW_PASSWORD);
      expect((await profile(fresh.access_token)).status).to.equal(200);
      expect((await refresh(fresh.refresh_token)).status).to.equal(200);
    });

    it('an unknown e-mail gets the same 202 and no mail', async () => {
      const unknown = uniqueEmail('nobody');
      const known = await register(api);
      const answer = await forgot(unknown);
      expect(answer.status).to.equal(202);
      expect(answer.body).to.deep.equal((await forgot(known.user.email)).body);
      await resetMail(known.user.email); // sent after the unknown one's request was answered
      await new Promise((r) => setTimeout(r, 200));
      expect(smtp.messages.filter((m) => m.to.includes(unknown))).to.have.length(0);
    });

    it('answers known and unknown e-mails in the same time (medians of 20 each)', async () => {
      const known = await register(api);
      const timings: Record<'known' | 'unknown', number[]> = { known: [], unknown: [] };
      for (let i = 0; i < 20; i += 1) {
        for (const kind of i % 2 === 0 ? (['known', 'unknown'] as const) : (['unknown', 'known'] as const)) {
          const email = kind === 'known' ? known.user.email : uniqueEmail('ghost');
          const started = process.hrtime.bigint();
          expect((await forgot(email)).status).to.equal(202);
          timings[kind].push(Number(process.hrtime.bigint() - started) / 1e6);
        }
      }
      const [k, u] = [median(timings.known), median(timings.unknown)];
      expect(Math.abs(k - u), `medians ${k.toFixed(2)} ms (known) and ${u.toFixed(2)} ms (unknown)`).to.be.below(
        Math.max(5, 0.5 * Math.min(k, u)),
      );
    });

    it('sends at most 3 reset mails per address per hour', async () => {
      const account = await register(api);
      await verificationMail(account.user.email);
      for (let i = 0; i < 5; i += 1) expect((await forgot(account.user.email)).status).to.equal(202);
      const resets = () =>
        smtp.messages.filter((m) => m.to.includes(account.user.email) && /reset your .*password/i.test(m.subject));
      await smtp.waitFor(() => resets().length >= 3);
      await new Promise((r) => setTimeout(r, 400));
      expect(resets()).to.have.length(3);
    });

    it('bad tokens: malformed, missing, spent, and a verification token used to reset — each a clear 400', async () => {
      const account = await register(api);
      const verification = linkToken(await verificationMail(account.user.email));
      expectInvalidToken(await reset('not-a-token'));
      expectInvalidToken(await reset('A'.repeat(22) + '.' + 'B'.repeat(43)));
      expectInvalidToken(await reset(verification));
      expectValidation(await api.post('/api/v1/auth/password/reset', { json: { password: NEW_PASSWORD } }), [
        { field: 'token', message: 'is required' },
      ]);
      expectInvalidFields(await reset('x'.repeat(201)), ['token']);
      expectInvalidFields(await reset(verification, 'short'), ['password']);
      // The refused attempts did not spend the verification token.
      expect(dataOf<UserJson>(await verify(verification)).email_verified).to.equal(true);
      expectInvalidToken(await verify(verification));
    });
  });

  describe('sessions', () => {
    it('lists the active sessions newest first, with user agent, IP and the current one marked', async () => {
      const account = await register(api);
      const second = await loginFrom(account, 'agent-two/2.0');
      const listed = await listSessions(second.access_token);
      expect(listed).to.have.length(2);
      expect(listed.map((s) => s.current)).to.deep.equal([true, false]);
      expect(listed[0]!.user_agent).to.equal('agent-two/2.0');
      expect(listed[1]!.user_agent).to.equal('node');
      for (const session of listed) {
        expect(session.ip).to.match(/127\.0\.0\.1$/);
        expect(Date.parse(session.created_at)).to.be.at.most(Date.parse(session.last_used_at));
      }
      expect(Date.parse(listed[0]!.created_at)).to.be.at.least(Date.parse(listed[1]!.created_at));
    });

    it('ending one session refuses its tokens (access within a second) and leaves the others working', async () => {
      const account = await register(api);
      const second = await loginFrom(account, 'agent-two/2.0');
      const [, first] = await listSessions(second.access_token);
      const ended = await api.delete(`/api/v1/auth/sessions/${first!.id}`, { token: second.access_token });
      expect(ended.status, ended.text).to.equal(204);
      expectRefused(await refresh(account.refresh_token));
      expect(await until(() => profile(account.access_token), 401)).to.be.below(1000);
      expect((await profile(second.access_token)).status).to.equal(200);
      const renewed = dataOf<TokensJson>(await refresh(second.refresh_token));
      expect((await listSessions(renewed.access_token)).map((s) => s.id)).to.have.length(1);
    });

    it('another user’s session, an unknown id and a malformed id are all 404, and end nothing', async () => {
      const ada = await register(api);
      const bob = await register(api);
      const [bobSession] = await listSessions(bob.access_token);
      expectError(
        await api.delete(`/api/v1/auth/sessions/${bobSession!.id}`, { token: ada.access_token }),
        404,
        'NOT_FOUND',
        'Session not found',
        {
          detail: `id: ${bobSession!.id}`,
        },
      );
      const unknown = '00000000-0000-4000-8000-000000000000';
      expectError(
        await api.delete(`/api/v1/auth/sessions/${unknown}`, { token: ada.access_token }),
        404,
        'NOT_FOUND',
        'Session not found',
        {
          detail: `id: ${unknown}`,
        },
      );
      expect((await api.delete('/api/v1/auth/sessions/not-a-uuid', { token: ada.access_token })).status).to.equal(404);
      expect((await profile(bob.access_token)).status).to.equal(200);
      expect((await refresh(bob.refresh_token)).status).to.equal(200);
    });

    it('logout-all ends every session, this one included; a login right after works at once', async () => {
      const account = await register(api);
      const second = await loginFrom(account, 'agent-two/2.0');
      const done = await api.post('/api/v1/auth/logout-all', { token: account.access_token });
      expect(done.status, done.text).to.equal(204);
      for (const session of [account, second]) {
        expectRefused(await refresh(session.refresh_token));
        expect(await until(() => profile(session.access_token), 401)).to.be.below(1000);
      }
      const fresh = await login(api, account.user.email, account.password);
      expect((await profile(fresh.access_token)).status).to.equal(200);
      expect(await listSessions(fresh.access_token)).to.have.length(1);
    });

    it('changing the password ends every other session and keeps this one', async () => {
      const account = await register(api);
      const other = await loginFrom(account, 'agent-two/2.0');
      const changed = await api.put('/api/v1/profile', {
        token: account.access_token,
        json: { password: NEW_PASSWORD, current_password: account.password },
      });
      expect(changed.status, changed.text).to.equal(200);
      expectRefused(await refresh(other.refresh_token));
      expect(await until(() => profile(other.access_token), 401)).to.be.below(1000);
      expect((await profile(account.access_token)).status).to.equal(200);
      expect((await refresh(account.refresh_token)).status).to.equal(200);
    });

    it('logout ends the session’s access tokens too', async () => {
      const account = await register(api);
      expect(
        (
          await api.post('/api/v1/auth/logout', {
            token: account.access_token,
            json: { refresh_token: account.refresh_token },
          })
        ).status,
      ).to.equal(204);
      expect(await until(() => profile(account.access_token), 401)).to.be.below(1000);
    });
  });

  describe('takeover and mail abuse (docs/accounts.md)', () => {
    const put = (account: Account, json: unknown) => api.put('/api/v1/profile', { token: account.access_token, json });
    const mailsTo = (email: string) => smtp.messages.filter((m) => m.to.includes(email));
    /** Waits until `of`'s background jobs are all done (the account mail sent, or given up on), then a beat for SMTP. */
    const settle = (of: RunningService = service) => jobsSettled(of.container.get(TOKENS.JobAdmin));

    it('a stolen access token cannot move the account: the e-mail change needs current_password; the old address is told, with no link', async () => {
      const account = await register(api);
      const taken = uniqueEmail('mallory');
      expectInvalidFields(await put(account, { email: taken }), ['current_password']);
      expectInvalidFields(await put(account, { email: taken, current_password: 'a guess' }), ['current_password']);
      expect(dataOf<UserJson>(await profile(account.access_token)).email).to.equal(account.user.email);

      const moved = dataOf<UserJson>(await put(account, { email: taken, current_password: account.password }));
      expect(moved.email).to.equal(taken);
      const notice = await mailTo(account.user.email, /e-mail address of your .* was changed/i);
      expect(notice.text).not.to.match(/https?:\/\/|token=/);
      // Not verified yet when it moved: greeted without the requester's text.
      expect(notice.text.split('\n')[0]).to.equal('Hello,');
    });

    it('limits reset mails per address whichever account holds it: moving the account and registering again buys none', async () => {
      const victim = uniqueEmail('victim');
      const first = await register(api, { email: victim });
      for (let i = 0; i < 4; i += 1) expect((await forgot(victim)).status).to.equal(202);
      await put(first, { email: uniqueEmail('elsewhere'), current_password: first.password });
      await register(api, { email: victim });
      for (let i = 0; i < 4; i += 1) expect((await forgot(victim)).status).to.equal(202);
      await settle();
      expect(mailsTo(victim).filter((m) => /reset your/i.test(m.subject))).to.have.length(3);
    });

    it('refuses addresses a mailer would read another recipient out of', async () => {
      for (const email of ['x<victim@ex.com>', 'g:victim@ex.com;', 'a@ex.com,victim@ex.com', '"v"@ex.com']) {
        expectInvalidFields(
          await api.post('/api/v1/auth/register', {
            json: { email, password: 'correct horse battery', first_name: 'A', last_name: 'B' },
          }),
          ['email'],
        );
      }
    });

    it('a reset link mailed before a password change no longer works after it', async () => {
      const account = await register(api);
      await forgot(account.user.email);
      const link = linkToken(await resetMail(account.user.email));
      dataOf<UserJson>(await put(account, { password: NEW_PASSWORD, current_password: account.password }));
      expectInvalidToken(await reset(link, 'another new passphrase'));
      expect((await login(api, account.user.email, NEW_PASSWORD)).user.id).to.equal(account.user.id);
    });

    it('names refuse line breaks; a mail to an unverified address carries no requester text', async () => {
      for (const first_name of ['Ada\r\nBcc: eve@example.com', 'Ada\nconfirm at https://evil.example/x', 'A\u0007da']) {
        expectValidation(
          await api.post('/api/v1/auth/register', {
            json: { email: uniqueEmail(), password: 'correct horse battery', first_name, last_name: 'B' },
          }),
          [{ field: 'first_name', message: 'must not contain control characters' }],
        );
      }
      const account = await register(api);
      expectValidation(await put(account, { last_name: 'x\ry' }), [
        { field: 'last_name', message: 'must not contain control characters' },
      ]);
      const target = uniqueEmail('target');
      await register(api, { email: target, first_name: 'Ada, confirm at https://evil.example/x' });
      const mail = await verificationMail(target);
      expect(mail.text).not.to.include('evil.example');
      expect(mail.text.split('\n')[0]).to.equal('Hello,');
    });

    it('throttles current_password guesses: after 5 wrong ones, 429 RATE_LIMITED even for the right one', async () => {
      const account = await register(api);
      for (let i = 0; i < 5; i += 1) {
        expectInvalidFields(await put(account, { password: NEW_PASSWORD, current_password: `guess ${i}` }), [
          'current_password',
        ]);
      }
      const throttled = await put(account, { password: NEW_PASSWORD, current_password: account.password });
      expectError(throttled, 429, 'RATE_LIMITED', 'too many failed attempts');
      expect(throttled.headers.get('retry-after')).to.match(/^\d+$/);
    });

    it('each client IP triggers at most account.mails_per_ip_per_hour account mails, whatever the addresses', async () => {
      const limited = await startService(
        testConfig({
          SVC_AUTH_BCRYPT_COST: '4',
          SVC_RATE_LIMIT_ENABLED: 'false',
          SVC_MAIL_SMTP_URL: smtp.url,
          SVC_MAIL_LINK_BASE_URL: LINK_BASE,
          SVC_ACCOUNT_MAILS_PER_IP_PER_HOUR: '3',
        }),
        { logger: silentLogger() },
      );
      try {
        const there = new Api(limited.url);
        const emails = [uniqueEmail('ip'), uniqueEmail('ip'), uniqueEmail('ip'), uniqueEmail('ip')];
        // Two registrations (a verification mail each), then forgot-password for all four addresses.
        for (const email of emails.slice(0, 2)) await register(there, { email });
        for (const email of emails.slice(2)) await register(there, { email });
        await settle(limited);
        for (const email of emails) {
          expect((await there.post('/api/v1/auth/password/forgot', { json: { email } })).status).to.equal(202);
        }
        await settle(limited);
        const sent = emails.flatMap(mailsTo);
        expect(sent, sent.map((m) => `${m.to.join()}: ${m.subject}`).join('; ')).to.have.length(3);
      } finally {
        await limited.stop();
      }
    });
  });

  describe('admin', () => {
    it('sees email_verified and ends all of a user’s sessions; others get 403, unknown users 404', async () => {
      const admin = await accountWithRole(service, api, 'admin');
      const user = await register(api);
      expect(
        dataOf<UserJson>(await api.get(`/api/v1/admin/users/${user.user.id}`, { token: admin.access_token })),
      ).to.include({ email_verified: false });
      expectError(
        await api.post(`/api/v1/admin/users/${admin.user.id}/logout`, { token: user.access_token }),
        403,
        'FORBIDDEN',
        'forbidden',
      );
      const done = await api.post(`/api/v1/admin/users/${user.user.id}/logout`, { token: admin.access_token });
      expect(done.status, done.text).to.equal(204);
      expectRefused(await refresh(user.refresh_token));
      expect(await until(() => profile(user.access_token), 401)).to.be.below(1000);
      expect((await profile(admin.access_token)).status).to.equal(200);
      const unknown = '00000000-0000-4000-8000-000000000000';
      expectError(
        await api.post(`/api/v1/admin/users/${unknown}/logout`, { token: admin.access_token }),
        404,
        'NOT_FOUND',
        'User not found',
        {
          detail: `id: ${unknown}`,
        },
      );
    });
  });
});

describe('auth.require_verified_email (end to end)', function () {
  this.timeout(60_000);
  let smtp: TestSmtpServer;
  let service: RunningService;
  let api: Api;

  before(async () => {
    smtp = await startSmtpServer();
    service = await startService(
      testConfig({
        SVC_AUTH_BCRYPT_COST: '4',
        SVC_RATE_LIMIT_ENABLED: 'false',
        SVC_MAIL_SMTP_URL: smtp.url,
        SVC_AUTH_REQUIRE_VERIFIED_EMAIL: 'true',
      }),
      { logger: silentLogger() },
    );
    api = new Api(service.url);
  });
  after(async () => {
    await service?.stop();
    await smtp?.close();
  });

  it('register starts no session; login is 403 EMAIL_NOT_VERIFIED (and mails a new link) until the link is followed', async () => {
    const email = uniqueEmail('strict');
    const password = 'correct horse battery';
    const registered = dataOf<{ user: UserJson } & Partial<SessionJson>>(
      await api.post('/api/v1/auth/register', { json: { email, password, first_name: 'Grace', last_name: 'Hopper' } }),
      201,
    );
    expect(Object.keys(registered)).to.deep.equal(['user']);
    const first = await smtp.waitFor((m) => m.to.includes(email));
    smtp.clear();

    const wrong = await api.post('/api/v1/auth/login', { json: { email, password: 'not the password' } });
    expectError(wrong, 401, 'UNAUTHORIZED', 'invalid credentials');
    const refused = await api.post('/api/v1/auth/login', { json: { email, password } });
    expect(refused.status, refused.text).to.equal(403);
    expect((refused.body as { error: { code: string } }).error.code).to.equal('EMAIL_NOT_VERIFIED');
    const second = await smtp.waitFor((m) => m.to.includes(email));
    expect(linkToken(second)).not.to.equal(linkToken(first));

    dataOf<UserJson>(await api.post('/api/v1/auth/email/verify', { json: { token: linkToken(second) } }));
    const session = await login(api, email, password);
    expect(session.user.email_verified).to.equal(true);
  });
});
