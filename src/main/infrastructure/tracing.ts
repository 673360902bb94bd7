import type { TextMapPropagator, Tracer } from '@opentelemetry/api';
import type { NodeTracerProvider, SpanProcessor } from '@opentelemetry/sdk-trace-node';
import type { Config } from '../config/schema.js';

/** Tracing while on (README: Metrics and Tracing): the tracer the adapters make spans with, and how to stop it. */
export interface Tracing {
  readonly tracer: Tracer;
  /** Reads the caller's W3C `traceparent` (and `tracestate`). */
  readonly propagator: TextMapPropagator;
  /** Flushes the spans not yet exported and shuts the provider down. */
  shutdown(): Promise<void>;
}

/** The provider this module registered globally, while it runs. */
let globalProvider: NodeTracerProvider | undefined;

export interface TracingOptions {
  /** Where spans go instead of the OTLP exporter (tests: an in-memory exporter). */
  spanProcessor?: SpanProcessor;
}

/**
 * Starts tracing when `tracing.otlp_endpoint` is set, else returns `null` and nothing of
 * OpenTelemetry is set up — not even loaded: the SDK and the exporter are imported only when on. Spans are batched to the endpoint (OTLP over HTTP). The provider is
 * registered as the process's global one, with an AsyncLocalStorage context manager, unless
 * another is already (two services in one test process); the adapters get the tracer directly.
 */
export async function startTracing(config: Config, options: TracingOptions = {}): Promise<Tracing | null> {
  const { otlpEndpoint, serviceName, sampleRatio } = config.tracing;
  if (otlpEndpoint === '') return null;
  const [
    { context, trace },
    { W3CTraceContextPropagator },
    { OTLPTraceExporter },
    { defaultResource, resourceFromAttributes },
    { BatchSpanProcessor, NodeTracerProvider, TraceIdRatioBasedSampler },
  ] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-node'),
  ]);
  const processor = options.spanProcessor ?? new BatchSpanProcessor(new OTLPTraceExporter({ url: otlpEndpoint }));
  const provider = new NodeTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': serviceName })),
    // The service decides what it samples: an incoming traceparent gives the trace and the parent,
    // never the decision (a client sending the unsampled flag cannot keep its requests out of tracing).
    sampler: new TraceIdRatioBasedSampler(sampleRatio),
    spanProcessors: [processor],
  });
  const registered = globalProvider === undefined;
  // The W3C propagator is used directly by the HTTP adapter; the global one is left as it is.
  if (registered) {
    provider.register({ propagator: null });
    globalProvider = provider;
  }
  return {
    tracer: provider.getTracer('portico'),
    propagator: new W3CTraceContextPropagator(),
    async shutdown() {
      await provider.shutdown();
      if (registered) {
        trace.disable();
        context.disable();
        globalProvider = undefined;
      }
    },
  };
}
