import 'reflect-metadata';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Container } from 'inversify';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-node';
import type { Logger } from 'pino';
import { createHttpServer } from '../adapters/inbound/http/httpServer.js';
import { HEALTH_PATHS } from '../adapters/inbound/http/routes/health.js';
import { securityHeaderList } from '../adapters/inbound/http/middleware/securityHeaders.js';
import { startMetricsServer, type MetricsServer } from '../adapters/inbound/metrics/metricsServer.js';
import { ServiceMetrics } from '../adapters/inbound/metrics/ServiceMetrics.js';
import { EventLoopDelayMonitor } from '../adapters/outbound/health/EventLoopHealthCheck.js';
import type { Database } from '../adapters/outbound/mikroorm/database.js';
import type { Config } from './config/schema.js';
import { buildContainer } from './container.js';
import { openDatabase } from './database.js';
import { ProcessLifecycle } from './lifecycle.js';
import { loadAccessPolicy, syncAccessPolicy } from './accessPolicy.js';
import { createLogger } from './logger.js';
import { buildMailer } from './mailer.js';
import type { BackgroundWork } from '../application/account/BackgroundWork.js';
import { UserTokens } from './modules/users.js';
import { createRedis } from './redis.js';
import { TOKENS } from './tokens.js';
import { startTracing } from './tracing.js';
import { syncUserCache } from './userCacheSync.js';

/** The accept queue asked of the kernel (which caps it at net.core.somaxconn, 4096 by default). */
const LISTEN_BACKLOG = 4096;

/** Waits for background work (mail after an answer) for at most `timeoutMs`; what is left is logged, not waited for. */
async function settleBackground(background: BackgroundWork, timeoutMs: number, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs)));
  const timedOut = await Promise.race([background.idle().then(() => false), late]);
  clearTimeout(timer);
  if (timedOut) logger.warn('shutting down with mail still being sent');
}

/** A started service: where it listens and how to stop it. */
export interface RunningService {
  readonly url: string;
  /** `http://host:port/metrics` on the metrics listener; `undefined` when `metrics.enabled` is false. */
  readonly metricsUrl: string | undefined;
  readonly server: Server;
  readonly container: Container;
  readonly database: Database;
  /**
   * Graceful stop (CONTRACT §9): readiness down at once; for `delayMs` every answer is still
   * given but says `Connection: close`; then stop accepting, let in-flight requests finish
   * (bounded by `server.shutdown_timeout`), close every socket and dependency. A second call
   * with a shorter delay (SIGINT after SIGTERM) cuts the delay short.
   */
  stop(options?: StopOptions): Promise<void>;
}

export interface StopOptions {
  /** How long to keep serving with `Connection: close` before closing the listener; default 0. */
  delayMs?: number;
}

export interface StartOptions {
  /** Defaults to a logger built from `log.level` / `log.format`. */
  logger?: Logger;
  /**
   * With `tracing.otlp_endpoint` set: where the spans go instead of the OTLP exporter (tests give
   * an in-memory exporter's processor). Ignored while tracing is off.
   */
  spanProcessor?: SpanProcessor;
  /** Bound on each SMTP phase (connect, greeting, socket silence); default 5000 ms (tests shorten it). */
  smtpTimeoutMs?: number;
}

/** Opens the database (and Redis), applies migrations when configured, and listens. */
export async function startService(config: Config, options: StartOptions = {}): Promise<RunningService> {
  const startedAt = new Date();
  const logger = options.logger ?? createLogger(config.log.level, config.log.format);
  // The templates are checked before anything is opened: a broken one stops the start at once.
  const mail = buildMailer(
    config,
    logger,
    options.smtpTimeoutMs === undefined ? {} : { smtpTimeoutMs: options.smtpTimeoutMs },
  );
  const database = await openDatabase(config, {
    warn: (message) => logger.warn({ database: message }, 'database driver warning'),
  });
  try {
    if (config.database.migrateOnStart) {
      const applied = await database.migrate();
      if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
    }
  } catch (error) {
    mail.close();
    await database.close();
    throw error;
  }
  let accessPolicy;
  try {
    accessPolicy = await loadAccessPolicy(config, database);
  } catch (error) {
    mail.close();
    await database.close();
    throw error;
  }
  const redis = config.redis.url ? createRedis(config.redis.url, logger) : null;
  const policySync = redis ? syncAccessPolicy(accessPolicy, redis, logger) : undefined;
  const lifecycle = new ProcessLifecycle();
  const eventLoop = new EventLoopDelayMonitor();
  const tracing = await startTracing(config, options.spanProcessor ? { spanProcessor: options.spanProcessor } : {});
  if (tracing) database.traceQueries(tracing.tracer);
  const metrics = config.metrics.enabled ? new ServiceMetrics() : null;
  if (metrics) database.onFailure((kind) => metrics.databaseError(kind));
  const infra = {
    config,
    logger,
    database,
    redis,
    lifecycle,
    startedAt,
    accessPolicy,
    mailer: mail.mailer,
    eventLoop,
    tracing,
    metrics,
  };
  const container = buildContainer(infra);
  const userSync = redis ? syncUserCache(container.get(UserTokens.Changes), redis, logger) : undefined;
  // Start in step with the other instances when Redis is there; never hang start-up on it.
  const [policyReady, usersReady] = await Promise.all([policySync?.ready(2000), userSync?.ready(2000)]);
  if (policyReady === false) logger.warn('not yet subscribed to access policy changes (Redis unreachable?)');
  if (usersReady === false) logger.warn('not yet subscribed to user changes (Redis unreachable?)');
  const app = container.get(TOKENS.HttpApp);
  const securityHeaders = securityHeaderList({ enabled: config.server.securityHeaders, hsts: config.server.hsts });
  const handle = app.callback();
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    void handle(req, res);
  };
  let metricsServer: MetricsServer | undefined;
  if (metrics) {
    try {
      metricsServer = await startMetricsServer(metrics, config.metrics.host, config.metrics.port, securityHeaders, {
        paths: HEALTH_PATHS,
        handle: serve,
      });
    } catch (error) {
      eventLoop.close();
      await policySync?.stop();
      mail.close();
      await database.close();
      if (redis) await redis.quit().catch(() => redis.disconnect());
      throw error;
    }
  }

  const { server, drain } = createHttpServer(serve, {
    headersTimeoutMs: config.server.headersTimeoutMs,
    requestTimeoutMs: config.server.requestTimeoutMs,
    maxConnectionsPerIp: config.server.maxConnectionsPerIp,
    securityHeaders,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A connection storm (1,000 clients at once) past Node's default accept queue of 511 has its
    // SYNs dropped, and those clients retry after 1, 3, 7, 15 s; the kernel caps this at somaxconn.
    server.listen({ port: config.server.port, host: config.server.host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host === '0.0.0.0' ? 'localhost' : host}:${address.port}`;

  let stopping: Promise<void> | undefined;
  let cutDelay: () => void = () => undefined;
  const stop = (options: StopOptions = {}): Promise<void> => {
    const delayMs = options.delayMs ?? 0;
    if (stopping) {
      if (delayMs === 0) cutDelay();
      return stopping;
    }
    stopping = (async () => {
      lifecycle.beginShutdown();
      drain.closeEachConnection();
      if (delayMs > 0) {
        logger.info({ delay_ms: delayMs }, 'shutting down: readiness down, answering with Connection: close');
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delayMs);
          cutDelay = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      await drain.close(config.server.shutdownTimeoutMs);
      // Mail started after an answer (reset and verification links) goes out before its transport
      // and the database close, within the shutdown timeout.
      await settleBackground(container.get(UserTokens.Background), config.server.shutdownTimeoutMs, logger);
      // Scraped until the last request is answered; closed before the dependencies.
      await metricsServer?.close();
      eventLoop.close();
      await policySync?.stop();
      await userSync?.stop();
      mail.close();
      await database.close();
      if (redis) await redis.quit().catch(() => redis.disconnect());
      // Every request has ended: export the last spans, then let the provider go.
      await tracing?.shutdown().catch((error: unknown) => logger.warn({ err: error }, 'tracing: spans not flushed'));
      logger.info('stopped');
      logger.flush();
    })();
    return stopping;
  };
  return { url, metricsUrl: metricsServer?.url, server, container, database, stop };
}
