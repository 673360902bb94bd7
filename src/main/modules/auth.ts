import { ContainerModule, type Bind } from 'inversify';
import type { EntitySchema } from '@mikro-orm/core';
import { AnnouncingSessionStore } from '../../adapters/outbound/cache/AnnouncingSessionStore.js';
import { forgetUser } from '../../adapters/outbound/cache/CachingUserRepository.js';
import { MeteredRefreshTokenStore } from '../../adapters/outbound/metrics/MeteredRefreshTokenStore.js';
import { MikroOrmRefreshTokenStore } from '../../adapters/outbound/mikroorm/MikroOrmRefreshTokenStore.js';
import { MikroOrmSessionStore } from '../../adapters/outbound/mikroorm/MikroOrmSessionStore.js';
import { RefreshTokenSchema } from '../../adapters/outbound/mikroorm/schemas/RefreshTokenSchema.js';
import { SessionSchema } from '../../adapters/outbound/mikroorm/schemas/SessionSchema.js';
import { SessionEnder } from '../../application/account/SessionEnder.js';
import type { RefreshTokenStore } from '../../application/ports/RefreshTokenStore.js';
import type { SessionStore } from '../../application/ports/SessionStore.js';
import { bindBuilt, built } from './built.js';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { AUTH_OPERATIONS, authRoutes, type AuthUseCases } from '../../adapters/inbound/http/routes/auth.js';
import { JwtTokenIssuer } from '../../adapters/outbound/crypto/JwtTokenIssuer.js';
import { MeteredLoginThrottle } from '../../adapters/outbound/metrics/MeteredLoginThrottle.js';
import { RateLimiterLoginThrottle } from '../../adapters/outbound/throttle/RateLimiterLoginThrottle.js';
import { Authenticate } from '../../application/auth/Authenticate.js';
import { LoginAttempts } from '../../application/auth/LoginAttempts.js';
import { LoginUser } from '../../application/auth/LoginUser.js';
import { Logout } from '../../application/auth/Logout.js';
import { RefreshSession } from '../../application/auth/RefreshSession.js';
import { RegisterUser } from '../../application/auth/RegisterUser.js';
import { SessionIssuer } from '../../application/auth/SessionIssuer.js';
import type { LoginThrottle } from '../../application/ports/LoginThrottle.js';
import type { TokenIssuer } from '../../application/ports/TokenIssuer.js';
import type { Config } from '../config/schema.js';
import { token, TOKENS } from '../wiring/tokens.js';
import type { FeatureModule } from './FeatureModule.js';
import { MailTokens, SessionTokens, SignInTokens, UserTokens } from './identityTokens.js';

export const AuthTokens = {
  TokenIssuer: token<TokenIssuer>('auth.TokenIssuer'),
  UseCases: token<AuthUseCases>('auth.UseCases'),
} as const;

function buildLoginLimiter(config: Config, redis: Redis | null): RateLimiterAbstract {
  const options = {
    points: config.auth.loginMaxFailures,
    duration: Math.ceil(config.auth.loginWindowMs / 1000),
    keyPrefix: 'portico:login',
  };
  return redis
    ? new RateLimiterRedis({ ...options, storeClient: redis, rejectIfRedisNotReady: true })
    : new RateLimiterMemory(options);
}

/** Sessions and their refresh-token families, and how one or all of a user's end (account and users end them too). */
function bindSessions(bind: Bind): void {
  bindBuilt(
    bind(SessionTokens.Sessions),
    built(
      { database: TOKENS.Database, cache: TOKENS.Cache },
      ({ database, cache }): SessionStore =>
        new AnnouncingSessionStore(new MikroOrmSessionStore(database), (userId) => forgetUser(cache, userId)),
    ),
  );
  bindBuilt(
    bind(SessionTokens.RefreshTokenStore),
    built({ database: TOKENS.Database, metrics: TOKENS.Metrics }, ({ database, metrics }): RefreshTokenStore => {
      const store = new MikroOrmRefreshTokenStore(database);
      return metrics ? new MeteredRefreshTokenStore(store, metrics.refreshTokenReuse) : store;
    }),
  );
  bindBuilt(
    bind(SessionTokens.SessionEnder),
    built(
      { sessions: SessionTokens.Sessions, refreshTokens: SessionTokens.RefreshTokenStore, clock: TOKENS.Clock },
      ({ sessions, refreshTokens, clock }) => new SessionEnder(sessions, refreshTokens, clock),
    ),
  );
}

/** What a login spends and earns: signed tokens, the failed-password throttle, the sessions it starts, who a token names. */
function bindCredentials(bind: Bind): void {
  bindBuilt(
    bind(AuthTokens.TokenIssuer),
    built(
      { config: TOKENS.Config },
      ({ config }): TokenIssuer =>
        new JwtTokenIssuer({
          secret: config.jwt.secret,
          issuer: config.jwt.issuer,
          accessTtlMs: config.jwt.expirationMs,
          refreshTtlMs: config.jwt.refreshExpirationMs,
        }),
    ),
  );
  bindBuilt(
    bind(TOKENS.LoginThrottle),
    built(
      { config: TOKENS.Config, redis: TOKENS.Redis, metrics: TOKENS.Metrics },
      ({ config, redis, metrics }): LoginThrottle => {
        const throttle = new RateLimiterLoginThrottle(buildLoginLimiter(config, redis));
        return metrics
          ? new MeteredLoginThrottle(throttle, { failures: metrics.loginFailures, throttled: metrics.loginThrottled })
          : throttle;
      },
    ),
  );
  bindBuilt(
    bind(SessionTokens.LoginAttempts),
    built({ throttle: TOKENS.LoginThrottle }, ({ throttle }) => new LoginAttempts(throttle)),
  );
  bindBuilt(
    bind(SessionTokens.Issuer),
    built(
      {
        tokens: AuthTokens.TokenIssuer,
        refreshTokens: SessionTokens.RefreshTokenStore,
        sessions: SessionTokens.Sessions,
        ids: TOKENS.IdGenerator,
        clock: TOKENS.Clock,
      },
      (deps) => new SessionIssuer(deps),
    ),
  );
  bindBuilt(
    bind(TOKENS.Authenticate),
    built(
      { tokens: AuthTokens.TokenIssuer, callers: UserTokens.Callers, clock: TOKENS.Clock, config: TOKENS.Config },
      ({ tokens, callers, clock, config }) => new Authenticate(tokens, callers, clock, config.auth.mfaRequiredRoles),
    ),
  );
}

/**
 * The use cases the auth routes serve, each given by name what it takes of these. With
 * `auth.require_verified_email`, registering starts no session and a login waits for the e-mail.
 */
const useCases = built(
  {
    users: UserTokens.Repository,
    hasher: UserTokens.PasswordHasher,
    tokens: AuthTokens.TokenIssuer,
    refreshTokens: SessionTokens.RefreshTokenStore,
    sessions: SessionTokens.Sessions,
    issuer: SessionTokens.Issuer,
    gate: SignInTokens.Gate,
    ender: SessionTokens.SessionEnder,
    throttle: TOKENS.LoginThrottle,
    attempts: SessionTokens.LoginAttempts,
    links: MailTokens.AccountLinks,
    transactions: TOKENS.Transactions,
    ids: TOKENS.IdGenerator,
    clock: TOKENS.Clock,
    authenticate: TOKENS.Authenticate,
    config: TOKENS.Config,
  },
  (deps): AuthUseCases => {
    const requireVerified = deps.config.auth.requireVerifiedEmail;
    return {
      register: new RegisterUser({ ...deps, sessionOnRegister: !requireVerified }),
      login: new LoginUser(requireVerified ? { ...deps, requirement: { links: deps.links } } : deps),
      refresh: new RefreshSession(deps),
      logout: new Logout(deps.tokens, deps.refreshTokens, deps.ender),
      authenticate: deps.authenticate,
    };
  },
);

/** Register, login, refresh, logout (docs/authentication.md), always served; binds the shared `Authenticate`. */
export const auth: FeatureModule = {
  name: 'auth',
  bindings: new ContainerModule(({ bind }) => {
    bindSessions(bind);
    bindCredentials(bind);
    bindBuilt(bind(AuthTokens.UseCases), useCases);
  }),
  entities: [RefreshTokenSchema, SessionSchema] as EntitySchema[],
  rest: {
    always: true,
    operations: Object.values(AUTH_OPERATIONS),
    routes: built({ uses: AuthTokens.UseCases }, ({ uses }) => authRoutes(uses)),
  },
};
