import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import {
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { expect } from 'chai';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { emptyTables } from '../adapters/outbound/contracts/databases.js';
import { accountWithRole, Api, dataOf } from '../support/api.js';
import { testConfig } from '../support/config.js';
import { jobsSettled } from '../support/jobs.js';
import { externalService } from '../support/env.js';
import { TOKENS } from '../../src/main/wiring/tokens.js';
import { capturingLogger } from '../support/logger.js';
import { PRODUCT_BODY } from '../support/resources/productBodies.js';

const ENDPOINT = 'http://127.0.0.1:9/v1/traces'; // never reached: the spans go to the in-memory exporter
const PRODUCT = '/api/v1/products/:id';

interface ProductJson {
  id: string;
}

const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan): string => span.spanContext().spanId;
const traceOf = (span: ReadableSpan): string => span.spanContext().traceId;

/** Every span of one trace, checked to be one tree under a single root (local or remote parent). */
function oneTrace(spans: readonly ReadableSpan[], name: string): { root: ReadableSpan; spans: ReadableSpan[] } {
  const root = spans.find((s) => s.name === name);
  expect(root, `no span named ${name} among ${spans.map((s) => s.name).join(', ')}`).to.not.equal(undefined);
  const trace = spans.filter((s) => traceOf(s) === traceOf(root!));
  const ids = new Set(trace.map(idOf));
  for (const span of trace)
    if (span !== root) expect(ids.has(parentOf(span)!), `${span.name} has a parent in the trace`).to.equal(true);
  return { root: root!, spans: trace };
}

/** No attribute of any span carries `secret` (a value bound to a query, a token…). */
function expectNowhere(spans: readonly ReadableSpan[], secret: string): void {
  for (const span of spans) expect(JSON.stringify(span.attributes), span.name).to.not.include(secret);
}

for (const [engine, url] of [
  ['SQLite', (): string | undefined => 'sqlite::memory:'],
  ['PostgreSQL', (): string | undefined => externalService('SVC_TEST_POSTGRES_URL')],
] as const) {
  describe(`tracing on ${engine} (README: Metrics and Tracing)`, function () {
    this.timeout(60_000);
    const exporter = new InMemorySpanExporter();
    const processor = new SimpleSpanProcessor(exporter);
    let captured: ReturnType<typeof capturingLogger>;
    let service: RunningService | undefined;
    let api: Api;
    let token: string;
    let product: ProductJson;

    const spans = async (): Promise<ReadableSpan[]> => {
      await processor.forceFlush();
      return exporter.getFinishedSpans();
    };
    /** Waits until no job is left to run (their spans then are over), so a test sees only its own spans. */
    const settled = (): Promise<void> => jobsSettled(service!.container.get(TOKENS.JobAdmin), 200);

    before(async function () {
      const databaseUrl = url();
      if (!databaseUrl) {
        console.log('      (skipped: needs SVC_TEST_POSTGRES_URL)');
        this.skip();
      }
      if (databaseUrl.startsWith('postgres')) {
        await emptyTables(databaseUrl);
      }
      captured = capturingLogger();
      const env = {
        SVC_DATABASE_URL: databaseUrl,
        SVC_API_MODE: 'both',
        SVC_AUTH_BCRYPT_COST: '4',
        SVC_RATE_LIMIT_ENABLED: 'false',
        SVC_LOG_LEVEL: 'info',
        SVC_TRACING_OTLP_ENDPOINT: ENDPOINT,
      };
      service = await startService(testConfig(env), { logger: captured.logger, spanProcessor: processor });
      api = new Api(service.url);
      token = (await accountWithRole(service, api, 'moderator')).access_token;
      product = dataOf<ProductJson>(
        await api.post('/api/v1/products', { token, json: { ...PRODUCT_BODY, name: 'Traced', price: 3 } }),
        201,
      );
      // The registration's verification mail runs as jobs, in spans of their own.
      await settled();
    });
    beforeEach(() => exporter.reset());
    after(async () => service?.stop());

    it('one REST request is one trace: the route span as root, the database queries its children', async () => {
      dataOf(await api.get(`/api/v1/products/${product.id}`, { token, headers: { 'X-Request-ID': 'rest-1' } }));

      const { root, spans: trace } = oneTrace(await spans(), `GET ${PRODUCT}`);
      expect(root.kind).to.equal(SpanKind.SERVER);
      expect(parentOf(root)).to.equal(undefined);
      expect(root.attributes).to.include({
        'http.request.method': 'GET',
        'http.route': PRODUCT,
        'http.response.status_code': 200,
        'http.request.id': 'rest-1',
      });
      expect(root.status.code).to.not.equal(SpanStatusCode.ERROR);
      const queries = trace.filter((s) => s.name.startsWith('db '));
      expect(queries.length, 'database spans').to.be.greaterThan(0);
      for (const query of queries) {
        expect(parentOf(query)).to.equal(idOf(root));
        expect(query.kind).to.equal(SpanKind.CLIENT);
        expect(query.attributes['db.system']).to.equal(engine === 'SQLite' ? 'sqlite' : 'postgresql');
      }
      expect(queries.map((q) => q.name)).to.include('db select');
      expect(queries.find((q) => q.name === 'db select')!.attributes['db.operation']).to.equal('select');
      expectNowhere(trace, product.id);
      expectNowhere(trace, token);
    });

    it('one GraphQL request: route span → GraphQL operation span → database span', async () => {
      const answer = await api.post('/graphql', { token, json: { query: '{ products { data { id } } }' } });
      expect(answer.status, answer.text).to.equal(200);

      const { root, spans: trace } = oneTrace(await spans(), 'POST /graphql');
      const operation = trace.find((s) => s.name === 'query products');
      expect(operation, trace.map((s) => s.name).join(', ')).to.not.equal(undefined);
      expect(parentOf(operation!)).to.equal(idOf(root));
      expect(operation!.attributes).to.include({ 'graphql.operation.type': 'query', 'graphql.outcome': 'success' });
      const queries = trace.filter((s) => s.name.startsWith('db '));
      expect(queries.length, 'database spans').to.be.greaterThan(0);
      for (const query of queries) expect(parentOf(query)).to.equal(idOf(operation!));
    });

    it('names a named GraphQL operation by its name, and a failed one as an error', async () => {
      const query = 'query Lookup($id: ID!) { product(id: $id) { id } }';
      const answer = await api.post('/graphql', { json: { query, variables: { id: product.id } } }); // no token: UNAUTHENTICATED
      expect(answer.status, answer.text).to.equal(200);
      const { spans: trace } = oneTrace(await spans(), 'POST /graphql');
      const operation = trace.find((s) => s.name === 'query Lookup');
      expect(operation, trace.map((s) => s.name).join(', ')).to.not.equal(undefined);
      expect(operation!.attributes).to.include({ 'graphql.operation.name': 'Lookup', 'graphql.outcome': 'error' });
      expect(operation!.status.code).to.equal(SpanStatusCode.ERROR);
      expectNowhere(trace, product.id);
    });

    it('honours an incoming traceparent: the route span is a child of the remote span, in its trace', async () => {
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const parentId = '00f067aa0ba902b7';
      dataOf(
        await api.get(`/api/v1/products/${product.id}`, {
          token,
          headers: { traceparent: `00-${traceId}-${parentId}-01` },
        }),
      );

      const { root, spans: trace } = oneTrace(await spans(), `GET ${PRODUCT}`);
      expect(traceOf(root)).to.equal(traceId);
      expect(parentOf(root)).to.equal(parentId);
      expect(root.parentSpanContext?.isRemote).to.equal(true);
      expect(trace.filter((s) => s.name.startsWith('db ')).length).to.be.greaterThan(0);
    });

    it('samples by its own rule: a traceparent with the unsampled flag still gives the trace, and the request is traced', async () => {
      const traceId = '5bf92f3577b34da6a3ce929d0e0e4737';
      const parentId = '10f067aa0ba902b8';
      dataOf(
        await api.get(`/api/v1/products/${product.id}`, {
          token,
          headers: { traceparent: `00-${traceId}-${parentId}-00` },
        }),
      );
      const { root } = oneTrace(await spans(), `GET ${PRODUCT}`);
      expect(traceOf(root)).to.equal(traceId);
      expect(parentOf(root)).to.equal(parentId);
    });

    it("puts the trace id on the request's log lines", async () => {
      const traceId = '0af7651916cd43dd8448eb211c80319c';
      dataOf(
        await api.get(`/api/v1/products/${product.id}`, {
          token,
          headers: { traceparent: `00-${traceId}-b7ad6b7169203331-01`, 'X-Request-ID': 'logged-1' },
        }),
      );
      const line = captured.lines().find((l) => l.msg === 'request' && l.request_id === 'logged-1');
      expect(line).to.include({ trace_id: traceId, status: 200 });
    });

    it('runs a job in a span of its own, linked to the request that enqueued it, and the job it enqueues linked to it', async () => {
      const { email } = (await accountWithRole(service!, api, 'user')).user;
      await settled();
      exporter.reset();
      expect((await api.post('/api/v1/auth/password/forgot', { json: { email } })).status).to.equal(202);
      await settled();
      const all = await spans();
      const { root: request } = oneTrace(all, 'POST /api/v1/auth/password/forgot');
      const { root: link, spans: linkTrace } = oneTrace(all, 'job account.link');
      const { root: mail } = oneTrace(all, 'job mail.send');
      for (const job of [link, mail]) {
        expect(job.kind).to.equal(SpanKind.CONSUMER);
        expect(parentOf(job)).to.equal(undefined);
        expect(job.links).to.have.length(1);
      }
      // Traces of their own (the request is over when they run), linked: request → account.link → mail.send.
      expect(traceOf(link)).to.not.equal(traceOf(request));
      expect(link.links[0]!.context.spanId).to.equal(idOf(request));
      expect(link.links[0]!.context.traceId).to.equal(traceOf(request));
      expect(mail.links[0]!.context.spanId).to.equal(idOf(link));
      expect(link.attributes).to.include({ 'job.name': 'account.link', 'job.attempt': 1 });
      // The run's database work is in its trace; nothing carries the address.
      expect(linkTrace.filter((s) => s.name.startsWith('db ')).length).to.be.greaterThan(0);
      expectNowhere(all, email);
    });

    it('names an unknown route `unmatched`, never by its raw path', async () => {
      const answer = await api.get('/api/v1/no-such-thing/12345');
      expect(answer.status).to.equal(404);
      const names = (await spans()).map((s) => s.name);
      expect(names).to.deep.equal(['GET unmatched']);
    });

    // Last: it closes the database. One engine is enough for the route span's error status.
    if (engine === 'SQLite')
      it('marks a 5xx answer as an error (the database gone: 503)', async () => {
        await service!.database.orm.close(true);
        const answer = await api.get(`/api/v1/products/${product.id}`, { token });
        expect(answer.status).to.equal(503);
        const { root } = oneTrace(await spans(), `GET ${PRODUCT}`);
        expect(root.status.code).to.equal(SpanStatusCode.ERROR);
        expect(root.attributes['http.response.status_code']).to.equal(503);
      });
  });
}

describe('tracing off (no tracing.otlp_endpoint)', () => {
  const exporter = new InMemorySpanExporter();
  let captured: ReturnType<typeof capturingLogger>;
  let service: RunningService;

  before(async () => {
    captured = capturingLogger();
    const env = {
      SVC_API_MODE: 'both',
      SVC_AUTH_BCRYPT_COST: '4',
      SVC_RATE_LIMIT_ENABLED: 'false',
      SVC_LOG_LEVEL: 'info',
    };
    service = await startService(testConfig(env), {
      logger: captured.logger,
      spanProcessor: new SimpleSpanProcessor(exporter),
    });
  });
  after(async () => service.stop());

  it('makes no span, installs nothing of OpenTelemetry, and logs no trace id', async () => {
    const api = new Api(service.url);
    const token = (await accountWithRole(service, api, 'moderator')).access_token;
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const created = dataOf<ProductJson>(
      await api.post('/api/v1/products', { token, json: { ...PRODUCT_BODY, name: 'Untraced', price: 1 } }),
      201,
    );
    dataOf(
      await api.get(`/api/v1/products/${created.id}`, { token, headers: { traceparent, 'X-Request-ID': 'off-1' } }),
    );
    expect((await api.post('/graphql', { token, json: { query: '{ products { data { id } } }' } })).status).to.equal(
      200,
    );

    expect(exporter.getFinishedSpans()).to.deep.equal([]);
    const app = service.container.get(TOKENS.HttpApp);
    expect(app.middleware.map((m) => m.name)).to.not.include('traceRequest');
    // No global tracer provider: the API's tracers record nothing.
    expect(trace.getTracer('probe').startSpan('probe').isRecording()).to.equal(false);
    const line = captured.lines().find((l) => l.msg === 'request' && l.request_id === 'off-1');
    expect(line).to.not.equal(undefined);
    expect(line).to.not.have.property('trace_id');
  });
});

describe('tracing: stopping the service', () => {
  it('exports the spans still batched, then shuts the provider down', async () => {
    const exported: ReadableSpan[] = [];
    let shutDown = false;
    const exporter: SpanExporter = {
      export(spans: ReadableSpan[], done: (result: ExportResult) => void) {
        exported.push(...spans);
        done({ code: ExportResultCode.SUCCESS });
      },
      async shutdown() {
        shutDown = true;
      },
    };
    // A batch that would wait a minute: only the stop sends it.
    const processor = new BatchSpanProcessor(exporter, {
      scheduledDelayMillis: 60_000,
      maxExportBatchSize: 512,
      maxQueueSize: 2048,
    });
    const config = testConfig({ SVC_TRACING_OTLP_ENDPOINT: 'http://127.0.0.1:9/v1/traces' });
    const service = await startService(config, { logger: capturingLogger().logger, spanProcessor: processor });
    expect((await fetch(`${service.url}/health/live`)).status).to.equal(200);
    expect(exported).to.deep.equal([]);

    await service.stop();

    expect(exported.map((s) => s.name)).to.deep.equal(['GET /health/live']);
    expect(shutDown).to.equal(true);
    expect(trace.getTracer('probe').startSpan('probe').isRecording(), 'the global provider is let go').to.equal(false);
  });
});
