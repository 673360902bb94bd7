import { pino, type DestinationStream, type Logger } from 'pino';

/** Keys whose values never reach a log line, wherever they appear. */
const REDACT = [
  'password',
  '*.password',
  'current_password',
  '*.current_password',
  'access_token',
  '*.access_token',
  'refresh_token',
  '*.refresh_token',
  'authorization',
  '*.authorization',
  '*.headers.authorization',
];

/** SQL string literals in a message (`'…'`, with `''` escapes): the values a failed statement carried. */
const SQL_LITERAL = /'(?:[^']|'')*'/g;

/**
 * Errors as pino serializes them, with the values of any SQL statement quoted in the message or
 * stack replaced by `'?'` — a driver error repeats the whole statement, password hashes and
 * e-mails included.
 */
export function safeError(error: unknown): unknown {
  const serialized = pino.stdSerializers.err(error as Error) as unknown as Record<string, unknown>;
  if (typeof serialized !== 'object' || serialized === null) return serialized;
  for (const key of ['message', 'stack'] as const) {
    const text = serialized[key];
    if (typeof text === 'string') serialized[key] = text.replace(SQL_LITERAL, "'?'");
  }
  return serialized;
}

/** The service logger: JSON lines on stdout (or `destination`), or `pino-pretty` for humans. */
export function createLogger(level: string, format: 'json' | 'pretty', destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'portico' },
    redact: { paths: REDACT, censor: '[redacted]' },
    serializers: { err: safeError },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (format === 'pretty') {
    return pino({
      ...options,
      transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:standard' } },
    });
  }
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false, minLength: 0 }));
}
