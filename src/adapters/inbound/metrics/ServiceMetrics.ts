import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { JobOutcome, JobStats } from '../../../application/ports/Jobs.js';

/** The database failures counted apart (README: Metrics and Tracing): what an operator pages on differs for each. */
export type DatabaseErrorKind = 'timeout' | 'unavailable' | 'storage_full' | 'other';

export type GraphQLOperationKind = 'query' | 'mutation' | 'subscription';

/** How long a scrape waits for the job gauges' reading from the store. */
const JOB_STATS_TIMEOUT_MS = 1000;

/** Most distinct GraphQL operation names given their own series; later names are counted as `other`. */
export const MAX_OPERATION_NAMES = 100;

/** A GraphQL Name (the spec's grammar): anything else a client sends as `operationName` is `other`. */
const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,99}$/;

interface HttpSeries {
  count: ReturnType<Counter<'method' | 'route' | 'status'>['labels']>;
  duration: ReturnType<Histogram<'method' | 'route' | 'status'>['labels']>;
}

/**
 * The process-wide metrics (CPU, memory, event loop, GC, handles), registered once per process: they
 * describe the process, not a service, and prom-client's collectors cannot be stopped, so a test
 * process starting many services must not start them many times.
 */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
    // Gauges named like counters, which `promtool check metrics` refuses; each is the sum of the
    // same name without `_total` (by type), which stays.
    for (const name of [
      'nodejs_active_handles_total',
      'nodejs_active_requests_total',
      'nodejs_active_resources_total',
    ]) {
      processRegistry.removeSingleMetric(name);
    }
  }
  return processRegistry;
}

/**
 * One service's Prometheus series, in a registry of its own (never prom-client's global one, so
 * several services in one process never share or clash), plus the process metrics. Labels are
 * bounded: `route` is a router pattern or `unmatched`, GraphQL operation names are capped at
 * MAX_OPERATION_NAMES, database error kinds and outcomes are fixed sets.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, matched route pattern (or "unmatched") and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request reaching the app to its answer, by method, matched route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  /** Kept in a plain number, read at scrape time: the request path pays one addition, no label hashing. */
  private inFlight = 0;
  readonly httpInFlight: Gauge = new Gauge({
    name: 'http_requests_in_flight',
    help: 'HTTP requests being processed now.',
    registers: [this.registry],
    collect: (): void => this.httpInFlight.set(this.inFlight),
  });
  readonly graphqlOperations = new Counter({
    name: 'graphql_operations_total',
    help: `GraphQL operations by name ("anonymous"; "other" past the first ${MAX_OPERATION_NAMES} names), kind and outcome.`,
    labelNames: ['operation', 'kind', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly rateLimitRejections = new Counter({
    name: 'rate_limit_rejections_total',
    help: 'Requests refused with 429 RATE_LIMITED by the per-client rate limit.',
    registers: [this.registry],
  });
  readonly loginFailures = new Counter({
    name: 'login_failures_total',
    help: 'Failed logins (unknown e-mail or wrong password).',
    registers: [this.registry],
  });
  readonly loginThrottled = new Counter({
    name: 'login_throttled_total',
    help: 'Logins refused because the e-mail and address used up their failures.',
    registers: [this.registry],
  });
  readonly refreshTokenReuse = new Counter({
    name: 'refresh_token_reuse_total',
    help: 'Spent refresh tokens presented again (their whole family is then revoked).',
    registers: [this.registry],
  });
  readonly databaseErrors = new Counter({
    name: 'database_errors_total',
    help: 'Database operations that failed, by kind: timeout, unavailable, storage_full, other.',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  readonly filesUploaded = new Counter({
    name: 'files_uploaded_total',
    help: 'Files stored through the service or completed after a direct upload (docs/files.md), by resource and field.',
    labelNames: ['resource', 'field'] as const,
    registers: [this.registry],
  });
  readonly filesUploadedBytes = new Counter({
    name: 'files_uploaded_bytes_total',
    help: 'Bytes of the files counted by files_uploaded_total.',
    registers: [this.registry],
  });

  readonly jobsEnqueued = new Counter({
    name: 'jobs_enqueued_total',
    help: 'Background jobs stored by this instance (counted when the write they follow committed), by job name.',
    labelNames: ['name'] as const,
    registers: [this.registry],
  });
  readonly jobsFinished = new Counter({
    name: 'jobs_finished_total',
    help: 'Runs of background jobs ended on this instance, by job name and outcome: completed, retried, failed.',
    labelNames: ['name', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly jobsDuration = new Histogram({
    name: 'jobs_duration_seconds',
    help: 'How long runs of background jobs took on this instance, by job name.',
    labelNames: ['name'] as const,
    buckets: [0.005, 0.025, 0.1, 0.25, 1, 2.5, 10, 30, 60, 300],
    registers: [this.registry],
  });
  readonly jobsWaiting: Gauge = new Gauge({
    name: 'jobs_waiting',
    help: 'Background jobs due and waiting to run, by job name, across all instances (read from the store at each scrape).',
    labelNames: ['name'] as const,
    registers: [this.registry],
    collect: async (): Promise<void> => {
      const stats = await this.jobStats();
      if (!stats) return;
      for (const name of this.waitingNames) if (!(name in stats.waiting)) this.jobsWaiting.labels(name).set(0);
      for (const [name, count] of Object.entries(stats.waiting)) {
        this.waitingNames.add(name);
        this.jobsWaiting.labels(name).set(count);
      }
    },
  });
  readonly jobsOldestWaiting: Gauge = new Gauge({
    name: 'jobs_oldest_waiting_seconds',
    help: 'How long the oldest due background job has waited, across all instances (0 when none waits).',
    registers: [this.registry],
    collect: async (): Promise<void> => {
      const stats = await this.jobStats();
      if (stats) this.jobsOldestWaiting.set(stats.oldestWaitingSeconds);
    },
  });

  private readonly operationNames = new Set<string>();
  /** Where the job gauges are read from (`watchJobs`), and the scrape's reading, shared by both gauges. */
  private jobSource: (() => Promise<JobStats>) | undefined;
  private reading: { readonly at: number; readonly stats: Promise<JobStats | undefined> } | undefined;
  private readonly waitingNames = new Set<string>();
  /** route → method → status → its counter and histogram children, so an answer costs three map reads. */
  private readonly httpSeries = new Map<string, Map<string, Map<number, HttpSeries>>>();

  constructor() {
    // Every fixed-label series exists from the start, so a rate() over them never misses its first increment.
    for (const kind of ['timeout', 'unavailable', 'storage_full', 'other'] as const) this.databaseErrors.labels(kind);
  }

  /** A request entered the app. */
  requestStarted(): void {
    this.inFlight += 1;
  }

  /** A request was answered: counts it and observes its duration under its labels. */
  requestEnded(method: string, route: string, status: number, seconds: number): void {
    this.inFlight -= 1;
    let byMethod = this.httpSeries.get(route);
    if (!byMethod) this.httpSeries.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (!series) {
      const labels = [method, route, String(status)] as const;
      series = { count: this.httpRequests.labels(...labels), duration: this.httpDuration.labels(...labels) };
      byStatus.set(status, series);
    }
    series.count.inc();
    series.duration.observe(seconds);
  }

  /** A file of `bytes` was stored in a resource's (plural) field (its JSON name). */
  fileUploaded(resource: string, field: string, bytes: number): void {
    this.filesUploaded.labels(resource, field).inc();
    this.filesUploadedBytes.inc(bytes);
  }

  /** Counts one GraphQL operation; its name is bounded (see MAX_OPERATION_NAMES). */
  graphqlOperation(name: string | null | undefined, kind: GraphQLOperationKind, outcome: 'success' | 'error'): void {
    this.graphqlOperations.labels(this.operationLabel(name), kind, outcome).inc();
  }

  private operationLabel(name: string | null | undefined): string {
    if (name === undefined || name === null || name === '') return 'anonymous';
    if (this.operationNames.has(name)) return name;
    if (!GRAPHQL_NAME.test(name) || this.operationNames.size >= MAX_OPERATION_NAMES) return 'other';
    this.operationNames.add(name);
    return name;
  }

  /** The job gauges are read from `source` at each scrape (a failed reading leaves them as they were). */
  watchJobs(source: () => Promise<JobStats>): void {
    this.jobSource = source;
  }

  /**
   * One reading per scrape (both gauges ask at once), given up after JOB_STATS_TIMEOUT_MS: a store
   * that does not answer (a frozen database) leaves the gauges as they were, never the scrape hanging.
   */
  private jobStats(): Promise<JobStats | undefined> {
    const source = this.jobSource;
    if (!source) return Promise.resolve(undefined);
    const now = Date.now();
    if (!this.reading || now - this.reading.at > 250) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), JOB_STATS_TIMEOUT_MS);
      });
      const stats = Promise.race([source().catch(() => undefined), timedOut]).finally(() => clearTimeout(timer));
      this.reading = { at: now, stats };
    }
    return this.reading.stats;
  }

  /** Counts a job stored (its write committed). */
  jobEnqueued(name: string): void {
    this.jobsEnqueued.labels(name).inc();
  }

  /** Counts a run's end and observes its duration. */
  jobFinished(name: string, outcome: JobOutcome, seconds: number): void {
    this.jobsFinished.labels(name, outcome).inc();
    this.jobsDuration.labels(name).observe(seconds);
  }

  /** Counts one database failure. */
  databaseError(kind: DatabaseErrorKind): void {
    this.databaseErrors.labels(kind).inc();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The scrape: this service's series, then the process's. */
  async text(): Promise<string> {
    const own = await this.registry.metrics();
    const process = await processMetrics().metrics();
    return `${own}${own.endsWith('\n') ? '' : '\n'}${process}`;
  }
}
