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

/** What nodemailer's errors carry besides their message. */
interface TransportFailure {
  readonly code?: unknown;
  readonly responseCode?: unknown;
  readonly command?: unknown;
}

/**
 * A send that failed, told by the SMTP command and reply code (or the transport's error code) only:
 * a server's reply text names the recipient (`<ada@example.com>: Recipient address rejected`), and
 * this message is kept as the job's `last_error`, shown to admins and written to the log.
 */
export class MailDeliveryError extends Error {
  readonly code: string | undefined;
  readonly responseCode: number | undefined;

  constructor(failure: TransportFailure) {
    const code = typeof failure.code === 'string' && /^[A-Z_]+$/.test(failure.code) ? failure.code : undefined;
    const responseCode = typeof failure.responseCode === 'number' ? failure.responseCode : undefined;
    const command =
      typeof failure.command === 'string' && /^[A-Z][A-Z ]{1,15}$/.test(failure.command) ? failure.command : undefined;
    super(
      responseCode !== undefined
        ? `the mail server refused the message (${command ?? 'SMTP'}: ${responseCode})`
        : `the mail server could not be reached or failed (${code ?? 'unknown error'})`,
    );
    this.name = 'MailDeliveryError';
    this.code = code;
    this.responseCode = responseCode;
  }
}

/**
 * Sends account e-mails through an SMTP server (`mail.smtp_url`) with nodemailer. `send` resolves
 * once the server accepted the message and rejects with a MailDeliveryError when it refused it or
 * could not be reached.
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
    try {
      await this.transport.sendMail({ to, from, subject, text });
    } catch (error) {
      throw new MailDeliveryError(typeof error === 'object' && error !== null ? error : {});
    }
  }

  /** Closes the transport's connections (at shutdown). */
  close(): void {
    this.transport.close();
  }
}
