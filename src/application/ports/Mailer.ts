/** What an account e-mail is for; each kind has its own template and link. */
export type AccountMailKind = 'password-reset' | 'email-verification';

/**
 * One account e-mail, as the use cases know it: who gets it, what for, and the single-use token
 * its link carries. Wording, subject and the link itself belong to the adapter (editable
 * templates and `mail.link_base_url`), so no use case writes text.
 */
export interface AccountMail {
  readonly kind: AccountMailKind;
  readonly to: string;
  readonly firstName: string;
  /** The secret the link carries; never logged by anything but the development log adapter. */
  readonly token: string;
  readonly expiresAt: Date;
}

/**
 * Sends account e-mails. Promises: `send` resolves once the message is handed to the transport
 * (an SMTP server accepted it, or the log wrote it); it rejects when it could not be.
 */
export interface Mailer {
  send(mail: AccountMail): Promise<void>;
}
