import { databaseTarget } from '../../adapters/outbound/mikroorm/database.js';
import { readConfig } from '../config/readConfig.js';
import type { Config } from '../config/schema.js';
import { startService, type RunningService } from './service.js';
import type { JobsMode } from './processOptions.js';
import { firstLine, startupFailure } from './startupFailure.js';

/**
 * A service process (`npm start`, `npm run worker`): validates the configuration, starts the service
 * with `jobs` (the configured `jobs.mode` when absent), says what it serves, and stops gracefully on
 * SIGTERM/SIGINT. Exits 1 with one line on stderr when the configuration or the start fails.
 */
export async function serve(options: { readonly jobs?: JobsMode } = {}): Promise<void> {
  const loaded = readConfig();
  if (!loaded.ok) {
    process.stderr.write(`portico: invalid configuration\n${loaded.errors.map((e) => `  ${e}`).join('\n')}\n`);
    process.exit(1);
  }
  const { config } = loaded;
  let service: RunningService;
  try {
    service = await startService(config, options.jobs ? { jobs: options.jobs } : {});
  } catch (error) {
    process.stderr.write(
      `portico: ${startupFailure(error, config.server) ?? `start-up failed: ${firstLine(error)}`}\n`,
    );
    process.exit(1);
  }
  process.stdout.write(`${serving(service)}\n`);
  if (service.metricsUrl)
    process.stdout.write(
      `Portico metrics at ${service.metricsUrl}, health probes at ${new URL(service.metricsUrl).origin}/health/live\n`,
    );
  stopOnSignals(service, config);
}

/** What the service serves, where, on which database: a worker serves no API, only the health paths. */
function serving({ url, config }: RunningService): string {
  const where = `database: ${databaseTarget(config.database.url).display}, env: ${config.env}`;
  return config.jobs.mode === 'worker'
    ? `Portico worker running jobs (${config.jobs.concurrency} at a time), health paths on ${url} (${where})`
    : `Portico listening on ${url} (api: ${config.api.mode}, ${where})`;
}

/**
 * SIGTERM (an orchestrator): readiness down, keep answering with `Connection: close` for
 * `server.shutdown_delay` so balancers and keep-alive clients move away, then close. SIGINT skips the delay.
 */
function stopOnSignals(service: RunningService, config: Config): void {
  const shutdown = (signal: 'SIGTERM' | 'SIGINT'): void => {
    process.stdout.write(`Portico received ${signal}: shutting down\n`);
    service.stop({ delayMs: signal === 'SIGTERM' ? config.server.shutdownDelayMs : 0 }).then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`portico: shutdown failed: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
