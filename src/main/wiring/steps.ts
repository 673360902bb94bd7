import type { Logger } from 'pino';
import type { Database } from '../../adapters/outbound/mikroorm/database.js';
import type { Config } from '../config/schema.js';
import { openDatabase } from '../infrastructure/database.js';

/**
 * The start of a process as one ordered list of steps, each with its stop. A step that fails
 * stops every step started before it, last first, and its error is the one reported; `stopAll`
 * stops them the same way when the process ends. The server, the CLI and any other entry point
 * open what they need through it, so nothing is left running whichever step fails.
 */
export class Steps {
  private readonly started: { readonly name: string; readonly stop: () => Promise<void> }[] = [];

  /** `observe` is told each step's name before it starts (tests make the N-th one fail). */
  constructor(private readonly observe?: (name: string) => void) {}

  /** Starts a step; `stop` (if any) is called with what `start` answered when the steps stop. */
  async run<T>(name: string, start: () => T | Promise<T>, stop?: (value: T) => unknown): Promise<T> {
    let value: T;
    try {
      this.observe?.(name);
      value = await start();
    } catch (error) {
      await this.stopAll();
      throw error;
    }
    if (stop) this.started.push({ name, stop: async () => void (await stop(value)) });
    return value;
  }

  /**
   * Stops every started step, last first. A stop that fails is told to `failed` (by default
   * nowhere) and the others still run: a failed close must not keep the rest open.
   */
  async stopAll(failed?: (name: string, error: unknown) => void): Promise<void> {
    for (let step = this.started.pop(); step !== undefined; step = this.started.pop()) {
      try {
        await step.stop();
      } catch (error) {
        failed?.(step.name, error);
      }
    }
  }
}

/** The database steps every entry point shares: open it (closed last), then the pending migrations when `migrate`. */
export async function databaseSteps(
  steps: Steps,
  config: Config,
  options: { readonly migrate: boolean; readonly logger?: Logger },
): Promise<Database> {
  const { logger } = options;
  const database = await steps.run(
    'database',
    () =>
      openDatabase(
        config,
        logger ? { warn: (message) => logger.warn({ database: message }, 'database driver warning') } : {},
      ),
    (opened) => opened.close(),
  );
  if (options.migrate) {
    await steps.run('migrations', async () => {
      const applied = await database.migrate();
      if (applied.length > 0) logger?.info({ migrations: applied }, 'migrations applied');
      return applied;
    });
  }
  return database;
}
