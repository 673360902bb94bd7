import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { AccountMail, Mailer } from '../../../application/ports/Mailer.js';
import type { MailComposer } from './MailComposer.js';

export interface SmtpMailerOptions {
  /**
   * Bound on each phase (TCP connect, the server's greeting, any later silence on the socket), so
   * a dead or stalled SMTP server fails a send in seconds instead of holding the request. Default 5000.
   */
  readonly timeoutMs?: number;
}

/** `smtp://` / `smtps://` with optional `user:pass` (percent-decoded) → nodemailer's SMTP options. */
export function smtpOptions(url: string, timeoutMs: number): SMTPTransport.Options {
  const parsed = new URL(url);
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:')
    throw new Error('mail.smtp_url: not an smtp:// or smtps:// URL');
  const secure = parsed.protocol === 'smtps:';
  const user = decodeURIComponent(parsed.username);
  return {
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: parsed.port === '' ? (secure ? 465 : 587) : Number(parsed.port),
    secure,
    ...(user !== '' ? { auth: { user, pass: decodeURIComponent(parsed.password) } } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    dnsTimeout: timeoutMs,
  };
}

/**
 * Sends account e-mails through an SMTP server (`mail.smtp_url`) with nodemailer. `send` resolves
 * once the server accepted the message and rejects when it refused it or could not be reached.
 */
export class SmtpMailer implements Mailer {
  private readonly transport: Transporter<SMTPTransport.SentMessageInfo, SMTPTransport.Options>;

  constructor(
    url: string,
    private readonly composer: MailComposer,
    options: SmtpMailerOptions = {},
  ) {
    this.transport = nodemailer.createTransport(smtpOptions(url, options.timeoutMs ?? 5000));
  }

  async send(mail: AccountMail): Promise<void> {
    const { to, from, subject, text } = this.composer.compose(mail);
    await this.transport.sendMail({ to, from, subject, text });
  }

  /** Closes the transport's connections (at shutdown). */
  close(): void {
    this.transport.close();
  }
}
