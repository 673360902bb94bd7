/**
 * The HTTP runtime: what runs around Portico's routes on every request, between Node's socket and
 * the router, and nothing of any one route. Koa gives the context and `@koa/router` stays the route
 * table; this adds what neither has:
 *
 * - the spine (`spine/`), the outer layers of a request — security headers, request id, metrics,
 *   log line, recovery into the error envelope, CORS, load shedding, rate limit, timeout, body
 *   parser, 404/405 — as one async frame of small named steps instead of a Koa middleware each
 *   (docs/adr/0031-one-spine.md);
 * - the route lookup, which hands a request only the routes its path can match;
 * - load shedding that watches the event loop (`LoopPressure`) and keeps its turns short
 *   (`TurnBudget`), so new connections and the health probes still get in under load
 *   (docs/adr/0015-load-shedding.md);
 * - the Node server: slow-client bounds, the error envelope on the answers Node's parser refuses,
 *   and the graceful drain that tells clients to go and lets what is under way finish
 *   (docs/adr/0014-shutdown-sequence.md).
 *
 * It is in-house because these pieces share one request's state and one order, and because no
 * Koa middleware or Node option does them: shedding by the loop's health, short turns, a close
 * that finishes what is under way. Where a library does a piece well it is used from here, once:
 * helmet, `@koa/cors`, `koa-body`, `rate-limiter-flexible`. It answers in the HTTP adapter's error
 * envelope (`../errorTable.ts`, `../HttpProblem.ts`) and keeps each request's state in
 * `../state.ts`, which the routes read too. Code outside this folder imports it through this file
 * only.
 */
export { type ConnectionDrain } from './connectionDrain.js';
export { createHttpServer, type HttpServer, type HttpServerOptions } from './httpServer.js';
export { LoopPressure } from './loopPressure.js';
export { routeLookup } from './routeLookup.js';
export { routePatterns } from './routePattern.js';
export { bodyParser, streamedBodies, streamsBody } from './spine/bodyParser.js';
export { cors, type CorsOptions } from './spine/cors.js';
export { httpMetrics } from './spine/httpMetrics.js';
export { LoadShedding, type LoadSheddingOptions } from './spine/loadShedding.js';
export { rateLimit } from './spine/rateLimit.js';
export { requestIds } from './spine/requestId.js';
export { requestLog } from './spine/requestLogger.js';
export { routeFallback } from './spine/routeFallback.js';
export { keepOnKoaErrors, securityHeaderList, type Header } from './spine/securityHeaders.js';
export { spine, type SpineSteps } from './spine/spine.js';
export { timeout } from './spine/timeout.js';
export { TurnBudget } from './turnBudget.js';
