import type { ServiceIdentifier } from 'inversify';
import type { Logger } from 'pino';
import type { Redis } from 'ioredis';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type Koa from 'koa';
import type { CheckHealth, Lifecycle } from '../application/health/CheckHealth.js';
import type { HealthCheckRegistry } from '../application/health/HealthCheckRegistry.js';
import type { Clock } from '../application/ports/Clock.js';
import type { RouteModule } from '../adapters/inbound/http/app.js';
import type { RequestState } from '../adapters/inbound/http/state.js';
import type { Database } from '../adapters/outbound/mikroorm/database.js';
import type { Config } from './config/schema.js';
import type { UserRepository } from '../domain/user/UserRepository.js';
import type { AccessPolicy } from '../application/ports/AccessPolicy.js';
import type { IdGenerator } from '../application/ports/IdGenerator.js';
import type { LoginThrottle } from '../application/ports/LoginThrottle.js';
import type { PasswordHasher } from '../application/ports/PasswordHasher.js';
import type { RefreshTokenStore } from '../application/ports/RefreshTokenStore.js';
import type { TokenIssuer } from '../application/ports/TokenIssuer.js';
import type { AuthUseCases } from '../adapters/inbound/http/routes/auth.js';
import type { UserUseCases } from '../adapters/inbound/http/routes/users.js';
import type { RegisterUser } from '../application/auth/RegisterUser.js';
import type { SessionIssuer } from '../application/auth/SessionIssuer.js';
import type { ProductRepository } from '../domain/product/ProductRepository.js';
import type { ProductUseCases } from '../adapters/inbound/productUseCases.js';

const token = <T>(name: string): ServiceIdentifier<T> => Symbol.for(`portico.${name}`) as ServiceIdentifier<T>;

/** Typed Inversify tokens: the only way anything is bound or resolved. */
export const TOKENS = {
  Config: token<Config>('Config'),
  Logger: token<Logger>('Logger'),
  Clock: token<Clock>('Clock'),
  Database: token<Database>('Database'),
  Redis: token<Redis | null>('Redis'),
  Lifecycle: token<Lifecycle>('Lifecycle'),
  HealthCheckRegistry: token<HealthCheckRegistry>('HealthCheckRegistry'),
  CheckHealth: token<CheckHealth>('CheckHealth'),
  RateLimiter: token<RateLimiterAbstract | null>('RateLimiter'),
  IdGenerator: token<IdGenerator>('IdGenerator'),
  PasswordHasher: token<PasswordHasher>('PasswordHasher'),
  TokenIssuer: token<TokenIssuer>('TokenIssuer'),
  UserRepository: token<UserRepository>('UserRepository'),
  RefreshTokenStore: token<RefreshTokenStore>('RefreshTokenStore'),
  AccessPolicy: token<AccessPolicy>('AccessPolicy'),
  LoginThrottle: token<LoginThrottle>('LoginThrottle'),
  SessionIssuer: token<SessionIssuer>('SessionIssuer'),
  RegisterUser: token<RegisterUser>('RegisterUser'),
  AuthUseCases: token<AuthUseCases>('AuthUseCases'),
  UserUseCases: token<UserUseCases>('UserUseCases'),
  ProductRepository: token<ProductRepository>('ProductRepository'),
  ProductUseCases: token<ProductUseCases>('ProductUseCases'),
  RouteModules: token<RouteModule[]>('RouteModules'),
  HttpApp: token<Koa<RequestState>>('HttpApp'),
} as const;
