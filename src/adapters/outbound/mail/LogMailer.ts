import type { Logger } from 'pino';
import type { AccountMail, Mailer } from '../../../application/ports/Mailer.js';
import type { MailComposer } from './MailComposer.js';

/** The `mail_adapter` field of every line {@link LogMailer} writes. */
export const LOG_MAIL_ADAPTER = 'log (development only: not sent)';

/**
 * Development's mailer: writes each rendered message (recipient, subject, the text with its link)
 * to the log at info instead of sending it. It is the one place a link with a token reaches the
 * log, which is why configuration refuses it in production (`mail.smtp_url` must be set there).
 */
export class LogMailer implements Mailer {
  constructor(
    private readonly composer: MailComposer,
    private readonly logger: Logger,
  ) {}

  send(mail: AccountMail): Promise<void> {
    const { to, from, subject, text } = this.composer.compose(mail);
    this.logger.info(
      { mail_adapter: LOG_MAIL_ADAPTER, mail: { kind: mail.kind, to, from, subject, text } },
      `mail: ${subject}`,
    );
    return Promise.resolve();
  }
}
