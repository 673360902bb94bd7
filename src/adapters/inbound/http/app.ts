import Router from '@koa/router';
import Koa from 'koa';
import type { Logger } from 'pino';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { ServiceMetrics } from '../metrics/ServiceMetrics.js';
import { readYourWrites, type ReadYourWritesOptions } from './middleware/readYourWrites.js';
import { traceRequests, type RequestTracing } from './middleware/tracing.js';
import { HEALTH_PATHS } from './routes/health.js';
import {
  bodyParser,
  cors,
  httpMetrics,
  keepOnKoaErrors,
  LoadShedding,
  rateLimit,
  requestIds,
  requestLog,
  routeFallback,
  routeLookup,
  spine,
  streamedBodies,
  timeout,
  type CorsOptions,
  type Header,
  type LoadSheddingOptions,
  type SpineSteps,
} from './runtime/index.js';
import type { RequestState } from './state.js';

/** Adds routes to the app's router (health, auth, resources...). */
export type RouteModule = (router: Router<RequestState>) => void;

export interface HttpAppOptions {
  logger: Logger;
  trustProxy: boolean;
  /**
   * With `trustProxy`, which `X-Forwarded-For` entry counted from the right is the client: the one
   * the trusted proxy appended (1), never one the client wrote itself.
   */
  trustProxyHops: number;
  requestTimeoutMs: number;
  bodyLimitBytes: number;
  cors: CorsOptions;
  /** Set on every answer, first thing (README: Metrics and Tracing; `securityHeaderList`); absent or empty: none. */
  securityHeaders?: readonly Header[];
  /** `null` when rate limiting is disabled. */
  rateLimiter: RateLimiterAbstract | null;
  newRequestId: () => string;
  routes: readonly RouteModule[];
  /** Paths the rate limiter does not count (the health probes, the API document); the health probes by default. */
  unmeteredPaths?: readonly string[];
  /** Tracing (README: Metrics and Tracing); absent: off, and no tracing middleware at all. */
  tracing?: RequestTracing;
  /** Where answers and limiter refusals are counted (README: Metrics and Tracing); absent: no metrics middleware at all. */
  metrics?: ServiceMetrics;
  /** Load shedding (ADR 15); absent: never shed. */
  shedding?: Omit<LoadSheddingOptions, 'exemptPaths'>;
  /** Read-your-writes with database read replicas (`middleware/readYourWrites.ts`); absent: no such middleware at all. */
  readYourWrites?: ReadYourWritesOptions;
}

/**
 * One layer switched off, for the layer bench only (bench/layers.ts measures what each layer costs
 * by difference): `steps` gets the spine's steps as configured and returns them with one replaced;
 * `dispatch` stands in for the route lookup. The service never passes it.
 */
export interface LayerVariant {
  readonly steps?: (steps: SpineSteps) => SpineSteps;
  readonly dispatch?: (router: Router<RequestState>) => Koa.Middleware<RequestState>;
}

const routers = new WeakMap<Koa<RequestState>, Router<RequestState>>();

/** The router of an app `createHttpApp` built (the test that holds it against the API document walks it). */
export function routerOf(app: Koa<RequestState>): Router<RequestState> | undefined {
  return routers.get(app);
}

/**
 * Builds the Koa application: [tracing →] the spine → the router, reached through `routeLookup`
 * (both from the HTTP runtime, `runtime/`). The spine (docs/adr/0031-one-spine.md) runs the outer
 * layers in one frame, in this order: security headers → request id → metrics → logger → recovery →
 * CORS → load shedding → rate limit → timeout → body parser → router → 404/405 fallback; with read
 * replicas, read-your-writes (`middleware/readYourWrites.ts`) wraps the router.
 * Authentication and RBAC are route middleware, so they see the path the router routed.
 * Load shedding sits right after CORS (cheap, and a browser can read the 503): nothing costly
 * runs for a refused request, not even the rate limiter's store.
 */
export function createHttpApp(options: HttpAppOptions, variant: LayerVariant = {}): Koa<RequestState> {
  // `ctx.ip` (rate limit, login throttle, request log) is then the hops-th entry from the right.
  const app = new Koa<RequestState>({ proxy: options.trustProxy, maxIpsCount: options.trustProxyHops });
  // Errors are answered by the spine's recovery; nothing should reach Koa's default handler.
  app.silent = true;
  const router = new Router<RequestState>({ sensitive: true, strict: true });
  for (const addRoutes of options.routes) addRoutes(router);

  // Outermost, so every layer (and every log line) of the request runs inside its span.
  if (options.tracing) app.use(traceRequests(options.tracing, router));
  const headers = options.securityHeaders ?? [];
  keepOnKoaErrors(app, headers);
  const { metrics, rateLimiter } = options;
  const steps: SpineSteps = {
    securityHeaders: headers,
    requestId: requestIds(options.newRequestId),
    logger: options.logger,
    ...(metrics ? { metrics: httpMetrics(metrics, router) } : {}),
    log: requestLog(options.logger),
    cors: cors(options.cors),
    ...(options.shedding ? { shedding: new LoadShedding({ ...options.shedding, exemptPaths: HEALTH_PATHS }) } : {}),
    ...(rateLimiter
      ? {
          rateLimit: rateLimit({
            limiter: rateLimiter,
            exemptPaths: options.unmeteredPaths ?? HEALTH_PATHS,
            logger: options.logger,
            ...(metrics ? { onRejected: () => metrics.rateLimitRejections.inc() } : {}),
          }),
        }
      : {}),
    timeout: timeout(options.requestTimeoutMs),
    body: bodyParser(options.bodyLimitBytes, streamedBodies(router)),
    fallback: routeFallback(router),
  };
  app.use(spine(variant.steps ? variant.steps(steps) : steps));
  // Inside the spine, so it sees the client address the rate limiter counts and its failures are answered.
  if (options.readYourWrites) app.use(readYourWrites(options.readYourWrites));
  app.use((variant.dispatch ?? routeLookup)(router));
  routers.set(app, router);
  return app;
}
