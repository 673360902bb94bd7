import {
  context,
  defaultTextMapGetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type TextMapPropagator,
  type Tracer,
} from '@opentelemetry/api';
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { routePatterns } from '../runtime/index.js';
import type { RequestState } from '../state.js';

export interface RequestTracing {
  tracer: Tracer;
  /** Reads the caller's trace context (W3C `traceparent`) from the request headers. */
  propagator: TextMapPropagator;
}

/**
 * A SERVER span per request, the child of the caller's span when it sent a `traceparent`, named
 * `<METHOD> <route pattern>` once the router has matched, with status ERROR on a 5xx. The span is
 * the active context for every layer inside (GraphQL and database spans are its children), and its
 * trace id is on `ctx.state.traceId` for the request's log lines. Installed only when tracing is on.
 */
export function traceRequests(
  { tracer, propagator }: RequestTracing,
  router: Router<RequestState>,
): Middleware<RequestState> {
  const routeOf = routePatterns(router);
  return async function traceRequest(ctx, next) {
    const parent = propagator.extract(ROOT_CONTEXT, ctx.headers, defaultTextMapGetter);
    const span = tracer.startSpan(
      ctx.method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': ctx.method } },
      parent,
    );
    (ctx.state as { traceId?: string }).traceId = span.spanContext().traceId;
    try {
      await context.with(trace.setSpan(parent, span), next);
    } finally {
      const status = ctx.status;
      const route = routeOf(ctx, status);
      span.updateName(`${ctx.method} ${route}`);
      span.setAttributes({
        'http.route': route,
        'http.response.status_code': status,
        'http.request.id': ctx.state.requestId,
      });
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  };
}
