import { expect } from 'chai';
import { AesGcmSecretBox } from '../../../src/adapters/outbound/crypto/AesGcmSecretBox.js';
import { InMemoryIdentityStore } from '../../../src/adapters/outbound/memory/InMemoryIdentityStore.js';
import { InMemoryOidcHandoffStore } from '../../../src/adapters/outbound/memory/InMemoryOidcHandoffStore.js';
import { LoginUser } from '../../../src/application/auth/LoginUser.js';
import { BrowserSignIn, OIDC_CODE_TTL_MS, OIDC_STATE_TTL_MS } from '../../../src/application/oidc/BrowserSignIn.js';
import { LinkedIdentities } from '../../../src/application/oidc/LinkedIdentities.js';
import { keepsAWayIn } from '../../../src/domain/user/waysIn.js';
import { InMemoryPasskeyStore } from '../../../src/adapters/outbound/memory/InMemoryPasskeyStore.js';
import { NativeSignIn } from '../../../src/application/oidc/NativeSignIn.js';
import { OidcAccounts } from '../../../src/application/oidc/OidcAccounts.js';
import {
  IdentityProviderError,
  type AuthorizationRequest,
  type IdentityProviders,
  type ProviderClaims,
} from '../../../src/application/ports/IdentityProviders.js';
import {
  ConflictError,
  NotFoundError,
  UnauthorizedError,
  ValidationError,
} from '../../../src/domain/shared/DomainError.js';
import type { User } from '../../../src/domain/user/User.js';
import { EmailNotVerifiedError, InvalidAccountTokenError } from '../../../src/domain/user/UserErrors.js';
import { aPasskeyOf, aUser } from '../../support/mothers.js';
import { TEST_SECRETS_KEY, testOneTimeSecrets } from '../../support/oneTimeSecrets.js';
import { A_CLIENT, newWorld, rejectionOf, type World } from '../world.js';

const ISSUER = 'https://login.example.com';
const FRONT = 'https://app.example/signed-in';
const CALLBACK = 'https://api.example.com/api/v1/auth/oidc/corp/callback';

/** A provider without HTTP: its answers are the claims the test sets, its calls are recorded. */
class FakeProviders implements IdentityProviders {
  /** The claims `finish` and `verify` answer; a thrown IdentityProviderError when undefined. */
  claims: ProviderClaims | undefined;
  readonly finished: { state: string; nonce: string; codeVerifier: string }[] = [];
  readonly verified: { idToken: string; nonce: string | undefined }[] = [];
  private issued = 0;

  has(name: string): boolean {
    return name === 'corp';
  }

  async begin(_name: string, callbackUrl: string, state: string): Promise<AuthorizationRequest> {
    await Promise.resolve();
    this.issued += 1;
    const url = `${ISSUER}/auth?redirect_uri=${encodeURIComponent(callbackUrl)}&state=${encodeURIComponent(state)}`;
    return { url, nonce: `nonce-${this.issued}`, codeVerifier: `verifier-${this.issued}` };
  }

  async finish(
    _name: string,
    _callbackUrl: string,
    expected: { state: string; nonce: string; codeVerifier: string },
  ): Promise<ProviderClaims> {
    await Promise.resolve();
    this.finished.push({ ...expected });
    return this.answer();
  }

  async verify(_name: string, idToken: string, nonce?: string): Promise<ProviderClaims> {
    await Promise.resolve();
    this.verified.push({ idToken, nonce });
    return this.answer();
  }

  private answer(): ProviderClaims {
    if (!this.claims) throw new IdentityProviderError('refused');
    return this.claims;
  }
}

describe('Sign-in with an identity provider (use cases, in memory)', () => {
  let world: World;
  let identities: InMemoryIdentityStore;
  let handoffs: InMemoryOidcHandoffStore;
  let providers: FakeProviders;
  let accounts: OidcAccounts;
  let browser: BrowserSignIn;
  let native: NativeSignIn;

  const build = (requireVerifiedEmail = false) => {
    accounts = new OidcAccounts({
      users: world.users,
      identities,
      links: world.links,
      gate: world.gate,
      transactions: world.jobs,
      ids: world.ids,
      clock: world.clock,
      requireVerifiedEmail,
    });
    browser = new BrowserSignIn({
      providers,
      accounts,
      handoffs,
      secrets: testOneTimeSecrets(),
      box: new AesGcmSecretBox(TEST_SECRETS_KEY),
      users: world.users,
      clock: world.clock,
      redirectUris: [FRONT],
    });
    native = new NativeSignIn({ providers, accounts });
  };

  beforeEach(() => {
    world = newWorld();
    identities = new InMemoryIdentityStore();
    handoffs = new InMemoryOidcHandoffStore();
    providers = new FakeProviders();
    build();
  });

  const claims = (overrides: Partial<ProviderClaims> = {}): ProviderClaims => ({
    issuer: ISSUER,
    subject: 'subject-1',
    email: 'grace@example.com',
    emailVerified: true,
    givenName: 'Grace',
    familyName: 'Hopper',
    ...overrides,
  });

  /** The state `start` put in the provider's URL. */
  const started = async (): Promise<string> => {
    const url = new URL(await browser.start({ provider: 'corp', redirectUri: FRONT, callbackUrl: CALLBACK }));
    expect(url.searchParams.get('redirect_uri')).to.equal(CALLBACK);
    return url.searchParams.get('state')!;
  };

  const back = (state: string | undefined) =>
    browser.callback({ provider: 'corp', state, callbackUrl: `${CALLBACK}?code=c&state=${state}` });

  describe('which account', () => {
    it('makes a new account without a password for an unknown identity: role user, names and verification from the claims', async () => {
      const user = await accounts.accountFor(claims());
      expect(user.toProps()).to.deep.include({
        email: 'grace@example.com',
        firstName: 'Grace',
        lastName: 'Hopper',
        role: 'user',
        emailVerified: true,
        passwordHash: '',
      });
      expect(user.hasPassword).to.equal(false);
      expect((await identities.find(ISSUER, 'subject-1'))?.userId).to.equal(user.id);
      expect(await world.users.findById(user.id)).to.not.equal(undefined);
    });

    it('signs a linked identity into its account, whatever its address now says', async () => {
      const first = await accounts.accountFor(claims());
      const again = await accounts.accountFor(claims({ email: 'other@example.com', emailVerified: false }));
      expect(again.id).to.equal(first.id);
    });

    it('links a verified address to the account that has it verified', async () => {
      const grace = await world.given(aUser().withEmail('grace@example.com').verified());
      expect((await accounts.accountFor(claims({ email: 'Grace@Example.com' }))).id).to.equal(grace.id);
      expect((await identities.listOf(grace.id)).map((identity) => identity.subject)).to.deep.equal(['subject-1']);
    });

    it('never links when either side has the address unverified: ConflictError, nothing linked', async () => {
      const unverified = await world.given(aUser().withEmail('grace@example.com'));
      expect(await rejectionOf(accounts.accountFor(claims()))).to.be.instanceOf(ConflictError);
      const verified = await world.given(aUser().withEmail('ada@example.com').verified());
      expect(
        await rejectionOf(accounts.accountFor(claims({ email: 'ada@example.com', emailVerified: false }))),
      ).to.be.instanceOf(ConflictError);
      expect(await identities.listOf(unverified.id)).to.deep.equal([]);
      expect(await identities.listOf(verified.id)).to.deep.equal([]);
    });

    it('mails a verification link to a new account the provider does not vouch for, and falls back to the address for names', async () => {
      const user = await accounts.accountFor(
        claims({ emailVerified: false, givenName: '  ', familyName: 'Line\nbreak' }),
      );
      expect(user.emailVerified).to.equal(false);
      expect([user.firstName, user.lastName]).to.deep.equal(['grace', 'grace']);
      await world.runJobs();
      expect(world.mailer.sent.map((mail) => mail.to)).to.deep.equal(['grace@example.com']);
    });

    it('refuses an identity without a usable address', async () => {
      const { email: _, ...withoutEmail } = claims();
      expect(await rejectionOf(accounts.accountFor(withoutEmail))).to.be.instanceOf(UnauthorizedError);
      expect(await rejectionOf(accounts.accountFor(claims({ email: 'not an address' })))).to.be.instanceOf(
        UnauthorizedError,
      );
    });

    it('signs in as login does: a session by fed, a second factor held, an unverified address refused under the requirement', async () => {
      const grace = await accounts.accountFor(claims());
      const outcome = await accounts.enter(grace, A_CLIENT);
      expect(outcome.kind).to.equal('session');
      if (outcome.kind === 'session')
        expect(world.tokens.inspect(outcome.tokens.accessToken)?.amr).to.deep.equal(['fed']);

      const withTotp: User = grace.withMfa(true, world.clock.now());
      expect((await accounts.enter(withTotp, A_CLIENT)).kind).to.equal('second-factor');

      build(true);
      const unverified = await accounts.accountFor(
        claims({ subject: 'subject-2', email: 'new@example.com', emailVerified: false }),
      );
      expect(await rejectionOf(accounts.enter(unverified, A_CLIENT))).to.be.instanceOf(EmailNotVerifiedError);
    });
  });

  describe('the browser flow', () => {
    it('starts only for a known provider and an allowed redirect URI', async () => {
      expect(
        await rejectionOf(browser.start({ provider: 'nobody', redirectUri: FRONT, callbackUrl: CALLBACK })),
      ).to.be.instanceOf(NotFoundError);
      expect(
        await rejectionOf(
          browser.start({ provider: 'corp', redirectUri: 'https://evil.example', callbackUrl: CALLBACK }),
        ),
      ).to.be.instanceOf(ValidationError);
      expect(
        await rejectionOf(browser.start({ provider: 'corp', redirectUri: undefined, callbackUrl: CALLBACK })),
      ).to.be.instanceOf(ValidationError);
    });

    it('finishes with the nonce and PKCE verifier it started with, and answers a one-time code for the front end', async () => {
      providers.claims = claims();
      const state = await started();
      const outcome = await back(state);
      expect(outcome.redirectUri).to.equal(FRONT);
      expect(providers.finished).to.deep.equal([{ state, nonce: 'nonce-1', codeVerifier: 'verifier-1' }]);
      expect(outcome.result).to.have.keys(['code']);
      const { user, outcome: signIn } = await browser.exchange({
        code: (outcome.result as { code: string }).code,
        client: A_CLIENT,
      });
      expect(user.email).to.equal('grace@example.com');
      expect(signIn.kind).to.equal('session');
    });

    it('refuses a bad, spent or expired state without asking the provider', async () => {
      providers.claims = claims();
      for (const state of [undefined, 'garbage', `${'A'.repeat(22)}.${'A'.repeat(43)}`]) {
        expect(await rejectionOf(back(state))).to.be.instanceOf(InvalidAccountTokenError);
      }
      const spent = await started();
      await back(spent);
      expect(await rejectionOf(back(spent))).to.be.instanceOf(InvalidAccountTokenError);
      const late = await started();
      world.clock.advance(OIDC_STATE_TTL_MS);
      expect(await rejectionOf(back(late))).to.be.instanceOf(InvalidAccountTokenError);
      expect(providers.finished).to.have.length(1);
    });

    it('sends the front end an error code when the provider refuses or the account cannot be linked', async () => {
      expect((await back(await started())).result).to.deep.equal({ error: 'UNAUTHORIZED' });
      await world.given(aUser().withEmail('grace@example.com'));
      providers.claims = claims();
      expect((await back(await started())).result).to.deep.equal({ error: 'CONFLICT' });
    });

    it('trades a one-time code once, within 60 seconds', async () => {
      providers.claims = claims();
      const codeOf = async () => ((await back(await started())).result as { code: string }).code;
      const code = await codeOf();
      await browser.exchange({ code, client: A_CLIENT });
      expect(await rejectionOf(browser.exchange({ code, client: A_CLIENT }))).to.be.instanceOf(
        InvalidAccountTokenError,
      );
      const late = await codeOf();
      world.clock.advance(OIDC_CODE_TTL_MS);
      expect(await rejectionOf(browser.exchange({ code: late, client: A_CLIENT }))).to.be.instanceOf(
        InvalidAccountTokenError,
      );
      expect(await rejectionOf(browser.exchange({ code: 'x', client: A_CLIENT }))).to.be.instanceOf(
        InvalidAccountTokenError,
      );
    });
  });

  describe('native clients', () => {
    it('pass the nonce on to the check, and a refused token is UnauthorizedError', async () => {
      expect(await rejectionOf(native.execute({ provider: 'corp', idToken: 't', client: A_CLIENT }))).to.be.instanceOf(
        UnauthorizedError,
      );
      providers.claims = claims();
      const { user } = await native.execute({ provider: 'corp', idToken: 't', nonce: 'n', client: A_CLIENT });
      expect(user.email).to.equal('grace@example.com');
      expect(providers.verified).to.deep.equal([
        { idToken: 't', nonce: undefined },
        { idToken: 't', nonce: 'n' },
      ]);
      expect(
        await rejectionOf(native.execute({ provider: 'nobody', idToken: 't', client: A_CLIENT })),
      ).to.be.instanceOf(NotFoundError);
    });
  });

  describe('accounts without a password', () => {
    it('refuse every password at login, after the same one comparison as an unknown e-mail', async () => {
      await world.given(aUser().withEmail('grace@example.com').withoutPassword());
      const login = new LoginUser({
        users: world.users,
        hasher: world.hasher,
        throttle: world.throttle,
        gate: world.gate,
      });
      const before = world.hasher.verifyCalls;
      const error = await rejectionOf(
        login.execute({ email: 'grace@example.com', password: '', clientIp: A_CLIENT.ip!, userAgent: null }),
      );
      expect(error).to.be.instanceOf(UnauthorizedError);
      expect((error as Error).message).to.equal('invalid credentials');
      expect(world.hasher.verifyCalls - before).to.equal(1);
      expect(world.hasher.verifications.at(-1)!.hash).to.not.equal('');
    });

    it('keep a way in: a password, another identity or a passkey (keepsAWayIn), and unlinking the last is ConflictError', async () => {
      const withPassword = aUser().build(world.clock.now());
      const without = aUser().withoutPassword().build(world.clock.now());
      expect(keepsAWayIn(withPassword, { identities: 0, passkeys: 0 })).to.equal(true);
      expect(keepsAWayIn(without, { identities: 1, passkeys: 0 })).to.equal(true);
      expect(keepsAWayIn(without, { identities: 0, passkeys: 1 })).to.equal(true);
      expect(keepsAWayIn(without, { identities: 0, passkeys: 0 })).to.equal(false);

      providers.claims = claims();
      const grace = await accounts.accountFor(claims());
      const passkeys = new InMemoryPasskeyStore();
      const linked = new LinkedIdentities({ users: world.users, identities, passkeys, transactions: world.jobs });
      const [only] = await linked.list(grace.id);
      expect(await rejectionOf(linked.unlink(grace.id, only!.id))).to.be.instanceOf(ConflictError);
      expect(await rejectionOf(linked.unlink(grace.id, 'no-such-id'))).to.be.instanceOf(NotFoundError);
      await accounts.accountFor(claims({ issuer: 'https://other.example', subject: 'elsewhere' }));
      await linked.unlink(grace.id, only!.id);
      const [last] = await linked.list(grace.id);
      expect(last!.issuer).to.equal('https://other.example');
      expect(await rejectionOf(linked.unlink(grace.id, last!.id))).to.be.instanceOf(ConflictError);
      await passkeys.add(aPasskeyOf(grace.id));
      await linked.unlink(grace.id, last!.id);
      expect(await linked.list(grace.id)).to.deep.equal([]);
    });
  });
});
