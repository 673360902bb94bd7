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
  RouteModules: token<RouteModule[]>('RouteModules'),
  HttpApp: token<Koa<RequestState>>('HttpApp'),
} as const;
