import type { EntitySchema } from '@mikro-orm/core';
import { ContainerModule, type Bind } from 'inversify';
import { bindBuilt, built } from './built.js';
import { USER_OPERATIONS, userRoutes, type UserUseCases } from '../../adapters/inbound/http/routes/users.js';
import { CachingCallerLookup } from '../../adapters/outbound/cache/CachingCallerLookup.js';
import { CachingUserRepository } from '../../adapters/outbound/cache/CachingUserRepository.js';
import { SqlCallerLookup } from '../../adapters/outbound/mikroorm/SqlCallerLookup.js';
import { EndAllSessions } from '../../application/account/EndAllSessions.js';
import type { CallerLookup } from '../../application/ports/CallerLookup.js';
import { BcryptPasswordHasher } from '../../adapters/outbound/crypto/BcryptPasswordHasher.js';
import { MikroOrmUserRepository } from '../../adapters/outbound/mikroorm/MikroOrmUserRepository.js';
import { AccessRuleSchema, AppMetaSchema } from '../../adapters/outbound/mikroorm/schemas/AccessRuleSchema.js';
import { UserSchema } from '../../adapters/outbound/mikroorm/schemas/UserSchema.js';
import { ChangeUserRole } from '../../application/admin/ChangeUserRole.js';
import { CreateUser } from '../../application/admin/CreateUser.js';
import { DeleteUser } from '../../application/admin/DeleteUser.js';
import { GetUser } from '../../application/admin/GetUser.js';
import { ListUsers } from '../../application/admin/ListUsers.js';
import type { PasswordHasher } from '../../application/ports/PasswordHasher.js';
import { GetProfile } from '../../application/profile/GetProfile.js';
import { UpdateProfile } from '../../application/profile/UpdateProfile.js';
import { TOKENS } from '../wiring/tokens.js';
import { MailTokens, SessionTokens, UserTokens } from './identityTokens.js';
import type { FeatureModule } from './FeatureModule.js';

/** The users and the caller lookup, through the process's cache (a user's write forgets both everywhere), and their password hashes. */
function bindUsers(bind: Bind): void {
  const cached = { database: TOKENS.Database, cache: TOKENS.Cache, fresh: TOKENS.FreshReads } as const;
  bindBuilt(
    bind(UserTokens.Repository),
    built(
      cached,
      ({ database, cache, fresh }) => new CachingUserRepository(new MikroOrmUserRepository(database), cache, fresh),
    ),
  );
  bindBuilt(
    bind(UserTokens.Callers),
    built(
      cached,
      ({ database, cache, fresh }): CallerLookup =>
        new CachingCallerLookup(new SqlCallerLookup(database), cache, fresh),
    ),
  );
  bindBuilt(
    bind(UserTokens.PasswordHasher),
    built({ config: TOKENS.Config }, ({ config }): PasswordHasher => new BcryptPasswordHasher(config.auth.bcryptCost)),
  );
}

/** The use cases the profile and admin routes serve. */
const useCases = built(
  {
    authenticate: TOKENS.Authenticate,
    users: UserTokens.Repository,
    hasher: UserTokens.PasswordHasher,
    refreshTokens: SessionTokens.RefreshTokenStore,
    policy: TOKENS.AccessPolicy,
    clock: TOKENS.Clock,
    ender: SessionTokens.SessionEnder,
    links: MailTokens.AccountLinks,
    throttle: TOKENS.LoginThrottle,
    transactions: TOKENS.Transactions,
  },
  (deps): UserUseCases => {
    const { users, policy, clock, ender } = deps;
    return {
      authenticate: deps.authenticate,
      policy,
      getProfile: new GetProfile(users),
      updateProfile: new UpdateProfile(deps),
      endUserSessions: new EndAllSessions(users, ender),
      listUsers: new ListUsers(users),
      getUser: new GetUser(users),
      changeUserRole: new ChangeUserRole(users, policy, clock),
      deleteUser: new DeleteUser(users, deps.refreshTokens),
    };
  },
);

/** The operator's way to a user of any role (`npm run cli -- users:create`), served by no route. */
const createUser = built(
  {
    users: UserTokens.Repository,
    hasher: UserTokens.PasswordHasher,
    policy: TOKENS.AccessPolicy,
    ids: TOKENS.IdGenerator,
    clock: TOKENS.Clock,
  },
  (deps) => new CreateUser(deps),
);

/**
 * Users, profile and the admin API (docs/authentication.md and docs/access-rules.md), always served. Migration0001Users creates the
 * service's core tables (users, refresh tokens, access rules, app meta) as it always has.
 */
export const users: FeatureModule = {
  name: 'users',
  bindings: new ContainerModule(({ bind }) => {
    bindUsers(bind);
    bindBuilt(bind(UserTokens.UseCases), useCases);
    bindBuilt(bind(UserTokens.CreateUser), createUser);
  }),
  entities: [UserSchema, AccessRuleSchema, AppMetaSchema] as EntitySchema[],
  rest: {
    always: true,
    operations: Object.values(USER_OPERATIONS),
    routes: built({ uses: UserTokens.UseCases }, ({ uses }) => userRoutes(uses)),
  },
};
