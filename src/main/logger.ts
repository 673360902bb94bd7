import { pino, type Logger } from 'pino';

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

/** The service logger: JSON lines on stdout, or `pino-pretty` for humans. */
export function createLogger(level: string, format: 'json' | 'pretty'): Logger {
  const options = {
    level,
    base: { service: 'portico' },
    redact: { paths: REDACT, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (format === 'pretty') {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:standard' } } });
  }
  return pino(options, pino.destination({ dest: 1, sync: false, minLength: 0 }));
}
