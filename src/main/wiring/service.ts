import type { Server } from 'node:http';
import type { Container } from 'inversify';
import type { Database } from '../../adapters/outbound/mikroorm/database.js';
import type { Config } from '../config/schema.js';
import type { ProcessOptions } from './processOptions.js';
import { startProcess, type ServingProcess } from './startup.js';

/** A started service: where it listens and how to stop it. */
export interface RunningService {
  readonly url: string;
  /** `http://host:port/metrics` on the metrics listener; `undefined` when `metrics.enabled` is false. */
  readonly metricsUrl: string | undefined;
  readonly server: Server;
  readonly container: Container;
  readonly database: Database;
  /** The configuration it runs with (`jobs.mode` the one it was started with). */
  readonly config: Config;
  /**
   * Graceful stop (docs/http.md): readiness down at once; for `delayMs` every answer is still
   * given but says `Connection: close`; then stop accepting, let in-flight requests finish
   * (bounded by `server.shutdown_timeout`), close every socket and dependency. A second call
   * with a shorter delay (SIGINT after SIGTERM) cuts the delay short.
   */
  stop(options?: StopOptions): Promise<void>;
}

export interface StopOptions {
  /** How long to keep serving with `Connection: close` before closing the listener; default 0. */
  delayMs?: number;
}

/** How a service starts: every process option but `listen` (a service listens) and `databaseOnly`. */
export type StartOptions = Omit<ProcessOptions, 'listen' | 'databaseOnly'>;

/**
 * Starts the service — the API, or with `jobs: 'worker'` a worker that runs jobs and serves only
 * the health paths — through the one list of start-up steps (`startProcess`).
 */
export async function startService(config: Config, options: StartOptions = {}): Promise<RunningService> {
  const started = await startProcess(config, { ...options, listen: true });
  const { api, metricsUrl, container, database } = started;
  return {
    url: api.url,
    metricsUrl,
    server: api.server,
    container,
    database,
    config: started.config,
    stop: stopper(started),
  };
}

/** The graceful stop of a started service (see `RunningService.stop`); each call after the first joins it. */
function stopper({ lifecycle, api, logger, stop: stopSteps }: ServingProcess): RunningService['stop'] {
  let stopping: Promise<void> | undefined;
  let cutDelay: () => void = () => undefined;
  return (options = {}) => {
    const delayMs = options.delayMs ?? 0;
    if (stopping) {
      if (delayMs === 0) cutDelay();
      return stopping;
    }
    stopping = (async () => {
      lifecycle.beginShutdown();
      api.drain.closeEachConnection();
      if (delayMs > 0) {
        logger.info({ delay_ms: delayMs }, 'shutting down: readiness down, answering with Connection: close');
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delayMs);
          cutDelay = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      await stopSteps((name, error) =>
        logger.warn({ err: error, step: name }, 'shutdown: a step did not stop cleanly'),
      );
      logger.info('stopped');
      logger.flush();
    })();
    return stopping;
  };
}
