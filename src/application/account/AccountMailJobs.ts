import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { JobHandler } from '../ports/Jobs.js';
import type { Mailer } from '../ports/Mailer.js';
import { ACCOUNT_LINK_JOB, isLinkKind, MAIL_SEND_JOB, payloadText, type AccountLinks } from './AccountLinks.js';

/**
 * The account mail jobs (docs/jobs.md): `account.link` finds the account a link was asked for (by
 * id, or by the address: nobody may hold it, and then nothing is sent) and makes the link, which
 * queues `mail.send`; `mail.send` makes the mail's link and hands the mail to the mail server —
 * retried while it is down.
 */
export function accountMailJobs(
  links: AccountLinks,
  users: UserRepository,
  mailer: Mailer,
): Record<string, JobHandler> {
  return {
    [ACCOUNT_LINK_JOB]: async (payload) => {
      const text = (key: string) => payloadText(payload, key);
      const kind = text('kind');
      if (!isLinkKind(kind)) throw new Error(`account.link: unknown kind ${kind ?? ''}`);
      const userId = text('userId');
      const email = text('email');
      const user =
        userId !== undefined
          ? await users.findById(userId)
          : email !== undefined
            ? await users.findByEmail(email)
            : undefined;
      if (!user) return;
      const ip = text('ip');
      await links.send(user, kind, ip === undefined ? undefined : { ip });
    },
    [MAIL_SEND_JOB]: async (payload) => mailer.send(await links.queuedMail(payload)),
  };
}
