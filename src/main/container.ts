import { randomUUID } from 'node:crypto';
import { dirname } from 'node:path';
import { Container } from 'inversify';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { AcceptQueueMonitor } from '../adapters/inbound/http/acceptQueue.js';
import { createHttpApp, type RouteModule } from '../adapters/inbound/http/app.js';
import { healthRoutes } from '../adapters/inbound/http/routes/health.js';
import { CacheHealthCheck } from '../adapters/outbound/health/CacheHealthCheck.js';
import { DatabaseHealthCheck } from '../adapters/outbound/health/DatabaseHealthCheck.js';
import { DiskHealthCheck } from '../adapters/outbound/health/DiskHealthCheck.js';
import { EventLoopHealthCheck, type EventLoopDelayMonitor } from '../adapters/outbound/health/EventLoopHealthCheck.js';
import { HttpHealthCheck } from '../adapters/outbound/health/HttpHealthCheck.js';
import type { Database } from '../adapters/outbound/mikroorm/database.js';
import { SystemClock } from '../adapters/outbound/system/SystemClock.js';
import { CheckHealth, type Lifecycle } from '../application/health/CheckHealth.js';
import { HealthCheckRegistry } from '../application/health/HealthCheckRegistry.js';
import type { Clock } from '../application/ports/Clock.js';
import type { Config } from './config/schema.js';
import { authRoutes, type AuthUseCases } from '../adapters/inbound/http/routes/auth.js';
import { userRoutes, type UserUseCases } from '../adapters/inbound/http/routes/users.js';
import { productRoutes } from '../adapters/inbound/http/routes/products.js';
import type { ProductUseCases } from '../adapters/inbound/productUseCases.js';
import { graphqlRoutes } from '../adapters/inbound/graphql/routes.js';
import { MikroOrmProductRepository } from '../adapters/outbound/mikroorm/MikroOrmProductRepository.js';
import { CreateProduct } from '../application/product/CreateProduct.js';
import { DeleteProduct } from '../application/product/DeleteProduct.js';
import { GetProduct } from '../application/product/GetProduct.js';
import { ListProducts } from '../application/product/ListProducts.js';
import { SearchProducts } from '../application/product/SearchProducts.js';
import { UpdateProduct } from '../application/product/UpdateProduct.js';
import type { ProductRepository } from '../domain/product/ProductRepository.js';
import { BcryptPasswordHasher } from '../adapters/outbound/crypto/BcryptPasswordHasher.js';
import { JwtTokenIssuer } from '../adapters/outbound/crypto/JwtTokenIssuer.js';
import { MikroOrmRefreshTokenStore } from '../adapters/outbound/mikroorm/MikroOrmRefreshTokenStore.js';
import { MikroOrmUserRepository } from '../adapters/outbound/mikroorm/MikroOrmUserRepository.js';
import { CachingUserRepository } from '../adapters/outbound/cache/CachingUserRepository.js';
import { UuidGenerator } from '../adapters/outbound/system/UuidGenerator.js';
import { RateLimiterLoginThrottle } from '../adapters/outbound/throttle/RateLimiterLoginThrottle.js';
import { AddPolicy } from '../application/admin/AddPolicy.js';
import { ChangeUserRole } from '../application/admin/ChangeUserRole.js';
import { DeleteUser } from '../application/admin/DeleteUser.js';
import { GetUser } from '../application/admin/GetUser.js';
import { ListPolicies } from '../application/admin/ListPolicies.js';
import { ListUsers } from '../application/admin/ListUsers.js';
import { RemovePolicy } from '../application/admin/RemovePolicy.js';
import { Authenticate } from '../application/auth/Authenticate.js';
import { LoginUser } from '../application/auth/LoginUser.js';
import { Logout } from '../application/auth/Logout.js';
import { RefreshSession } from '../application/auth/RefreshSession.js';
import { RegisterUser } from '../application/auth/RegisterUser.js';
import { SessionIssuer } from '../application/auth/SessionIssuer.js';
import type { AccessPolicy } from '../application/ports/AccessPolicy.js';
import type { IdGenerator } from '../application/ports/IdGenerator.js';
import type { LoginThrottle } from '../application/ports/LoginThrottle.js';
import type { PasswordHasher } from '../application/ports/PasswordHasher.js';
import type { RefreshTokenStore } from '../application/ports/RefreshTokenStore.js';
import type { TokenIssuer } from '../application/ports/TokenIssuer.js';
import { GetProfile } from '../application/profile/GetProfile.js';
import { UpdateProfile } from '../application/profile/UpdateProfile.js';
import type { UserRepository } from '../domain/user/UserRepository.js';
import { TOKENS } from './tokens.js';

/** What exists before the container: configuration and what was opened or loaded at start. */
export interface Infrastructure {
  config: Config;
  logger: Logger;
  database: Database;
  redis: Redis | null;
  lifecycle: Lifecycle;
  startedAt: Date;
  accessPolicy: AccessPolicy;
  /** The one event-loop delay monitor, shared by the `event_loop` check and load shedding. */
  eventLoop: EventLoopDelayMonitor;
  /** The listening socket's accept queue, watched once the server listens; load shedding reads it. */
  acceptQueue?: AcceptQueueMonitor;
}

/** The disk check's default: the SQLite file's directory (the database's own volume), else the working directory. */
function diskPathOf(target: Database['target']): string {
  return target.kind === 'sqlite' && target.file !== ':memory:' ? dirname(target.file) || '.' : '.';
}

function buildRegistry(config: Config, database: Database, redis: Redis | null, eventLoop: EventLoopDelayMonitor): HealthCheckRegistry {
  const registry = new HealthCheckRegistry();
  // Liveness never depends on the database or other dependencies: a restart would not fix them.
  // Critical: without it no API call can succeed, so readiness must send traffic elsewhere. The
  // cache is not (the limiter fails open), nor is a slow event loop.
  registry.register(new DatabaseHealthCheck(database), 'readiness', { critical: true });
  if (redis) registry.register(new CacheHealthCheck(redis), 'readiness');
  for (const http of config.health.http) {
    registry.register(new HttpHealthCheck(http.name, http.url, http.timeoutMs), 'readiness', { critical: http.critical });
  }
  const diskPath = config.health.disk.path || diskPathOf(database.target);
  registry.register(new DiskHealthCheck(diskPath, config.health.disk.minFreeBytes), 'readiness', { critical: true });
  registry.register(new EventLoopHealthCheck(200, eventLoop), 'both');
  return registry;
}

function buildRateLimiter(config: Config, redis: Redis | null): RateLimiterAbstract | null {
  if (!config.rateLimit.enabled) return null;
  const { points, windowSeconds } = config.rateLimit.rate;
  if (config.rateLimit.store === 'redis' && redis) {
    return new RateLimiterRedis({ storeClient: redis, points, duration: windowSeconds, keyPrefix: 'portico:rl', rejectIfRedisNotReady: true });
  }
  return new RateLimiterMemory({ points, duration: windowSeconds, keyPrefix: 'portico:rl' });
}

/** The composition root: every port bound to its adapter, every use case to its ports. */
export function buildContainer(infra: Infrastructure): Container {
  const container = new Container({ defaultScope: 'Singleton' });
  container.bind(TOKENS.Config).toConstantValue(infra.config);
  container.bind(TOKENS.Logger).toConstantValue(infra.logger);
  container.bind(TOKENS.Database).toConstantValue(infra.database);
  container.bind(TOKENS.Redis).toConstantValue(infra.redis);
  container.bind(TOKENS.Lifecycle).toConstantValue(infra.lifecycle);
  container.bind(TOKENS.Clock).toResolvedValue((): Clock => new SystemClock());

  container
    .bind(TOKENS.HealthCheckRegistry)
    .toResolvedValue((config: Config, database: Database, redis: Redis | null) => buildRegistry(config, database, redis, infra.eventLoop), [
      TOKENS.Config,
      TOKENS.Database,
      TOKENS.Redis,
    ]);
  container
    .bind(TOKENS.CheckHealth)
    .toResolvedValue(
      (registry: HealthCheckRegistry, clock: Clock, lifecycle: Lifecycle, config: Config) =>
        new CheckHealth(registry, clock, lifecycle, { checkTimeoutMs: config.health.checkTimeoutMs, startedAt: infra.startedAt }),
      [TOKENS.HealthCheckRegistry, TOKENS.Clock, TOKENS.Lifecycle, TOKENS.Config],
    );
  container
    .bind(TOKENS.RateLimiter)
    .toResolvedValue((config: Config, redis: Redis | null) => buildRateLimiter(config, redis), [TOKENS.Config, TOKENS.Redis]);
  bindAuth(container, infra);
  bindProducts(container, infra);
  container
    .bind(TOKENS.RouteModules)
    .toResolvedValue(
      (config: Config, checkHealth: CheckHealth, auth: AuthUseCases, users: UserUseCases, products: ProductUseCases): RouteModule[] => {
        const { mode } = config.api;
        // Health, auth, profile and admin are always there; `api.mode` decides the resource APIs.
        const modules = [healthRoutes(checkHealth), authRoutes(auth), userRoutes(users)];
        if (mode === 'rest' || mode === 'both') modules.push(productRoutes(products));
        if (mode === 'graphql' || mode === 'both') modules.push(graphqlRoutes(products, config.graphql));
        return modules;
      },
      [TOKENS.Config, TOKENS.CheckHealth, TOKENS.AuthUseCases, TOKENS.UserUseCases, TOKENS.ProductUseCases],
    );
  const { acceptQueue } = infra;
  container.bind(TOKENS.HttpApp).toResolvedValue(
    (config: Config, logger: Logger, limiter: RateLimiterAbstract | null, routes: RouteModule[]) =>
      createHttpApp({
        logger,
        trustProxy: config.server.trustProxy,
        trustProxyHops: config.server.trustProxyHops,
        requestTimeoutMs: config.server.requestTimeoutMs,
        bodyLimitBytes: config.server.bodyLimitBytes,
        cors: config.cors,
        rateLimiter: limiter,
        newRequestId: randomUUID,
        routes,
        shedding: {
          maxInFlight: config.server.maxInFlight,
          maxEventLoopDelayMs: config.server.maxEventLoopDelayMs,
          eventLoopDelayMs: () => infra.eventLoop.recentDelayMs(),
          ...(acceptQueue ? { acceptQueue: () => acceptQueue.snapshot() } : {}),
        },
      }),
    [TOKENS.Config, TOKENS.Logger, TOKENS.RateLimiter, TOKENS.RouteModules],
  );
  return container;
}

function buildLoginLimiter(config: Config, redis: Redis | null): RateLimiterAbstract {
  const options = { points: config.auth.loginMaxFailures, duration: Math.ceil(config.auth.loginWindowMs / 1000), keyPrefix: 'portico:login' };
  return redis ? new RateLimiterRedis({ ...options, storeClient: redis, rejectIfRedisNotReady: true }) : new RateLimiterMemory(options);
}

/** Users, authentication and access control: adapters for their ports, then the use cases. */
function bindAuth(container: Container, infra: Infrastructure): void {
  const { config, database } = infra;
  container.bind(TOKENS.IdGenerator).toResolvedValue((): IdGenerator => new UuidGenerator());
  container.bind(TOKENS.PasswordHasher).toResolvedValue((): PasswordHasher => new BcryptPasswordHasher(config.auth.bcryptCost));
  container.bind(TOKENS.TokenIssuer).toResolvedValue(
    (): TokenIssuer =>
      new JwtTokenIssuer({ secret: config.jwt.secret, issuer: config.jwt.issuer, accessTtlMs: config.jwt.expirationMs, refreshTtlMs: config.jwt.refreshExpirationMs }),
  );
  container.bind(TOKENS.UserRepository).toResolvedValue((): UserRepository => new CachingUserRepository(new MikroOrmUserRepository(database.orm)));
  container.bind(TOKENS.RefreshTokenStore).toResolvedValue((): RefreshTokenStore => new MikroOrmRefreshTokenStore(database.orm));
  container.bind(TOKENS.AccessPolicy).toConstantValue(infra.accessPolicy);
  container
    .bind(TOKENS.LoginThrottle)
    .toResolvedValue((redis: Redis | null): LoginThrottle => new RateLimiterLoginThrottle(buildLoginLimiter(config, redis)), [TOKENS.Redis]);
  container
    .bind(TOKENS.SessionIssuer)
    .toResolvedValue(
      (tokens: TokenIssuer, store: RefreshTokenStore, ids: IdGenerator) => new SessionIssuer(tokens, store, ids),
      [TOKENS.TokenIssuer, TOKENS.RefreshTokenStore, TOKENS.IdGenerator],
    );
  container
    .bind(TOKENS.RegisterUser)
    .toResolvedValue(
      (users: UserRepository, hasher: PasswordHasher, ids: IdGenerator, clock: Clock, sessions: SessionIssuer) =>
        new RegisterUser(users, hasher, ids, clock, sessions),
      [TOKENS.UserRepository, TOKENS.PasswordHasher, TOKENS.IdGenerator, TOKENS.Clock, TOKENS.SessionIssuer],
    );
  container.bind(TOKENS.AuthUseCases).toResolvedValue(
    (
      users: UserRepository,
      hasher: PasswordHasher,
      tokens: TokenIssuer,
      store: RefreshTokenStore,
      throttle: LoginThrottle,
      sessions: SessionIssuer,
      clock: Clock,
      register: RegisterUser,
    ): AuthUseCases => ({
      register,
      login: new LoginUser(users, hasher, throttle, sessions),
      refresh: new RefreshSession(tokens, store, users, sessions, clock),
      logout: new Logout(tokens, store, clock),
      authenticate: new Authenticate(tokens, users),
    }),
    [
      TOKENS.UserRepository,
      TOKENS.PasswordHasher,
      TOKENS.TokenIssuer,
      TOKENS.RefreshTokenStore,
      TOKENS.LoginThrottle,
      TOKENS.SessionIssuer,
      TOKENS.Clock,
      TOKENS.RegisterUser,
    ],
  );
  container.bind(TOKENS.UserUseCases).toResolvedValue(
    (auth: AuthUseCases, users: UserRepository, hasher: PasswordHasher, store: RefreshTokenStore, policy: AccessPolicy, clock: Clock): UserUseCases => ({
      authenticate: auth.authenticate,
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
    [TOKENS.AuthUseCases, TOKENS.UserRepository, TOKENS.PasswordHasher, TOKENS.RefreshTokenStore, TOKENS.AccessPolicy, TOKENS.Clock],
  );
}

/** The product resource: its repository and use cases. */
function bindProducts(container: Container, infra: Infrastructure): void {
  container.bind(TOKENS.ProductRepository).toResolvedValue((): ProductRepository => new MikroOrmProductRepository(infra.database.orm));
  container.bind(TOKENS.ProductUseCases).toResolvedValue(
    (products: ProductRepository, auth: AuthUseCases, policy: AccessPolicy, ids: IdGenerator, clock: Clock): ProductUseCases => ({
      authenticate: auth.authenticate,
      policy,
      create: new CreateProduct(products, ids, clock),
      get: new GetProduct(products),
      list: new ListProducts(products),
      search: new SearchProducts(products),
      update: new UpdateProduct(products, clock),
      remove: new DeleteProduct(products),
    }),
    [TOKENS.ProductRepository, TOKENS.AuthUseCases, TOKENS.AccessPolicy, TOKENS.IdGenerator, TOKENS.Clock],
  );
}
