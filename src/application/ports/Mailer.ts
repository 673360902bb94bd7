/** What a mail with a link is for; each kind has its own template and link. */
export type AccountMailKind = 'password-reset' | 'email-verification';

/** What a notice (a mail with no link that grants anything) tells. */
export type AccountNoticeKind = 'email-changed';

/**
 * One account e-mail with a single-use link, as the use cases know it: who gets it, what for, and
 * the token its link carries. Wording, subject and the link itself belong to the adapter (editable
 * templates and `mail.link_base_url`), so no use case writes text.
 */
export interface AccountLinkMail {
  readonly kind: AccountMailKind;
  readonly to: string;
  /**
   * The name to greet, only when `to` is a verified address of the user: a mail to an address
   * nobody has proved carries no text the requester chose (absent: a greeting without a name).
   */
  readonly firstName?: string;
  /** The secret the link carries; never logged by anything but the development log adapter. */
  readonly token: string;
  readonly expiresAt: Date;
}

/** A notice to an account's address: no link, nothing that grants access. */
export interface AccountNotice {
  readonly kind: AccountNoticeKind;
  readonly to: string;
  /** As for a link mail: only for a verified address. */
  readonly firstName?: string;
}

export type AccountMail = AccountLinkMail | AccountNotice;

/** Whether a mail carries a link (and so a token). */
export const isLinkMail = (mail: AccountMail): mail is AccountLinkMail => mail.kind !== 'email-changed';

/**
 * Sends account e-mails. Promises: `send` resolves once the message is handed to the transport
 * (an SMTP server accepted it, or the log wrote it); it rejects when it could not be.
 */
export interface Mailer {
  send(mail: AccountMail): Promise<void>;
}
