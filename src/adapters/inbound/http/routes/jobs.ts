import type Router from '@koa/router';
import type { Authenticate } from '../../../../application/auth/Authenticate.js';
import type { ListJobs } from '../../../../application/jobs/ListJobs.js';
import type { RemoveJob } from '../../../../application/jobs/RemoveJob.js';
import type { RetryJob } from '../../../../application/jobs/RetryJob.js';
import type { AccessPolicy } from '../../../../application/ports/AccessPolicy.js';
import { JOB_STATES, type JobState, type JobView } from '../../../../application/ports/Jobs.js';
import { NotFoundError } from '../../../../domain/shared/DomainError.js';
import { closedObject, nullableSchema, WIRE, type JsonSchema } from '../../codecs/jsonSchema.js';
import { optional, rule, trimmedText } from '../../codecs/fields.js';
import { idOf } from '../../ids.js';
import { success } from '../envelope.js';
import { accepted, noContent, operation, page, RestRoutes } from '../operations.js';
import { pageMeta } from '../presenters.js';
import type { RequestState } from '../state.js';
import { ADMIN_TAG } from './users.js';

export interface JobUseCases {
  authenticate: Authenticate;
  policy: AccessPolicy;
  listJobs: ListJobs;
  retryJob: RetryJob;
  removeJob: RemoveJob;
}

const StateField = rule(
  `must be one of ${JOB_STATES.join(', ')}`,
  (u): JobState | undefined =>
    typeof u === 'string' && (JOB_STATES as readonly string[]).includes(u.trim()) ? (u.trim() as JobState) : undefined,
  { type: 'string', enum: JOB_STATES, description: "Only jobs in this state (`retry`: waiting for a retry's delay)" },
);
const NameField = trimmedText(1, 200);

/** A job as `presentJob` writes it: never its payload (it may hold addresses and tokens). */
export const JOB_SCHEMA: JsonSchema = {
  title: 'Job',
  ...closedObject({
    id: WIRE.uuid,
    name: WIRE.text('What runs it, e.g. `mail.send`'),
    state: StateField.schema,
    attempts: WIRE.integer('Runs started (a job that failed once and waits for its retry shows 1)', 0),
    last_error: nullableSchema(WIRE.text("The last failed run's error message (no stack)")),
    created_at: WIRE.dateTime,
    run_at: {
      ...WIRE.dateTime,
      description: 'When it runs next (a retried job: after its delay); once finished, when it last ran',
    },
    finished_at: nullableSchema({ ...WIRE.dateTime, description: 'When it completed or failed for good' }),
  }),
};

/** A job on the wire. */
export function presentJob(job: JobView): Record<string, string | number | null> {
  return {
    id: job.id,
    name: job.name,
    state: job.state,
    attempts: job.attempts,
    last_error: job.lastError,
    created_at: job.createdAt.toISOString(),
    run_at: job.runAt.toISOString(),
    finished_at: job.finishedAt?.toISOString() ?? null,
  };
}

const JOB_PATH = '/api/v1/admin/jobs/:id';
const jobNotFound = 'No job has this id (an id that is not a UUID included)';
const jobId = (raw: unknown): string => idOf(raw, (id) => new NotFoundError('Job', id));

/** The background jobs under `/api/v1/admin/jobs` (docs/jobs.md). */
export const JOB_OPERATIONS = {
  listJobs: operation({
    id: 'listJobs',
    method: 'GET',
    path: '/api/v1/admin/jobs',
    tag: ADMIN_TAG,
    summary: 'List background jobs',
    description:
      'A page of the stored jobs, newest first, filtered by `state` and `name`. Completed jobs are kept a day, ' +
      'failed ones for `jobs.retention`. Payloads are never shown.',
    access: 'policy',
    list: {
      sortFields: ['created_at'],
      filters: { state: optional(StateField), name: optional(NameField) },
    },
    answers: [page('A page of jobs', JOB_SCHEMA)],
  }),
  retryJob: operation({
    id: 'retryJob',
    method: 'POST',
    path: `${JOB_PATH}/retry`,
    tag: ADMIN_TAG,
    summary: 'Run a failed job again',
    description: 'Its attempts start over and it is due at once.',
    access: 'policy',
    answers: [accepted('The job is waiting to run again')],
    failures: { 404: jobNotFound, 409: 'The job is not failed' },
  }),
  removeJob: operation({
    id: 'removeJob',
    method: 'DELETE',
    path: JOB_PATH,
    tag: ADMIN_TAG,
    summary: 'Remove a job',
    description: 'A job that is waiting, waiting for a retry, or failed is removed for good, never to run.',
    access: 'policy',
    answers: [noContent('The job is removed')],
    failures: { 404: jobNotFound, 409: 'The job is running (or completed)' },
  }),
};

/** `/api/v1/admin/jobs` (token and policy). */
export function jobRoutes(useCases: JobUseCases): (router: Router<RequestState>) => void {
  const ops = JOB_OPERATIONS;
  return (router) => {
    const api = new RestRoutes(router, useCases);

    api.on(ops.listJobs, async (ctx, { query }) => {
      const { state, name } = query.filters ?? {};
      const found = await useCases.listJobs.execute({
        page: query.page,
        perPage: query.perPage,
        order: query.order,
        ...(state !== undefined ? { state: state as JobState } : {}),
        ...(name !== undefined ? { name } : {}),
      });
      ctx.body = success(found.items.map(presentJob), { meta: pageMeta(found) });
    });

    api.on(ops.retryJob, async (ctx) => {
      await useCases.retryJob.execute({ id: jobId(ctx.params.id) });
      ctx.status = 202;
      ctx.body = success(null, { message: 'the job will run again' });
    });

    api.on(ops.removeJob, async (ctx) => {
      await useCases.removeJob.execute({ id: jobId(ctx.params.id) });
      ctx.status = 204;
    });
  };
}
