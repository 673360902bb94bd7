import type { EntitySchema } from '@mikro-orm/core';
import { ContainerModule } from 'inversify';
import { bindBuilt, built } from './built.js';
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
import type { SessionStore } from '../../application/ports/SessionStore.js';
import { BcryptPasswordHasher } from '../../adapters/outbound/crypto/BcryptPasswordHasher.js';
import { Migration0001Users } from '../../adapters/outbound/mikroorm/migrations/Migration0001Users.js';
import { MikroOrmRefreshTokenStore } from '../../adapters/outbound/mikroorm/MikroOrmRefreshTokenStore.js';
import { MeteredRefreshTokenStore } from '../../adapters/outbound/metrics/MeteredRefreshTokenStore.js';
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
import type { PasswordHasher } from '../../application/ports/PasswordHasher.js';
import type { RefreshTokenStore } from '../../application/ports/RefreshTokenStore.js';
import { GetProfile } from '../../application/profile/GetProfile.js';
import { UpdateProfile } from '../../application/profile/UpdateProfile.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
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
    bindBuilt(
      bind(UserTokens.Changes),
      built({}, () => new UserChanges()),
    );
    bindBuilt(
      bind(UserTokens.Cache),
      built({ database: TOKENS.Database, changes: UserTokens.Changes }, ({ database, changes }) => {
        const cache = new CachingUserRepository(new MikroOrmUserRepository(database));
        changes.register((id) => cache.forget(id));
        cache.onWrite((id) => changes.changed(id));
        return cache;
      }),
    );
    bindBuilt(
      bind(UserTokens.Callers),
      built({ database: TOKENS.Database, changes: UserTokens.Changes }, ({ database, changes }): CallerLookup => {
        const callers = new CachingCallerLookup(new SqlCallerLookup(database));
        changes.register((id) => callers.forgetUser(id));
        return callers;
      }),
    );
    bindBuilt(
      bind(UserTokens.Sessions),
      built(
        { database: TOKENS.Database, changes: UserTokens.Changes },
        ({ database, changes }): SessionStore =>
          new AnnouncingSessionStore(new MikroOrmSessionStore(database), (userId) => changes.changed(userId)),
      ),
    );
    bindBuilt(
      bind(UserTokens.SessionEnder),
      built(
        { sessions: UserTokens.Sessions, refreshTokens: UserTokens.RefreshTokenStore, clock: TOKENS.Clock },
        ({ sessions, refreshTokens, clock }) => new SessionEnder(sessions, refreshTokens, clock),
      ),
    );
    bindBuilt(
      bind(UserTokens.EmailTokens),
      built({ database: TOKENS.Database }, ({ database }): EmailTokenStore => new MikroOrmEmailTokenStore(database)),
    );
    bindBuilt(
      bind(UserTokens.Background),
      built(
        { logger: TOKENS.Logger },
        ({ logger }) => new BackgroundWork((what, error) => logger.error({ err: error }, `failed ${what}`)),
      ),
    );
    bindBuilt(
      bind(UserTokens.AccountLinks),
      built(
        {
          tokens: UserTokens.EmailTokens,
          mailer: TOKENS.Mailer,
          clock: TOKENS.Clock,
          background: UserTokens.Background,
          config: TOKENS.Config,
        },
        ({ tokens, mailer, clock, background, config }) =>
          new AccountLinks(
            tokens,
            new RandomOneTimeSecrets(),
            mailer,
            clock,
            background,
            config.account.mailsPerIpPerHour,
          ),
      ),
    );
    bind(UserTokens.Repository).toService(UserTokens.Cache);
    bindBuilt(
      bind(UserTokens.PasswordHasher),
      built(
        { config: TOKENS.Config },
        ({ config }): PasswordHasher => new BcryptPasswordHasher(config.auth.bcryptCost),
      ),
    );
    bindBuilt(
      bind(UserTokens.RefreshTokenStore),
      built({ database: TOKENS.Database, metrics: TOKENS.Metrics }, ({ database, metrics }): RefreshTokenStore => {
        const store = new MikroOrmRefreshTokenStore(database);
        return metrics ? new MeteredRefreshTokenStore(store, metrics.refreshTokenReuse) : store;
      }),
    );
    bindBuilt(
      bind(UserTokens.UseCases),
      built(
        {
          authenticate: TOKENS.Authenticate,
          users: UserTokens.Repository,
          hasher: UserTokens.PasswordHasher,
          store: UserTokens.RefreshTokenStore,
          policy: TOKENS.AccessPolicy,
          clock: TOKENS.Clock,
          ender: UserTokens.SessionEnder,
          links: UserTokens.AccountLinks,
          throttle: TOKENS.LoginThrottle,
        },
        ({ authenticate, users, hasher, store, policy, clock, ender, links, throttle }): UserUseCases => ({
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
      ),
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
    routes: built({ uses: UserTokens.UseCases }, ({ uses }) => userRoutes(uses)),
  },
};
