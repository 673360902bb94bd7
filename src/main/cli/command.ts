import { parseArgs } from 'node:util';
import { pino, type Logger } from 'pino';
import { readConfig } from '../config/readConfig.js';
import type { Config } from '../config/schema.js';
import { createLogger } from '../infrastructure/logger.js';
import { startProcess, type ComposedProcess, type OpenedProcess } from '../wiring/startup.js';

/** One CLI command: what it does and how it runs. Exit codes: 0 done, 1 failed, 2 bad usage. */
export interface Command {
  readonly summary: string;
  readonly usage: string;
  run(args: string[]): Promise<number>;
}

/** Bad usage: told with the command's usage line, exit code 2. */
export class UsageError extends Error {}

/** The configuration, or exit 1 listing what is wrong with it. */
export function loadConfigOrExit(): Config {
  const loaded = readConfig();
  if (!loaded.ok) {
    process.stderr.write(`portico: invalid configuration\n${loaded.errors.map((e) => `  ${e}`).join('\n')}\n`);
    process.exit(1);
  }
  return loaded.config;
}

/** `--flag value` options (and booleans) of a command; a positional only where `positionals` allows. */
export function parseOptions(
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

/** Refuses any argument to a command that takes none. */
export function noArguments(command: string, args: readonly string[]): void {
  if (args.length > 0) throw new UsageError(`${command} takes no arguments (got ${args.join(' ')})`);
}

/** A command's log: its errors only (what it prints is its answer), on stderr. */
function commandLogger(config: Config): Logger {
  const level = config.log.level === 'silent' || config.log.level === 'fatal' ? config.log.level : 'error';
  return createLogger(level, 'json', pino.destination({ dest: 2, sync: true }));
}

/**
 * Runs `work` on the database (its migrations applied when `migrate`, by default as
 * `database.migrate_on_start` says), then stops what was started, whatever happened.
 */
export async function withDatabase<T>(
  config: Config,
  options: { readonly migrate?: boolean },
  work: (opened: OpenedProcess) => Promise<T>,
): Promise<T> {
  const opened = await startProcess(config, {
    ...options,
    listen: false,
    databaseOnly: true,
    logger: commandLogger(config),
  });
  try {
    return await work(opened);
  } finally {
    await opened.stop();
  }
}

/**
 * Runs `work` on the feature modules composed as the service composes them (the same start-up
 * steps, nothing listening, no job run: jobs a use case stores wait for the service), then stops
 * what was started, whatever happened.
 */
export async function withModules<T>(config: Config, work: (composed: ComposedProcess) => Promise<T>): Promise<T> {
  const composed = await startProcess(config, { listen: false, jobs: 'web', logger: commandLogger(config) });
  try {
    return await work(composed);
  } finally {
    await composed.stop();
  }
}
