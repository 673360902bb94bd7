import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

/** A logger that writes nowhere. */
export const silentLogger = (): Logger => pino({ level: 'silent' });

/** A logger that keeps every JSON line it writes, for tests that read the logs. */
export function capturingLogger(): { logger: Logger; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  const logger = pino({ level: 'trace' }, stream);
  return {
    logger,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
