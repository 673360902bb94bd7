import type { EntitySchema } from '@mikro-orm/core';
import { ContainerModule } from 'inversify';
import { bindBuilt, built } from './built.js';
import { USER_OPERATIONS, userRoutes, type UserUseCases } from '../../adapters/inbound/http/routes/users.js';
import { CachingCallerLookup } from '../../adapters/outbound/cache/CachingCallerLookup.js';
import { CachingUserRepository } from '../../adapters/outbound/cache/CachingUserRepository.js';
import { UserChanges } from '../../adapters/outbound/cache/UserChanges.js';
import { SqlCallerLookup } from '../../adapters/outbound/mikroorm/SqlCallerLookup.js';
import { EndAllSessions } from '../../application/account/EndAllSessions.js';
import type { CallerLookup } from '../../application/ports/CallerLookup.js';
import { BcryptPasswordHasher } from '../../adapters/outbound/crypto/BcryptPasswordHasher.js';
import { Migration0001Users } from '../../adapters/outbound/mikroorm/migrations/Migration0001Users.js';
import { MikroOrmUserRepository } from '../../adapters/outbound/mikroorm/MikroOrmUserRepository.js';
import { AccessRuleSchema, AppMetaSchema } from '../../adapters/outbound/mikroorm/schemas/AccessRuleSchema.js';
import { UserSchema } from '../../adapters/outbound/mikroorm/schemas/UserSchema.js';
import { ChangeUserRole } from '../../application/admin/ChangeUserRole.js';
import { DeleteUser } from '../../application/admin/DeleteUser.js';
import { GetUser } from '../../application/admin/GetUser.js';
import { ListUsers } from '../../application/admin/ListUsers.js';
import type { PasswordHasher } from '../../application/ports/PasswordHasher.js';
import { GetProfile } from '../../application/profile/GetProfile.js';
import { UpdateProfile } from '../../application/profile/UpdateProfile.js';
import { TOKENS } from '../wiring/tokens.js';
import { MailTokens, SessionTokens, UserTokens } from './identityTokens.js';
import type { FeatureModule } from './FeatureModule.js';

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
    bind(UserTokens.Repository).toService(UserTokens.Cache);
    bindBuilt(
      bind(UserTokens.PasswordHasher),
      built(
        { config: TOKENS.Config },
        ({ config }): PasswordHasher => new BcryptPasswordHasher(config.auth.bcryptCost),
      ),
    );
    bindBuilt(
      bind(UserTokens.UseCases),
      built(
        {
          authenticate: TOKENS.Authenticate,
          users: UserTokens.Repository,
          hasher: UserTokens.PasswordHasher,
          store: SessionTokens.RefreshTokenStore,
          policy: TOKENS.AccessPolicy,
          clock: TOKENS.Clock,
          ender: SessionTokens.SessionEnder,
          links: MailTokens.AccountLinks,
          throttle: TOKENS.LoginThrottle,
          transactions: TOKENS.Transactions,
        },
        ({
          authenticate,
          users,
          hasher,
          store,
          policy,
          clock,
          ender,
          links,
          throttle,
          transactions,
        }): UserUseCases => ({
          authenticate,
          policy,
          getProfile: new GetProfile(users),
          updateProfile: new UpdateProfile(users, hasher, clock, ender, links, throttle, transactions),
          endUserSessions: new EndAllSessions(users, ender),
          listUsers: new ListUsers(users),
          getUser: new GetUser(users),
          changeUserRole: new ChangeUserRole(users, policy, clock),
          deleteUser: new DeleteUser(users, store),
        }),
      ),
    );
  }),
  entities: [UserSchema, AccessRuleSchema, AppMetaSchema] as EntitySchema[],
  migrations: [{ name: 'Migration0001Users', class: Migration0001Users }],
  rest: {
    always: true,
    operations: Object.values(USER_OPERATIONS),
    routes: built({ uses: UserTokens.UseCases }, ({ uses }) => userRoutes(uses)),
  },
};
