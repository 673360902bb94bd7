import { MetricsListenError } from '../adapters/inbound/metrics/metricsServer.js';
import { DatabaseConnectionError, databaseTarget } from '../adapters/outbound/mikroorm/database.js';
import { StartupError } from './infrastructure/StartupError.js';
import { readConfig } from './config/readConfig.js';
import { startService } from './wiring/service.js';

/** `npm start`: validate configuration, start, and stop gracefully on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const loaded = readConfig();
  if (!loaded.ok) {
    process.stderr.write(`portico: invalid configuration\n${loaded.errors.map((e) => `  ${e}`).join('\n')}\n`);
    process.exit(1);
  }
  const { config } = loaded;
  let service;
  try {
    service = await startService(config);
  } catch (error) {
    const message =
      error instanceof DatabaseConnectionError
        ? `database: ${error.message}`
        : error instanceof StartupError || error instanceof MetricsListenError
          ? error.message
          : (error as NodeJS.ErrnoException).code === 'EADDRINUSE'
            ? `server.port: ${config.server.host}:${config.server.port} is already in use`
            : ['ENOTFOUND', 'EADDRNOTAVAIL', 'EAI_AGAIN'].includes((error as NodeJS.ErrnoException).code ?? '')
              ? `server.host: ${JSON.stringify(config.server.host)} is not an address this machine can listen on`
              : `start-up failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
    process.stderr.write(`portico: ${message}\n`);
    process.exit(1);
  }
  process.stdout.write(
    `Portico listening on ${service.url} (api: ${config.api.mode}, database: ${databaseTarget(config.database.url).display}, env: ${config.env})\n`,
  );
  if (service.metricsUrl)
    process.stdout.write(
      `Portico metrics at ${service.metricsUrl}, health probes at ${new URL(service.metricsUrl).origin}/health/live\n`,
    );
  // SIGTERM (an orchestrator): readiness down, keep answering with `Connection: close` for
  // server.shutdown_delay so balancers and keep-alive clients move away, then close. SIGINT skips the delay.
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

await main();
