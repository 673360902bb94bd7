import type { EntitySchema } from '@mikro-orm/core';
import { ContainerModule } from 'inversify';
import { USER_OPERATIONS, userRoutes, type UserUseCases } from '../../adapters/inbound/http/routes/users.js';
import { AnnouncingSessionStore } from '../../adapters/outbound/cache/AnnouncingSessionStore.js';
import { CachingCallerLookup } from '../../adapters/outbound/cache/CachingCallerLookup.js';
import { CachingUserRepository } from '../../adapters/outbound/cache/CachingUserRepository.js';
import { UserChanges } from '../../adapters/outbound/cache/UserChanges.js';
import { RandomOneTimeSecrets } from '../../adapters/outbound/crypto/RandomOneTimeSecrets.js';
import { Migration0004AccountMailLimits } from '../../adapters/outbound/mikroorm/migrations/Migration0004AccountMailLimits.js';
import { Migration0003AccountLifecycle } from '../../adapters/outbound/mikroorm/migrations/Migration0003AccountLifecycle.js';
import { SqlCallerLookup } from '../../adapters/outbound/mikroorm/SqlCallerLookup.js';
import { MikroOrmEmailTokenStore } from '../../adapters/outbound/mikroorm/MikroOrmEmailTokenStore.js';
import { MikroOrmSessionStore } from '../../adapters/outbound/mikroorm/MikroOrmSessionStore.js';
import { EmailTokenSchema } from '../../adapters/outbound/mikroorm/schemas/EmailTokenSchema.js';
import { SessionSchema } from '../../adapters/outbound/mikroorm/schemas/SessionSchema.js';
import { AccountLinks } from '../../application/account/AccountLinks.js';
import { BackgroundWork } from '../../application/account/BackgroundWork.js';
import { EndAllSessions } from '../../application/account/EndAllSessions.js';
import { SessionEnder } from '../../application/account/SessionEnder.js';
import type { CallerLookup } from '../../application/ports/CallerLookup.js';
import type { EmailTokenStore } from '../../application/ports/EmailTokenStore.js';
import type { LoginThrottle } from '../../application/ports/LoginThrottle.js';
import type { Mailer } from '../../application/ports/Mailer.js';
import type { SessionStore } from '../../application/ports/SessionStore.js';
import { BcryptPasswordHasher } from '../../adapters/outbound/crypto/BcryptPasswordHasher.js';
import type { Database } from '../../adapters/outbound/mikroorm/database.js';
import { Migration0001Users } from '../../adapters/outbound/mikroorm/migrations/Migration0001Users.js';
import { MikroOrmRefreshTokenStore } from '../../adapters/outbound/mikroorm/MikroOrmRefreshTokenStore.js';
import { MeteredRefreshTokenStore } from '../../adapters/outbound/metrics/MeteredRefreshTokenStore.js';
import type { ServiceMetrics } from '../../adapters/inbound/metrics/ServiceMetrics.js';
import { MikroOrmUserRepository } from '../../adapters/outbound/mikroorm/MikroOrmUserRepository.js';
import { AccessRuleSchema, AppMetaSchema } from '../../adapters/outbound/mikroorm/schemas/AccessRuleSchema.js';
import { RefreshTokenSchema } from '../../adapters/outbound/mikroorm/schemas/RefreshTokenSchema.js';
import { UserSchema } from '../../adapters/outbound/mikroorm/schemas/UserSchema.js';
import { AddPolicy } from '../../application/admin/AddPolicy.js';
import { ChangeUserRole } from '../../application/admin/ChangeUserRole.js';
import { DeleteUser } from '../../application/admin/DeleteUser.js';
import { GetUser } from '../../application/admin/GetUser.js';
import { ListPolicies } from '../../application/admin/ListPolicies.js';
import { ListUsers } from '../../application/admin/ListUsers.js';
import { RemovePolicy } from '../../application/admin/RemovePolicy.js';
import type { Authenticate } from '../../application/auth/Authenticate.js';
import type { AccessPolicy } from '../../application/ports/AccessPolicy.js';
import type { Clock } from '../../application/ports/Clock.js';
import type { PasswordHasher } from '../../application/ports/PasswordHasher.js';
import type { RefreshTokenStore } from '../../application/ports/RefreshTokenStore.js';
import { GetProfile } from '../../application/profile/GetProfile.js';
import { UpdateProfile } from '../../application/profile/UpdateProfile.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { Logger } from 'pino';
import type { Config } from '../config/schema.js';
import { token, TOKENS } from '../tokens.js';
import type { FeatureModule } from './FeatureModule.js';

/**
 * The users feature's tokens. A user's credentials (the password hasher), sessions (refresh tokens
 * and session records, gone with the user) and e-mailed links belong to it; the auth and account
 * modules build on them.
 */
export const UserTokens = {
  Repository: token<UserRepository>('users.Repository'),
  /** The repository's cache (the same object). */
  Cache: token<CachingUserRepository>('users.Cache'),
  /** Where changes of a user meet the caches that must forget it; the service keeps it in step with other instances. */
  Changes: token<UserChanges>('users.Changes'),
  PasswordHasher: token<PasswordHasher>('users.PasswordHasher'),
  RefreshTokenStore: token<RefreshTokenStore>('users.RefreshTokenStore'),
  Sessions: token<SessionStore>('users.Sessions'),
  /** The one lookup of every authenticated request: the user, if its session is active (remembered for a second). */
  Callers: token<CallerLookup>('users.Callers'),
  SessionEnder: token<SessionEnder>('users.SessionEnder'),
  EmailTokens: token<EmailTokenStore>('users.EmailTokens'),
  /** Mail sent after an answer (verification and reset links); shutdown waits for it. */
  Background: token<BackgroundWork>('users.Background'),
  AccountLinks: token<AccountLinks>('users.AccountLinks'),
  UseCases: token<UserUseCases>('users.UseCases'),
} as const;

/**
 * Users, profile and the admin API (docs/authentication.md and docs/access-rules.md), always served. Its migration creates the
 * service's core tables (users, refresh tokens, access rules, app meta) as it always has.
 */
export const users: FeatureModule = {
  name: 'users',
  bindings: new ContainerModule(({ bind }) => {
    bind(UserTokens.Changes).toResolvedValue(() => new UserChanges());
    bind(UserTokens.Cache).toResolvedValue(
      (database: Database, changes: UserChanges) => {
        const cache = new CachingUserRepository(new MikroOrmUserRepository(database));
        changes.register((id) => cache.forget(id));
        cache.onWrite((id) => changes.changed(id));
        return cache;
      },
      [TOKENS.Database, UserTokens.Changes],
    );
    bind(UserTokens.Callers).toResolvedValue(
      (database: Database, changes: UserChanges): CallerLookup => {
        const callers = new CachingCallerLookup(new SqlCallerLookup(database));
        changes.register((id) => callers.forgetUser(id));
        return callers;
      },
      [TOKENS.Database, UserTokens.Changes],
    );
    bind(UserTokens.Sessions).toResolvedValue(
      (database: Database, changes: UserChanges): SessionStore =>
        new AnnouncingSessionStore(new MikroOrmSessionStore(database), (userId) => changes.changed(userId)),
      [TOKENS.Database, UserTokens.Changes],
    );
    bind(UserTokens.SessionEnder).toResolvedValue(
      (sessions: SessionStore, refreshTokens: RefreshTokenStore, clock: Clock) =>
        new SessionEnder(sessions, refreshTokens, clock),
      [UserTokens.Sessions, UserTokens.RefreshTokenStore, TOKENS.Clock],
    );
    bind(UserTokens.EmailTokens).toResolvedValue(
      (database: Database): EmailTokenStore => new MikroOrmEmailTokenStore(database),
      [TOKENS.Database],
    );
    bind(UserTokens.Background).toResolvedValue(
      (logger: Logger) => new BackgroundWork((what, error) => logger.error({ err: error }, `failed ${what}`)),
      [TOKENS.Logger],
    );
    bind(UserTokens.AccountLinks).toResolvedValue(
      (tokens: EmailTokenStore, mailer: Mailer, clock: Clock, background: BackgroundWork, config: Config) =>
        new AccountLinks(
          tokens,
          new RandomOneTimeSecrets(),
          mailer,
          clock,
          background,
          config.account.mailsPerIpPerHour,
        ),
      [UserTokens.EmailTokens, TOKENS.Mailer, TOKENS.Clock, UserTokens.Background, TOKENS.Config],
    );
    bind(UserTokens.Repository).toService(UserTokens.Cache);
    bind(UserTokens.PasswordHasher).toResolvedValue(
      (config: Config): PasswordHasher => new BcryptPasswordHasher(config.auth.bcryptCost),
      [TOKENS.Config],
    );
    bind(UserTokens.RefreshTokenStore).toResolvedValue(
      (database: Database, metrics: ServiceMetrics | null): RefreshTokenStore => {
        const store = new MikroOrmRefreshTokenStore(database);
        return metrics ? new MeteredRefreshTokenStore(store, metrics.refreshTokenReuse) : store;
      },
      [TOKENS.Database, TOKENS.Metrics],
    );
    bind(UserTokens.UseCases).toResolvedValue(
      (
        authenticate: Authenticate,
        users: UserRepository,
        hasher: PasswordHasher,
        store: RefreshTokenStore,
        policy: AccessPolicy,
        clock: Clock,
        ender: SessionEnder,
        links: AccountLinks,
        throttle: LoginThrottle,
      ): UserUseCases => ({
        authenticate,
        policy,
        getProfile: new GetProfile(users),
        updateProfile: new UpdateProfile(users, hasher, clock, ender, links, throttle),
        endUserSessions: new EndAllSessions(users, ender),
        listUsers: new ListUsers(users),
        getUser: new GetUser(users),
        changeUserRole: new ChangeUserRole(users, policy, clock),
        deleteUser: new DeleteUser(users, store),
        listPolicies: new ListPolicies(policy),
        addPolicy: new AddPolicy(policy),
        removePolicy: new RemovePolicy(policy),
      }),
      [
        TOKENS.Authenticate,
        UserTokens.Repository,
        UserTokens.PasswordHasher,
        UserTokens.RefreshTokenStore,
        TOKENS.AccessPolicy,
        TOKENS.Clock,
        UserTokens.SessionEnder,
        UserTokens.AccountLinks,
        TOKENS.LoginThrottle,
      ],
    );
  }),
  entities: [
    UserSchema,
    RefreshTokenSchema,
    SessionSchema,
    EmailTokenSchema,
    AccessRuleSchema,
    AppMetaSchema,
  ] as EntitySchema[],
  migrations: [
    { name: 'Migration0001Users', class: Migration0001Users },
    { name: 'Migration0003AccountLifecycle', class: Migration0003AccountLifecycle },
    { name: 'Migration0004AccountMailLimits', class: Migration0004AccountMailLimits },
  ],
  rest: {
    always: true,
    operations: Object.values(USER_OPERATIONS),
    routes: (container) => userRoutes(container.get(UserTokens.UseCases)),
  },
};
