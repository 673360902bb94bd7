import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api';
import type { JobHandler, JobPayload, JobQueue, NewJob, Transaction } from '../../../application/ports/Jobs.js';

/**
 * Tracing of jobs (README: Metrics and Tracing; docs/jobs.md), on only while tracing is: a job
 * enqueued within a traced request carries that request's span context (W3C `traceparent`, in a
 * payload key of its own, which handlers never see), and its runs are spans of their own, in
 * traces of their own, each linked to that span — the request is over long before the job runs.
 */

/** The payload key the enqueuing span's context travels in. */
const TRACE_KEY = '__traceparent';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

const traceparentOf = (span: SpanContext): string =>
  `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, '0')}`;

function spanContextOf(value: unknown): SpanContext | undefined {
  const match = typeof value === 'string' ? TRACEPARENT.exec(value) : null;
  if (!match) return undefined;
  return { traceId: match[1]!, spanId: match[2]!, traceFlags: parseInt(match[3]!, 16), isRemote: true };
}

/** A JobQueue that stamps each job enqueued under an active span with that span's context. */
export class TraceStampingJobQueue implements JobQueue {
  constructor(private readonly queue: JobQueue) {}

  enqueue(job: NewJob, within?: Transaction): Promise<string | undefined> {
    const active = trace.getSpanContext(context.active());
    const stamped = active ? { ...job, payload: { ...job.payload, [TRACE_KEY]: traceparentOf(active) } } : job;
    return this.queue.enqueue(stamped, within);
  }
}

/** The payload as its handler sees it: without the enqueuing span's context. */
function withoutTrace(payload: JobPayload): JobPayload {
  if (!(TRACE_KEY in payload)) return payload;
  const { [TRACE_KEY]: _trace, ...rest } = payload;
  return rest;
}

/** The handlers, given payloads without the enqueuing span's context (a run while tracing is off). */
export function untracedHandlers(handlers: ReadonlyMap<string, JobHandler>): ReadonlyMap<string, JobHandler> {
  return new Map(
    [...handlers].map(([name, handler]): [string, JobHandler] => [
      name,
      (payload, job) => handler(withoutTrace(payload), job),
    ]),
  );
}

/**
 * The handlers, each run in a CONSUMER span `job <name>` (with the job's id, name and attempt),
 * linked to the span that enqueued the job, ended with an error status when the run throws; the
 * run's database queries are its children.
 */
export function tracedHandlers(
  handlers: ReadonlyMap<string, JobHandler>,
  tracer: Tracer,
): ReadonlyMap<string, JobHandler> {
  return new Map(
    [...handlers].map(([name, handler]): [string, JobHandler] => [
      name,
      async (payload, job) => {
        const enqueuedBy = spanContextOf(payload[TRACE_KEY]);
        const span = tracer.startSpan(
          `job ${name}`,
          {
            kind: SpanKind.CONSUMER,
            root: true,
            attributes: { 'job.id': job.id, 'job.name': name, 'job.attempt': job.attempt },
            links: enqueuedBy ? [{ context: enqueuedBy }] : [],
          },
          ROOT_CONTEXT,
        );
        try {
          await context.with(trace.setSpan(ROOT_CONTEXT, span), () => handler(withoutTrace(payload), job));
        } catch (error) {
          span.recordException(error instanceof Error ? error : String(error));
          span.setStatus({
            code: SpanStatusCode.ERROR,
            message: error instanceof Error ? error.message : String(error),
          });
          throw error;
        } finally {
          span.end();
        }
      },
    ]),
  );
}
