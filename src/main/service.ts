import 'reflect-metadata';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Container } from 'inversify';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-node';
import type { Logger } from 'pino';
import { createHttpServer, securityHeaderList } from '../adapters/inbound/http/runtime/index.js';
import { HEALTH_PATHS } from '../adapters/inbound/http/routes/health.js';
import { startMetricsServer } from '../adapters/inbound/metrics/metricsServer.js';
import { ServiceMetrics } from '../adapters/inbound/metrics/ServiceMetrics.js';
import { EventLoopDelayMonitor } from '../adapters/outbound/health/EventLoopHealthCheck.js';
import type { Database } from '../adapters/outbound/mikroorm/database.js';
import type { Config } from './config/schema.js';
import { buildContainer } from './container.js';
import { jobHandlers, openJobs, startRunner, startScheduler } from './jobs.js';
import { ProcessLifecycle } from './lifecycle.js';
import { databaseSteps, Steps } from './steps.js';
import { loadAccessPolicy, syncAccessPolicy } from './accessPolicy.js';
import { createLogger } from './logger.js';
import { buildMailer } from './mailer.js';
import { UserTokens } from './modules/identityTokens.js';
import { createRedis } from './redis.js';
import { TOKENS } from './tokens.js';
import { startTracing } from './tracing.js';
import { syncUserCache } from './userCacheSync.js';

/** The accept queue asked of the kernel (which caps it at net.core.somaxconn, 4096 by default). */
const LISTEN_BACKLOG = 4096;

/** A started service: where it listens and how to stop it. */
export interface RunningService {
  readonly url: string;
  /** `http://host:port/metrics` on the metrics listener; `undefined` when `metrics.enabled` is false. */
  readonly metricsUrl: string | undefined;
  readonly server: Server;
  readonly container: Container;
  readonly database: Database;
  /**
   * Graceful stop (docs/http.md): readiness down at once; for `delayMs` every answer is still
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
  /** Told the name of each start-up step before it starts (see `Steps`). */
  onStep?: (name: string) => void;
}

/**
 * Starts the service as one list of steps (`Steps`), in this order: the mailer (its templates
 * are checked before anything opens), the database and its migrations, the access policy, Redis
 * and the access-policy sync, the event-loop monitor, tracing, the jobs engine, the container, the
 * job runner (unless `jobs.mode` is `web`), the job schedules, the user-cache sync, the metrics listener and the API
 * listener. A step
 * that fails stops the ones before it; `stop` stops them all, last first.
 */
export async function startService(config: Config, options: StartOptions = {}): Promise<RunningService> {
  const startedAt = new Date();
  const logger = options.logger ?? createLogger(config.log.level, config.log.format);
  const steps = new Steps(options.onStep);
  const mail = await steps.run(
    'mailer',
    () =>
      buildMailer(config, logger, options.smtpTimeoutMs === undefined ? {} : { smtpTimeoutMs: options.smtpTimeoutMs }),
    (built) => built.close(),
  );
  const database = await databaseSteps(steps, config, { migrate: config.database.migrateOnStart, logger });
  const accessPolicy = await steps.run('access policy', () => loadAccessPolicy(config, database));
  const redis = await steps.run(
    'redis',
    () => (config.redis.url ? createRedis(config.redis.url, logger) : null),
    (client) => client?.quit().catch(() => client.disconnect()),
  );
  const policySync = await steps.run(
    'access policy sync',
    () => (redis ? syncAccessPolicy(accessPolicy, redis, logger) : undefined),
    (sync) => sync?.stop(),
  );
  const lifecycle = new ProcessLifecycle();
  const eventLoop = await steps.run(
    'event loop monitor',
    () => new EventLoopDelayMonitor(),
    (monitor) => monitor.close(),
  );
  // Stopped after every request has ended and the background work has settled: the last spans go out.
  const tracing = await steps.run(
    'tracing',
    async () => {
      const started = await startTracing(config, options.spanProcessor ? { spanProcessor: options.spanProcessor } : {});
      if (started) database.traceQueries(started.tracer);
      return started;
    },
    (started) =>
      started?.shutdown().catch((error: unknown) => logger.warn({ err: error }, 'tracing: spans not flushed')),
  );
  const jobs = await steps.run(
    'jobs',
    () => openJobs(config, database, logger),
    (engine) => engine.stop(),
  );
  const metrics = config.metrics.enabled ? new ServiceMetrics() : null;
  if (metrics) database.onFailure((kind) => metrics.databaseError(kind));
  metrics?.watchJobs(() => jobs.admin.stats(new Date()));
  const container = await steps.run('container', () =>
    buildContainer({
      config,
      logger,
      database,
      redis,
      lifecycle,
      startedAt,
      accessPolicy,
      mailer: mail.mailer,
      jobs,
      eventLoop,
      tracing,
      metrics,
    }),
  );
  // Jobs run here unless jobs.mode is `web`; stopped after the last request, before the mail
  // transport and the database close: running jobs get up to the shutdown timeout, the rest stay stored.
  const handlers = jobHandlers(container);
  await steps.run(
    'job runner',
    () =>
      config.jobs.mode === 'web'
        ? undefined
        : startRunner(jobs, handlers, logger, { metrics, tracer: tracing?.tracer }),
    (runner) => runner?.stop(config.server.shutdownTimeoutMs),
  );
  // Every instance fires the schedules (once per period across them all), whatever its jobs.mode.
  await steps.run(
    'job schedules',
    () => startScheduler(jobs, config.jobs.schedules, handlers),
    (scheduler) => scheduler.stop(),
  );
  const userSync = await steps.run(
    'user cache sync',
    () => (redis ? syncUserCache(container.get(UserTokens.Changes), redis, logger) : undefined),
    (sync) => sync?.stop(),
  );
  // Start in step with the other instances when Redis is there; never hang start-up on it.
  const [policyReady, usersReady] = await Promise.all([policySync?.ready(2000), userSync?.ready(2000)]);
  if (policyReady === false) logger.warn('not yet subscribed to access policy changes (Redis unreachable?)');
  if (usersReady === false) logger.warn('not yet subscribed to user changes (Redis unreachable?)');
  const app = container.get(TOKENS.HttpApp);
  const securityHeaders = securityHeaderList({ hsts: config.server.hsts });
  const handle = app.callback();
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    void handle(req, res);
  };
  // Scraped (and probed) until the last request is answered; closed before the dependencies.
  const metricsServer = await steps.run(
    'metrics listener',
    () =>
      metrics
        ? startMetricsServer(metrics, config.metrics.host, config.metrics.port, securityHeaders, {
            paths: HEALTH_PATHS,
            handle: serve,
          })
        : undefined,
    (listener) => listener?.close(),
  );
  const { server, drain } = await steps.run(
    'api listener',
    () => listen(serve, config, securityHeaders),
    // Lets in-flight requests finish (bounded by server.shutdown_timeout), then closes every socket.
    (listening) => listening.drain.close(config.server.shutdownTimeoutMs),
  );
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
      await steps.stopAll((name, error) =>
        logger.warn({ err: error, step: name }, 'shutdown: a step did not stop cleanly'),
      );
      logger.info('stopped');
      logger.flush();
    })();
    return stopping;
  };
  return { url, metricsUrl: metricsServer?.url, server, container, database, stop };
}

/** The API's HTTP server, listening on `server.host:server.port`. */
async function listen(
  serve: (req: IncomingMessage, res: ServerResponse) => void,
  config: Config,
  securityHeaders: ReturnType<typeof securityHeaderList>,
): Promise<ReturnType<typeof createHttpServer>> {
  const created = createHttpServer(serve, {
    headersTimeoutMs: config.server.headersTimeoutMs,
    requestTimeoutMs: config.server.requestTimeoutMs,
    maxConnectionsPerIp: config.server.maxConnectionsPerIp,
    securityHeaders,
  });
  const { server } = created;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A connection storm past Node's default accept queue of 511 has its SYNs dropped (clients
    // retry after 1, 3, 7, 15 s); the kernel caps the backlog at somaxconn.
    server.listen({ port: config.server.port, host: config.server.host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return created;
}
