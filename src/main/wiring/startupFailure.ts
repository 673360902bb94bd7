import { MetricsListenError } from '../../adapters/inbound/metrics/metricsServer.js';
import { DatabaseConnectionError } from '../../adapters/outbound/mikroorm/database.js';
import type { Config } from '../config/schema.js';
import { StartupError } from '../infrastructure/StartupError.js';

/**
 * The one line (after `portico: `) that says why a start failed, naming the setting at fault; or
 * `undefined` for a failure no setting explains (the caller says what failed). With `server`, the
 * API listener's failures too.
 */
export function startupFailure(error: unknown, server?: Config['server']): string | undefined {
  if (error instanceof DatabaseConnectionError) return `database: ${error.message}`;
  if (error instanceof StartupError || error instanceof MetricsListenError) return error.message;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (!server) return undefined;
  if (code === 'EADDRINUSE') return `server.port: ${server.host}:${server.port} is already in use`;
  if (code === 'ENOTFOUND' || code === 'EADDRNOTAVAIL' || code === 'EAI_AGAIN')
    return `server.host: ${JSON.stringify(server.host)} is not an address this machine can listen on`;
  return undefined;
}

/** The first line of an error's message (a driver's can run to many). */
export const firstLine = (error: unknown): string =>
  error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
