import type { ServiceIdentifier } from 'inversify';
import type { Logger } from 'pino';
import type { Redis } from 'ioredis';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type Koa from 'koa';
import type { Lifecycle } from '../../application/health/CheckHealth.js';
import type { Authenticate } from '../../application/auth/Authenticate.js';
import type { AccessPolicy } from '../../application/ports/AccessPolicy.js';
import type { Cache } from '../../application/ports/Cache.js';
import type { FreshReads } from '../../adapters/outbound/cache/cacheable.js';
import type { Clock } from '../../application/ports/Clock.js';
import type { IdGenerator } from '../../application/ports/IdGenerator.js';
import type { LoginThrottle } from '../../application/ports/LoginThrottle.js';
import type { JobAdmin, JobQueue, Transactions } from '../../application/ports/Jobs.js';
import type { Mailer } from '../../application/ports/Mailer.js';
import type { FileStorage } from '../../application/ports/FileStorage.js';
import type { FileLinks } from '../../application/files/FileLinks.js';
import type { HttpAppOptions, RouteModule } from '../../adapters/inbound/http/app.js';
import type { ServiceMetrics } from '../../adapters/inbound/metrics/ServiceMetrics.js';
import type { RequestState } from '../../adapters/inbound/http/state.js';
import type { EventLoopDelayMonitor } from '../../adapters/outbound/health/EventLoopHealthCheck.js';
import type { Database } from '../../adapters/outbound/mikroorm/database.js';
import type { Config } from '../config/schema.js';

/** A typed Inversify token; a feature module names its own `<feature>.<Name>`. */
export const token = <T>(name: string): ServiceIdentifier<T> => Symbol.for(`portico.${name}`) as ServiceIdentifier<T>;

/**
 * The shared infrastructure's typed Inversify tokens: what exists before any feature, or what every
 * feature uses (the clock, ids, who the caller is, the access policy). Each feature module owns its own.
 */
export const TOKENS = {
  Config: token<Config>('Config'),
  Logger: token<Logger>('Logger'),
  Clock: token<Clock>('Clock'),
  IdGenerator: token<IdGenerator>('IdGenerator'),
  Database: token<Database>('Database'),
  Redis: token<Redis | null>('Redis'),
  /** The process's one cache: memory, and with `redis.url` in a serving process memory + Redis + an invalidation bus. */
  Cache: token<Cache>('Cache'),
  /** How a cache's loader reads: from the primary, so a forgotten key is never loaded again from a lagging replica. */
  FreshReads: token<FreshReads>('FreshReads'),
  Lifecycle: token<Lifecycle>('Lifecycle'),
  StartedAt: token<Date>('StartedAt'),
  EventLoop: token<EventLoopDelayMonitor>('EventLoop'),
  /** Who a bearer token names (bound by the auth module); every guarded API uses it. */
  Authenticate: token<Authenticate>('Authenticate'),
  AccessPolicy: token<AccessPolicy>('AccessPolicy'),
  /** Account e-mails (docs/authentication.md): SMTP when `mail.smtp_url` is set, else the development log mailer. */
  Mailer: token<Mailer>('Mailer'),
  /** Failed password checks per (e-mail, client IP): logins and `current_password` alike. */
  LoginThrottle: token<LoginThrottle>('LoginThrottle'),
  RateLimiter: token<RateLimiterAbstract | null>('RateLimiter'),
  /** The service's Prometheus series; `null` when `metrics.enabled` is false. */
  Metrics: token<ServiceMetrics | null>('Metrics'),
  /** Where use cases put background jobs (docs/jobs.md), and the transactions they join. */
  JobQueue: token<JobQueue>('JobQueue'),
  Transactions: token<Transactions>('Transactions'),
  JobAdmin: token<JobAdmin>('JobAdmin'),
  /** Where files live (docs/files.md): the engine `storage.driver` names. */
  FileStorage: token<FileStorage>('FileStorage'),
  /** Signed links to stored files, valid `storage.url_ttl`. */
  FileLinks: token<FileLinks>('FileLinks'),
  RouteModules: token<RouteModule[]>('RouteModules'),
  /** What the HTTP app is built from (the layer bench builds variants of it from the same). */
  HttpAppOptions: token<HttpAppOptions>('HttpAppOptions'),
  HttpApp: token<Koa<RequestState>>('HttpApp'),
} as const;
