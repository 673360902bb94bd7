import { ContainerModule } from 'inversify';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { AUTH_OPERATIONS, authRoutes, type AuthUseCases } from '../../adapters/inbound/http/routes/auth.js';
import type { ServiceMetrics } from '../../adapters/inbound/metrics/ServiceMetrics.js';
import { JwtTokenIssuer } from '../../adapters/outbound/crypto/JwtTokenIssuer.js';
import { MeteredLoginThrottle } from '../../adapters/outbound/metrics/MeteredLoginThrottle.js';
import { RateLimiterLoginThrottle } from '../../adapters/outbound/throttle/RateLimiterLoginThrottle.js';
import { Authenticate } from '../../application/auth/Authenticate.js';
import { LoginUser } from '../../application/auth/LoginUser.js';
import { Logout } from '../../application/auth/Logout.js';
import { RefreshSession } from '../../application/auth/RefreshSession.js';
import { RegisterUser } from '../../application/auth/RegisterUser.js';
import { SessionIssuer } from '../../application/auth/SessionIssuer.js';
import type { Clock } from '../../application/ports/Clock.js';
import type { IdGenerator } from '../../application/ports/IdGenerator.js';
import type { LoginThrottle } from '../../application/ports/LoginThrottle.js';
import type { PasswordHasher } from '../../application/ports/PasswordHasher.js';
import type { RefreshTokenStore } from '../../application/ports/RefreshTokenStore.js';
import type { TokenIssuer } from '../../application/ports/TokenIssuer.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { AccountLinks } from '../../application/account/AccountLinks.js';
import type { SessionEnder } from '../../application/account/SessionEnder.js';
import type { CallerLookup } from '../../application/ports/CallerLookup.js';
import type { SessionStore } from '../../application/ports/SessionStore.js';
import type { Config } from '../config/schema.js';
import { token, TOKENS } from '../tokens.js';
import type { FeatureModule } from './FeatureModule.js';
import { UserTokens } from './users.js';

export const AuthTokens = {
  TokenIssuer: token<TokenIssuer>('auth.TokenIssuer'),
  SessionIssuer: token<SessionIssuer>('auth.SessionIssuer'),
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

/** Register, login, refresh, logout (docs/authentication.md), always served; binds the shared `Authenticate`. */
export const auth: FeatureModule = {
  name: 'auth',
  bindings: new ContainerModule(({ bind }) => {
    bind(AuthTokens.TokenIssuer).toResolvedValue(
      (config: Config): TokenIssuer =>
        new JwtTokenIssuer({
          secret: config.jwt.secret,
          issuer: config.jwt.issuer,
          accessTtlMs: config.jwt.expirationMs,
          refreshTtlMs: config.jwt.refreshExpirationMs,
        }),
      [TOKENS.Config],
    );
    bind(TOKENS.LoginThrottle).toResolvedValue(
      (config: Config, redis: Redis | null, metrics: ServiceMetrics | null): LoginThrottle => {
        const throttle = new RateLimiterLoginThrottle(buildLoginLimiter(config, redis));
        return metrics
          ? new MeteredLoginThrottle(throttle, { failures: metrics.loginFailures, throttled: metrics.loginThrottled })
          : throttle;
      },
      [TOKENS.Config, TOKENS.Redis, TOKENS.Metrics],
    );
    bind(AuthTokens.SessionIssuer).toResolvedValue(
      (tokens: TokenIssuer, store: RefreshTokenStore, sessions: SessionStore, ids: IdGenerator, clock: Clock) =>
        new SessionIssuer(tokens, store, sessions, ids, clock),
      [AuthTokens.TokenIssuer, UserTokens.RefreshTokenStore, UserTokens.Sessions, TOKENS.IdGenerator, TOKENS.Clock],
    );
    bind(TOKENS.Authenticate).toResolvedValue(
      (tokens: TokenIssuer, callers: CallerLookup, clock: Clock) => new Authenticate(tokens, callers, clock),
      [AuthTokens.TokenIssuer, UserTokens.Callers, TOKENS.Clock],
    );
    bind(AuthTokens.UseCases).toResolvedValue(
      (
        users: UserRepository,
        hasher: PasswordHasher,
        tokens: TokenIssuer,
        store: RefreshTokenStore,
        throttle: LoginThrottle,
        sessions: SessionIssuer,
        ids: IdGenerator,
        clock: Clock,
        authenticate: Authenticate,
        sessionStore: SessionStore,
        ender: SessionEnder,
        links: AccountLinks,
        config: Config,
      ): AuthUseCases => {
        const requireVerified = config.auth.requireVerifiedEmail;
        return {
          register: new RegisterUser(users, hasher, ids, clock, sessions, links, !requireVerified),
          login: new LoginUser(users, hasher, throttle, sessions, requireVerified ? { links } : undefined),
          refresh: new RefreshSession(tokens, store, users, sessionStore, sessions, clock, ender),
          logout: new Logout(tokens, store, ender),
          authenticate,
        };
      },
      [
        UserTokens.Repository,
        UserTokens.PasswordHasher,
        AuthTokens.TokenIssuer,
        UserTokens.RefreshTokenStore,
        TOKENS.LoginThrottle,
        AuthTokens.SessionIssuer,
        TOKENS.IdGenerator,
        TOKENS.Clock,
        TOKENS.Authenticate,
        UserTokens.Sessions,
        UserTokens.SessionEnder,
        UserTokens.AccountLinks,
        TOKENS.Config,
      ],
    );
  }),
  rest: {
    always: true,
    operations: Object.values(AUTH_OPERATIONS),
    routes: (container) => authRoutes(container.get(AuthTokens.UseCases)),
  },
};
