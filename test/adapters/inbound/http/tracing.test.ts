import { SpanStatusCode } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { expect } from 'chai';
import type { RouteModule } from '../../../../src/adapters/inbound/http/app.js';
import { startHttpApp, type RunningApp } from '../../../support/httpApp.js';
import { capturingLogger } from '../../../support/logger.js';

const routes: RouteModule = (router) => {
  router.get('/items/:id', (ctx) => {
    ctx.body = { success: true, data: { id: ctx.params.id } };
  });
  router.get('/boom', () => {
    throw new Error('kaboom');
  });
};

describe('HTTP adapter: request tracing', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let app: RunningApp;
  let captured: ReturnType<typeof capturingLogger>;

  beforeEach(async () => {
    exporter.reset();
    captured = capturingLogger();
    const tracing = { tracer: provider.getTracer('test'), propagator: new W3CTraceContextPropagator() };
    app = await startHttpApp({ logger: captured.logger, routes: [routes], tracing });
  });
  afterEach(async () => app.close());
  after(async () => provider.shutdown());

  it('names the span by method and route pattern, whatever the path', async () => {
    for (const id of ['1', 'two', '3']) expect((await fetch(`${app.url}/items/${id}`)).status).to.equal(200);
    expect((await fetch(`${app.url}/random/${Math.random()}`)).status).to.equal(404);
    expect(exporter.getFinishedSpans().map((s) => s.name)).to.deep.equal([
      'GET /items/:id',
      'GET /items/:id',
      'GET /items/:id',
      'GET unmatched',
    ]);
  });

  it('marks a 500 as an error and puts the trace id on every log line of the request', async () => {
    expect((await fetch(`${app.url}/boom`, { headers: { 'X-Request-ID': 'boom-1' } })).status).to.equal(500);
    const [span] = exporter.getFinishedSpans();
    expect(span!.name).to.equal('GET /boom');
    expect(span!.status.code).to.equal(SpanStatusCode.ERROR);
    expect(span!.attributes).to.include({ 'http.response.status_code': 500, 'http.request.id': 'boom-1' });
    const lines = captured.lines().filter((l) => l.request_id === 'boom-1');
    expect(lines.map((l) => l.msg)).to.deep.equal(['unhandled error', 'request']);
    for (const line of lines) expect(line.trace_id).to.equal(span!.spanContext().traceId);
  });

  it('ignores a malformed traceparent: a new trace, no error', async () => {
    const res = await fetch(`${app.url}/items/1`, { headers: { traceparent: '00-zzzz-not-a-trace-01' } });
    expect(res.status).to.equal(200);
    const [span] = exporter.getFinishedSpans();
    expect(span!.parentSpanContext).to.equal(undefined);
    expect(span!.spanContext().traceId).to.match(/^[0-9a-f]{32}$/);
  });
});
