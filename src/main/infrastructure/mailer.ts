import type { Logger } from 'pino';
import { LogMailer } from '../../adapters/outbound/mail/LogMailer.js';
import { MailComposer, MailTemplateError } from '../../adapters/outbound/mail/MailComposer.js';
import { SmtpMailer } from '../../adapters/outbound/mail/SmtpMailer.js';
import { SystemClock } from '../../adapters/outbound/system/SystemClock.js';
import type { Clock } from '../../application/ports/Clock.js';
import type { Mailer } from '../../application/ports/Mailer.js';
import { StartupError } from './StartupError.js';
import type { Config } from '../config/schema.js';

/** The service's mailer and how to let it go at shutdown. */
export interface BuiltMailer {
  readonly mailer: Mailer;
  /** Closes the SMTP transport's connections; nothing to do for the log mailer. */
  close(): void;
}

export interface MailerOptions {
  /** Bound on each SMTP phase (connect, greeting, socket silence); default 5000 ms. */
  smtpTimeoutMs?: number;
  /** What `{{expires_in}}` is measured from; the system clock by default. */
  clock?: Pick<Clock, 'now'>;
}

/**
 * The `Mailer` configuration asks for: SMTP (`mail.smtp_url`) when set, else the development log
 * mailer (configuration refuses that in production). The templates (`mail.templates`) are read
 * and checked here, so a broken one is a {@link StartupError} naming the file.
 */
export function buildMailer(config: Config, logger: Logger, options: MailerOptions = {}): BuiltMailer {
  let composer: MailComposer;
  try {
    composer = MailComposer.load(
      { directory: config.mail.templates, from: config.mail.from, linkBaseUrl: config.mail.linkBaseUrl },
      options.clock ?? new SystemClock(),
    );
  } catch (error) {
    if (error instanceof MailTemplateError) throw new StartupError(`mail.templates: ${error.message}`);
    throw error;
  }
  if (config.mail.smtpUrl === '') {
    logger.info(
      { mail_adapter: 'log' },
      'mail.smtp_url is empty: account e-mails are written to the log (development only)',
    );
    return { mailer: new LogMailer(composer, logger), close: () => undefined };
  }
  const smtp = new SmtpMailer(
    config.mail.smtpUrl,
    composer,
    options.smtpTimeoutMs === undefined ? {} : { timeoutMs: options.smtpTimeoutMs },
  );
  return { mailer: smtp, close: () => smtp.close() };
}
