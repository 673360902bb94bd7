import { listQueryDecoder } from '../../adapters/inbound/codecs/listCodecs.js';
import { JOB_OPERATIONS, type JobUseCases } from '../../adapters/inbound/http/routes/jobs.js';
import { uuidOf } from '../../adapters/inbound/ids.js';
import type { ListJobsQuery } from '../../application/jobs/ListJobs.js';
import { JOB_STATES, type JobState, type JobView } from '../../application/ports/Jobs.js';
import { ConflictError, NotFoundError, ValidationError } from '../../domain/shared/DomainError.js';
import { JobTokens } from '../modules/jobs.js';
import { loadConfigOrExit, parseOptions, UsageError, withModules, type Command } from './command.js';

/** Runs `work` on the jobs module's use cases over the configured database's jobs. */
const withJobs = <T>(work: (jobs: JobUseCases) => Promise<T>): Promise<T> =>
  withModules(loadConfigOrExit(), ({ container }) => work(container.get(JobTokens.UseCases)));

/** `jobs:list`'s options as the admin API's list query decodes them (the same rules and defaults). */
function decodeListOptions(values: Record<string, string | boolean | undefined>): ListJobsQuery {
  const decode = listQueryDecoder(JOB_OPERATIONS.listJobs.list);
  try {
    const query = decode({
      ...(values.state !== undefined ? { state: values.state } : {}),
      ...(values.name !== undefined ? { name: values.name } : {}),
      ...(values.page !== undefined ? { page: values.page } : {}),
      ...(values['per-page'] !== undefined ? { per_page: values['per-page'] } : {}),
    });
    const { state, name } = query.filters ?? {};
    return {
      page: query.page,
      perPage: query.perPage,
      order: query.order,
      ...(state !== undefined ? { state: state as JobState } : {}),
      ...(name !== undefined ? { name } : {}),
    };
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new UsageError(error.fields.map((f) => `--${f.field.replace('_', '-')} ${f.message}`).join('; '));
  }
}

/** A job as one line of `jobs:list`. */
const jobLine = (job: JobView): string =>
  [
    job.id,
    job.name.padEnd(16),
    job.state.padEnd(9),
    `attempts ${job.attempts}`,
    `created ${job.createdAt.toISOString()}`,
    job.finishedAt ? `finished ${job.finishedAt.toISOString()}` : `runs ${job.runAt.toISOString()}`,
    ...(job.lastError ? [`error: ${job.lastError.replace(/\s+/g, ' ').slice(0, 200)}`] : []),
  ].join('  ');

/** `jobs:list`: the jobs module's ListJobs. */
export const jobsList: Command = {
  summary: 'list stored background jobs, newest first (never their payloads)',
  usage: `jobs:list [--state ${JOB_STATES.join('|')}] [--name N] [--page P] [--per-page N]`,
  async run(args) {
    const { values } = parseOptions(args, {
      state: { type: 'string' },
      name: { type: 'string' },
      page: { type: 'string' },
      'per-page': { type: 'string' },
    });
    const query = decodeListOptions(values);
    const page = await withJobs((jobs) => jobs.listJobs.execute(query));
    for (const job of page.items) process.stdout.write(`${jobLine(job)}\n`);
    process.stdout.write(
      `${page.items.length} of ${page.total} job(s)${query.state ? ` ${query.state}` : ''}` +
        (page.total > page.items.length ? ` (page ${page.page}; --page for more)` : '') +
        '\n',
    );
    return 0;
  },
};

/** Whether RetryJob ran the job again (`not-found`, `not-failed`: it did not). */
async function retried(jobs: JobUseCases, id: string): Promise<'retried' | 'not-found' | 'not-failed'> {
  try {
    await jobs.retryJob.execute({ id });
    return 'retried';
  } catch (error) {
    if (error instanceof NotFoundError) return 'not-found';
    if (error instanceof ConflictError) return 'not-failed';
    throw error;
  }
}

/**
 * Every failed job as it stands now (oldest first, page by page), then each retried: a retry moves
 * a job out of the list, so the pages are read before any is retried. Answers how many ran again.
 */
async function retryEveryFailed(jobs: JobUseCases): Promise<number> {
  const failed: string[] = [];
  for (let page = 1; ; page += 1) {
    const { items } = await jobs.listJobs.execute({ state: 'failed', page, perPage: 100, order: 'asc' });
    failed.push(...items.map((job) => job.id));
    if (items.length < 100) break;
  }
  let count = 0;
  for (const id of failed) if ((await retried(jobs, id)) === 'retried') count += 1;
  return count;
}

/** `jobs:retry`: the jobs module's RetryJob, for one job or every failed one. */
export const jobsRetry: Command = {
  summary: 'run a failed job again (by id), or every failed job (--failed)',
  usage: 'jobs:retry <id> | --failed',
  async run(args) {
    const { values, positionals } = parseOptions(args, { failed: { type: 'boolean' } }, 1);
    const [raw] = positionals;
    if ((raw === undefined) === (values.failed !== true))
      throw new UsageError('give a job id or --failed (one of them)');
    if (raw === undefined) {
      process.stdout.write(`${await withJobs(retryEveryFailed)} failed job(s) will run again\n`);
      return 0;
    }
    const id = uuidOf(raw);
    const outcome = id === undefined ? 'not-found' : await withJobs((jobs) => retried(jobs, id));
    if (outcome === 'retried') {
      process.stdout.write(`job ${id} will run again\n`);
      return 0;
    }
    process.stderr.write(
      outcome === 'not-found'
        ? `portico: no job ${raw}\n`
        : `portico: job ${raw} is not failed: only a failed job can be retried\n`,
    );
    return 1;
  },
};
