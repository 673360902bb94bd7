import { readFile } from 'node:fs/promises';
import { CasbinAccessPolicy } from '../../src/adapters/outbound/access/CasbinAccessPolicy.js';
import { parsePolicyCsv, type StoredRule } from '../../src/adapters/outbound/access/PolicyRuleStore.js';
import { InMemoryPolicyRuleStore } from '../../src/adapters/outbound/memory/InMemoryPolicyRuleStore.js';
import { InMemoryRefreshTokenStore } from '../../src/adapters/outbound/memory/InMemoryRefreshTokenStore.js';
import { InMemoryUserRepository } from '../../src/adapters/outbound/memory/InMemoryUserRepository.js';
import { InMemoryCallerLookup } from '../../src/adapters/outbound/memory/InMemoryCallerLookup.js';
import { InMemoryEmailTokenStore } from '../../src/adapters/outbound/memory/InMemoryEmailTokenStore.js';
import { InMemorySessionStore } from '../../src/adapters/outbound/memory/InMemorySessionStore.js';
import { testOneTimeSecrets } from '../support/oneTimeSecrets.js';
import { AccountLinks } from '../../src/application/account/AccountLinks.js';
import { accountMailJobs } from '../../src/application/account/AccountMailJobs.js';
import { InMemoryJobs } from '../../src/adapters/outbound/memory/InMemoryJobs.js';
import { SessionEnder } from '../../src/application/account/SessionEnder.js';
import { RefreshSession } from '../../src/application/auth/RefreshSession.js';
import { SessionIssuer, type ClientInfo, type TokenPair } from '../../src/application/auth/SessionIssuer.js';
import { SignInGate, type SignInOutcome } from '../../src/application/mfa/SignInGate.js';
import { InMemoryMfaChallengeStore } from '../../src/adapters/outbound/memory/InMemoryMfaChallengeStore.js';
import { RecordingMailer } from '../support/RecordingMailer.js';
import type { User } from '../../src/domain/user/User.js';
import { CountingPasswordHasher } from '../support/CountingPasswordHasher.js';
import { FakeLoginThrottle } from '../support/FakeLoginThrottle.js';
import { FakeTokenIssuer } from '../support/FakeTokenIssuer.js';
import { FixedClock } from '../support/FixedClock.js';
import type { UserBuilder } from '../support/mothers.js';
import { SequentialIds } from '../support/SequentialIds.js';

export const START = new Date('2026-01-01T00:00:00Z');

/** One in-memory service: real in-memory adapters, fakes for crypto, a clock that moves when told. */
export interface World {
  readonly clock: FixedClock;
  readonly ids: SequentialIds;
  readonly users: InMemoryUserRepository;
  readonly refreshTokens: InMemoryRefreshTokenStore;
  readonly hasher: CountingPasswordHasher;
  readonly tokens: FakeTokenIssuer;
  readonly throttle: FakeLoginThrottle;
  readonly sessions: SessionIssuer;
  /** Where a right password leads: a session, or (a second factor on) a challenge in `challenges`. */
  readonly gate: SignInGate;
  readonly challenges: InMemoryMfaChallengeStore;
  readonly sessionStore: InMemorySessionStore;
  readonly callers: InMemoryCallerLookup;
  readonly ender: SessionEnder;
  readonly emailTokens: InMemoryEmailTokenStore;
  readonly mailer: RecordingMailer;
  /** The jobs use cases stored (the account mail), run by `runJobs`. */
  readonly jobs: InMemoryJobs;
  /** Runs every due job (the account mail jobs) as a runner would after the answer. */
  runJobs(): Promise<void>;
  /** Runs that failed (each is retried later, or failed after the limit), by job name. */
  readonly jobFailures: { what: string; error: unknown }[];
  readonly links: AccountLinks;
  /** Builds the user at the clock's now and stores it. */
  given(builder: UserBuilder): Promise<User>;
}

/** The client every test session starts from unless told otherwise. */
export const A_CLIENT: ClientInfo = { userAgent: 'test-agent/1.0', ip: '203.0.113.7' };

export function newWorld(): World {
  const clock = new FixedClock(START);
  const ids = new SequentialIds();
  const users = new InMemoryUserRepository();
  const refreshTokens = new InMemoryRefreshTokenStore();
  const tokens = new FakeTokenIssuer(clock);
  const sessionStore = new InMemorySessionStore();
  const emailTokens = new InMemoryEmailTokenStore();
  const mailer = new RecordingMailer();
  const jobs = new InMemoryJobs(() => clock.now());
  const jobFailures: { what: string; error: unknown }[] = [];
  const links = new AccountLinks({
    tokens: emailTokens,
    secrets: testOneTimeSecrets(),
    jobs,
    transactions: jobs,
    clock,
    mailsPerIpPerHour: 20,
  });
  const handlers = accountMailJobs(links, users, mailer);
  const sessions = new SessionIssuer({ tokens, refreshTokens, sessions: sessionStore, ids, clock });
  const challenges = new InMemoryMfaChallengeStore();
  return {
    clock,
    ids,
    users,
    refreshTokens,
    hasher: new CountingPasswordHasher(),
    tokens,
    throttle: new FakeLoginThrottle(clock),
    sessions,
    gate: new SignInGate({ issuer: sessions, challenges, secrets: testOneTimeSecrets(), clock }),
    challenges,
    sessionStore,
    callers: new InMemoryCallerLookup(users, sessionStore),
    ender: new SessionEnder(sessionStore, refreshTokens, clock),
    emailTokens,
    mailer,
    jobs,
    jobFailures,
    async runJobs() {
      for (const run of await jobs.runDue(handlers))
        if (run.outcome !== 'completed') jobFailures.push({ what: run.name, error: run.error });
    },
    links,
    async given(builder) {
      const user = builder.build(clock.now());
      await users.add(user);
      return user;
    },
  };
}

/** The shipped access model and default rules, read once. */
export interface PolicyFiles {
  readonly model: string;
  readonly rules: readonly StoredRule[];
}

let policyFiles: Promise<PolicyFiles> | undefined;

export function readPolicyFiles(): Promise<PolicyFiles> {
  policyFiles ??= Promise.all([
    readFile(new URL('../../policy/model.conf', import.meta.url), 'utf8'),
    readFile(new URL('../../policy/policy.csv', import.meta.url), 'utf8'),
  ]).then(([model, csv]) => ({ model, rules: parsePolicyCsv(csv) }));
  return policyFiles;
}

/** A casbin policy over a fresh in-memory rule store seeded with the default rules. */
export async function newAccessPolicy(
  files: PolicyFiles,
): Promise<{ policy: CasbinAccessPolicy; store: InMemoryPolicyRuleStore }> {
  const store = new InMemoryPolicyRuleStore();
  return { policy: await CasbinAccessPolicy.create(files.model, store, files.rules), store };
}

/** The refresh use case over the world's stores, issuer and clock. */
export const refreshSessionIn = (world: World): RefreshSession =>
  new RefreshSession({
    tokens: world.tokens,
    refreshTokens: world.refreshTokens,
    users: world.users,
    sessions: world.sessionStore,
    issuer: world.sessions,
    clock: world.clock,
    ender: world.ender,
  });

/** The session a token pair belongs to (the `sid` its access token carries). */
export function sessionIdOf(world: World, pair: TokenPair): string {
  const sessionId = world.tokens.inspect(pair.accessToken)?.sessionId;
  if (sessionId === undefined) throw new Error('not an access token of this world');
  return sessionId;
}

/** The session a sign-in started; fails the test when it was held for a second factor instead. */
export function signedIn(result: { user: User; outcome: SignInOutcome }): { user: User; tokens: TokenPair } {
  if (result.outcome.kind !== 'session') throw new Error('the sign-in waits for a second factor');
  return { user: result.user, tokens: result.outcome.tokens };
}

/** The error `promise` rejects with; fails the test when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject, but it resolved');
}
