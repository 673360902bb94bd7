import { parseArgs } from 'node:util';
import { decodeFields, required } from '../adapters/inbound/codecs/fields.js';
import { RegisterBody, RoleField } from '../adapters/inbound/codecs/userCodecs.js';
import { BcryptPasswordHasher } from '../adapters/outbound/crypto/BcryptPasswordHasher.js';
import { DatabaseConnectionError } from '../adapters/outbound/mikroorm/database.js';
import { MikroOrmUserRepository } from '../adapters/outbound/mikroorm/MikroOrmUserRepository.js';
import { SystemClock } from '../adapters/outbound/system/SystemClock.js';
import { UuidGenerator } from '../adapters/outbound/system/UuidGenerator.js';
import { CreateUser } from '../application/admin/CreateUser.js';
import { ValidationError } from '../domain/shared/DomainError.js';
import { EmailAlreadyRegisteredError } from '../domain/user/UserErrors.js';
import type { StoredRule } from '../adapters/outbound/access/PolicyRuleStore.js';
import { announceAccessPolicyChange, loadAccessPolicy, resetAccessPolicy } from './infrastructure/accessPolicy.js';
import { StartupError } from './infrastructure/StartupError.js';
import { apiDocument } from './wiring/apiDocument.js';
import { configurationReference } from './config/reference.js';
import { databaseSteps, Steps } from './wiring/steps.js';
import { JOB_OPERATIONS } from '../adapters/inbound/http/routes/jobs.js';
import { listQueryDecoder } from '../adapters/inbound/codecs/listCodecs.js';
import { uuidOf } from '../adapters/inbound/ids.js';
import { ListJobs, type ListJobsQuery } from '../application/jobs/ListJobs.js';
import { JOB_STATES, type JobAdmin, type JobState, type JobView } from '../application/ports/Jobs.js';
import { openJobs } from './infrastructure/jobs.js';
import { createLogger } from './infrastructure/logger.js';
import { MODULES } from './modules/index.js';
import { readConfig } from './config/readConfig.js';

/** One CLI command: what it does and how it runs. Exit codes: 0 done, 1 failed, 2 bad usage. */
interface Command {
  summary: string;
  usage: string;
  run(args: string[]): Promise<number>;
}

class UsageError extends Error {}

function loadConfigOrExit() {
  const loaded = readConfig();
  if (!loaded.ok) {
    process.stderr.write(`portico: invalid configuration\n${loaded.errors.map((e) => `  ${e}`).join('\n')}\n`);
    process.exit(1);
  }
  return loaded.config;
}

/** The options of `users:create`, as `--flag value` pairs. */
function parseCreateUserArgs(args: string[]): Record<string, string> {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: {
        email: { type: 'string' },
        password: { type: 'string' },
        'first-name': { type: 'string' },
        'last-name': { type: 'string' },
        role: { type: 'string' },
      },
      strict: true,
      allowPositionals: true,
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
    return values as Record<string, string>;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError((error as Error).message);
  }
}

/** `--flag value` options (and booleans) of a command; a positional only where `positionals` allows. */
function parseOptions(
  args: string[],
  options: Record<string, { type: 'string' | 'boolean' }>,
  positionals = 0,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  try {
    const parsed = parseArgs({ args, options, strict: true, allowPositionals: true });
    if (parsed.positionals.length > positionals)
      throw new UsageError(`unexpected argument ${parsed.positionals[positionals]}`);
    return parsed;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError((error as Error).message);
  }
}

/** Runs `work` on the configured database's jobs (the engine opened as the service opens it), then closes both. */
async function withJobs<T>(work: (admin: JobAdmin) => Promise<T>): Promise<T> {
  const config = loadConfigOrExit();
  const steps = new Steps();
  try {
    const database = await databaseSteps(steps, config, { migrate: config.database.migrateOnStart });
    const jobs = await steps.run(
      'jobs',
      // Only to read and steer jobs: no scheduler, no supervisor for the life of a command.
      () => openJobs(config, database, createLogger('error', 'json'), { background: false }),
      (engine) => engine.stop(),
    );
    return await work(jobs.admin);
  } finally {
    await steps.stopAll();
  }
}

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

/** A rule as a line of policy.csv. */
const csvLine = (rule: StoredRule): string => [rule.kind, ...rule.values].join(', ');

const CLI_FIELD = { first_name: 'first-name', last_name: 'last-name' } as Record<string, string>;

const commands: Record<string, Command> = {
  'users:create': {
    summary: 'create a user with any role the policy knows (the way to make the first admin)',
    usage: 'users:create --email E --password P --first-name F --last-name L --role R',
    async run(args) {
      const options = parseCreateUserArgs(args);
      let input;
      try {
        input = decodeFields(
          { ...RegisterBody, role: required(RoleField) },
          {
            email: options.email,
            password: options.password,
            first_name: options['first-name'],
            last_name: options['last-name'],
            role: options.role,
          },
        );
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        throw new UsageError(error.fields.map((f) => `--${CLI_FIELD[f.field] ?? f.field} ${f.message}`).join('; '));
      }
      const config = loadConfigOrExit();
      const steps = new Steps();
      try {
        const database = await databaseSteps(steps, config, { migrate: config.database.migrateOnStart });
        const policy = await steps.run('access policy', () => loadAccessPolicy(config, database));
        const create = new CreateUser({
          users: new MikroOrmUserRepository(database),
          hasher: new BcryptPasswordHasher(config.auth.bcryptCost),
          policy,
          ids: new UuidGenerator(),
          clock: new SystemClock(),
        });
        const user = await create.execute({
          email: input.email,
          password: input.password,
          firstName: input.first_name,
          lastName: input.last_name,
          role: input.role,
        });
        process.stdout.write(`created user ${user.id} ${user.email} with role ${user.role}\n`);
        return 0;
      } catch (error) {
        if (error instanceof ValidationError) {
          process.stderr.write(`portico: ${error.fields.map((f) => `--${f.field} ${f.message}`).join('; ')}\n`);
          return 1;
        }
        if (error instanceof EmailAlreadyRegisteredError) {
          process.stderr.write(`portico: ${input.email}: email already registered\n`);
          return 1;
        }
        throw error;
      } finally {
        await steps.stopAll();
      }
    },
  },
  migrate: {
    summary: 'apply pending database migrations and exit',
    usage: 'migrate',
    async run(args) {
      if (args.length > 0) throw new UsageError(`migrate takes no arguments (got ${args.join(' ')})`);
      const config = loadConfigOrExit();
      const steps = new Steps();
      try {
        const database = await databaseSteps(steps, config, { migrate: false });
        const applied = await steps.run('migrations', () => database.migrate());
        process.stdout.write(
          applied.length === 0
            ? `no pending migrations (${database.target.display})\n`
            : `applied ${applied.length} migration(s) to ${database.target.display}: ${applied.join(', ')}\n`,
        );
      } finally {
        await steps.stopAll();
      }
      return 0;
    },
  },
  'policies:reset': {
    summary: 'replace the access rules in the database by those of access.policy (policy/policy.csv)',
    usage: 'policies:reset',
    async run(args) {
      if (args.length > 0) throw new UsageError(`policies:reset takes no arguments (got ${args.join(' ')})`);
      const config = loadConfigOrExit();
      const steps = new Steps();
      let replaced;
      let database;
      try {
        database = await databaseSteps(steps, config, { migrate: config.database.migrateOnStart });
        const opened = database;
        replaced = await steps.run('access rules reset', () => resetAccessPolicy(config, opened));
      } finally {
        await steps.stopAll();
      }
      const { removed, added } = replaced;
      const source = `${config.access.policy} into ${database.target.display}`;
      process.stdout.write(
        removed.length + added.length === 0
          ? `access rules already match ${source}: nothing replaced\n`
          : `reset access rules from ${source}: removed ${removed.length}, added ${added.length}\n` +
              [
                ...removed.map((rule) => `  removed: ${csvLine(rule)}\n`),
                ...added.map((rule) => `  added:   ${csvLine(rule)}\n`),
              ].join(''),
      );
      if (!config.redis.url) {
        process.stdout.write('no redis.url configured: running instances load the rules when they restart\n');
        return 0;
      }
      try {
        const heard = await announceAccessPolicyChange(config.redis.url);
        process.stdout.write(`told ${heard} running instance(s) through Redis to reload the rules\n`);
      } catch (error) {
        process.stderr.write(
          `portico: redis: could not announce the reset (${(error as Error).message}); ` +
            'running instances load the rules when they reconnect to Redis or restart\n',
        );
      }
      return 0;
    },
  },
  'jobs:list': {
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
      const page = await withJobs((admin) => new ListJobs(admin).execute(query));
      for (const job of page.items) process.stdout.write(`${jobLine(job)}\n`);
      process.stdout.write(
        `${page.items.length} of ${page.total} job(s)${query.state ? ` ${query.state}` : ''}` +
          (page.total > page.items.length ? ` (page ${page.page}; --page for more)` : '') +
          '\n',
      );
      return 0;
    },
  },
  'jobs:retry': {
    summary: 'run a failed job again (by id), or every failed job (--failed)',
    usage: 'jobs:retry <id> | --failed',
    async run(args) {
      const { values, positionals } = parseOptions(args, { failed: { type: 'boolean' } }, 1);
      const [raw] = positionals;
      if ((raw === undefined) === (values.failed !== true))
        throw new UsageError('give a job id or --failed (one of them)');
      if (raw !== undefined) {
        const id = uuidOf(raw);
        const outcome = id === undefined ? 'not-found' : await withJobs((admin) => admin.retry(id));
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
      }
      const retried = await withJobs(async (admin) => {
        // Every failed job as it stands now (oldest first, page by page), then each retried: a retry
        // moves a job out of the list, so the pages are read before any is retried.
        const failed: string[] = [];
        for (let page = 1; ; page += 1) {
          const { items } = await admin.list({ state: 'failed', page, perPage: 100, order: 'asc' });
          failed.push(...items.map((job) => job.id));
          if (items.length < 100) break;
        }
        let count = 0;
        for (const id of failed) if ((await admin.retry(id)) === 'retried') count += 1;
        return count;
      });
      process.stdout.write(`${retried} failed job(s) will run again\n`);
      return 0;
    },
  },
  'config:docs': {
    summary: 'print the configuration reference (every key, its SVC_ variable, type, default and meaning) as Markdown',
    usage: 'config:docs',
    async run(args) {
      if (args.length > 0) throw new UsageError(`config:docs takes no arguments (got ${args.join(' ')})`);
      process.stdout.write(configurationReference());
      return 0;
    },
  },
  openapi: {
    summary: 'print the OpenAPI 3.1 document of the REST API this configuration serves (nothing is started)',
    usage: 'openapi',
    async run(args) {
      if (args.length > 0) throw new UsageError(`openapi takes no arguments (got ${args.join(' ')})`);
      const config = loadConfigOrExit();
      process.stdout.write(`${JSON.stringify(apiDocument(MODULES, config), null, 2)}\n`);
      return 0;
    },
  },
};

function help(): string {
  const lines = Object.values(commands).map((c) => `  ${c.usage.padEnd(76)} ${c.summary}`);
  return `usage: npm run cli -- <command> [options]\n\ncommands:\n${lines.join('\n')}\n  ${'--help'.padEnd(76)} show this help\n`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(help());
    return name === undefined ? 2 : 0;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`portico: unknown command "${name}"\n\n${help()}`);
    return 2;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`portico: ${error.message}\nusage: npm run cli -- ${command.usage}\n`);
      return 2;
    }
    if (error instanceof DatabaseConnectionError) {
      process.stderr.write(`portico: database: ${error.message}\n`);
      return 1;
    }
    if (error instanceof StartupError) {
      process.stderr.write(`portico: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`portico: ${name} failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
