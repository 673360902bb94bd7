import type { EntitySchema } from '@mikro-orm/core';
import { ContainerModule } from 'inversify';
import { USER_OPERATIONS, userRoutes, type UserUseCases } from '../../adapters/inbound/http/routes/users.js';
import { CachingUserRepository } from '../../adapters/outbound/cache/CachingUserRepository.js';
import { BcryptPasswordHasher } from '../../adapters/outbound/crypto/BcryptPasswordHasher.js';
import type { Database } from '../../adapters/outbound/mikroorm/database.js';
import { Migration0001Users } from '../../adapters/outbound/mikroorm/migrations/Migration0001Users.js';
import { Migration0003AccountLifecycle } from '../../adapters/outbound/mikroorm/migrations/Migration0003AccountLifecycle.js';
import { MikroOrmRefreshTokenStore } from '../../adapters/outbound/mikroorm/MikroOrmRefreshTokenStore.js';
import { MeteredRefreshTokenStore } from '../../adapters/outbound/metrics/MeteredRefreshTokenStore.js';
import type { ServiceMetrics } from '../../adapters/inbound/metrics/ServiceMetrics.js';
import { MikroOrmUserRepository } from '../../adapters/outbound/mikroorm/MikroOrmUserRepository.js';
import { AccessRuleSchema, AppMetaSchema } from '../../adapters/outbound/mikroorm/schemas/AccessRuleSchema.js';
import { EmailTokenSchema } from '../../adapters/outbound/mikroorm/schemas/EmailTokenSchema.js';
import { RefreshTokenSchema } from '../../adapters/outbound/mikroorm/schemas/RefreshTokenSchema.js';
import { SessionSchema } from '../../adapters/outbound/mikroorm/schemas/SessionSchema.js';
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
import type { Config } from '../config/schema.js';
import { token, TOKENS } from '../tokens.js';
import type { FeatureModule } from './FeatureModule.js';

/**
 * The users feature's tokens. A user's credentials (the password hasher) and sessions (refresh
 * tokens, deleted with the user) belong to it; the auth module builds on them.
 */
export const UserTokens = {
  Repository: token<UserRepository>('users.Repository'),
  /** The repository's cache (the same object), which the service keeps in step with other instances. */
  Cache: token<CachingUserRepository>('users.Cache'),
  PasswordHasher: token<PasswordHasher>('users.PasswordHasher'),
  RefreshTokenStore: token<RefreshTokenStore>('users.RefreshTokenStore'),
  UseCases: token<UserUseCases>('users.UseCases'),
} as const;

/**
 * Users, profile and the admin API (CONTRACT §5, §7), always served. Its migration creates the
 * service's core tables (users, refresh tokens, access rules, app meta) as it always has.
 */
export const users: FeatureModule = {
  name: 'users',
  bindings: new ContainerModule(({ bind }) => {
    bind(UserTokens.Cache).toResolvedValue(
      (database: Database) => new CachingUserRepository(new MikroOrmUserRepository(database.orm)),
      [TOKENS.Database],
    );
    bind(UserTokens.Repository).toService(UserTokens.Cache);
    bind(UserTokens.PasswordHasher).toResolvedValue(
      (config: Config): PasswordHasher => new BcryptPasswordHasher(config.auth.bcryptCost),
      [TOKENS.Config],
    );
    bind(UserTokens.RefreshTokenStore).toResolvedValue(
      (database: Database, metrics: ServiceMetrics | null): RefreshTokenStore => {
        const store = new MikroOrmRefreshTokenStore(database.orm);
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
      ): UserUseCases => ({
        authenticate,
        policy,
        getProfile: new GetProfile(users),
        updateProfile: new UpdateProfile(users, hasher, clock),
        listUsers: new ListUsers(users),
        getUser: new GetUser(users),
        changeUserRole: new ChangeUserRole(users, policy, clock),
        deleteUser: new DeleteUser(users, store),
        listPolicies: new ListPolicies(policy),
        addPolicy: new AddPolicy(policy),
        removePolicy: new RemovePolicy(policy),
      }),
      [TOKENS.Authenticate, UserTokens.Repository, UserTokens.PasswordHasher, UserTokens.RefreshTokenStore, TOKENS.AccessPolicy, TOKENS.Clock],
    );
  }),
  entities: [UserSchema, RefreshTokenSchema, SessionSchema, EmailTokenSchema, AccessRuleSchema, AppMetaSchema] as EntitySchema[],
  migrations: [
    { name: 'Migration0001Users', class: Migration0001Users },
    { name: 'Migration0003AccountLifecycle', class: Migration0003AccountLifecycle },
  ],
  rest: { always: true, operations: Object.values(USER_OPERATIONS), routes: (container) => userRoutes(container.get(UserTokens.UseCases)) },
};
