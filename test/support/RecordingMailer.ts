import {
  isLinkMail,
  type AccountLinkMail,
  type AccountMail,
  type AccountNotice,
  type Mailer,
} from '../../src/application/ports/Mailer.js';

/** A Mailer that keeps every mail it is given; `failWith` makes the next sends reject. */
export class RecordingMailer implements Mailer {
  readonly sent: AccountMail[] = [];
  failWith: Error | undefined;

  async send(mail: AccountMail): Promise<void> {
    await Promise.resolve();
    if (this.failWith) throw this.failWith;
    this.sent.push(mail);
  }

  /** The mails of `kind` sent to `to`, oldest first. */
  to(to: string, kind?: AccountMail['kind']): AccountMail[] {
    return this.sent.filter((mail) => mail.to === to && (kind === undefined || mail.kind === kind));
  }

  /** The newest mail with a link to `to` (of `kind`); fails the test when there is none. */
  last(to: string, kind?: AccountLinkMail['kind']): AccountLinkMail {
    const mails = this.to(to, kind).filter(isLinkMail);
    const mail = mails[mails.length - 1];
    if (!mail) throw new Error(`no ${kind ?? ''} mail to ${to}`);
    return mail;
  }

  /** The notices (mails without a link) sent to `to`, oldest first. */
  notices(to: string): AccountNotice[] {
    return this.to(to).filter((mail): mail is AccountNotice => !isLinkMail(mail));
  }
}
