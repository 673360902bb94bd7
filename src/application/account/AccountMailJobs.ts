import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { JobHandler, JobPayload } from '../ports/Jobs.js';
import type { AccountMail, AccountMailKind, Mailer } from '../ports/Mailer.js';
import { ACCOUNT_LINK_JOB, MAIL_SEND_JOB, type AccountLinks } from './AccountLinks.js';

const KINDS: readonly string[] = ['password-reset', 'email-verification'];

const text = (payload: JobPayload, key: string): string | undefined =>
  typeof payload[key] === 'string' ? (payload[key] as string) : undefined;

/** A stored `mail.send` payload as the mail it is; throws (the job fails) on one that is not. */
export function mailOf(payload: JobPayload): AccountMail {
  const kind = text(payload, 'kind');
  const to = text(payload, 'to');
  const firstName = text(payload, 'firstName');
  const greeting = firstName === undefined ? {} : { firstName };
  if (to === undefined) throw new Error('mail.send: no address');
  if (kind === 'email-changed') return { kind, to, ...greeting };
  const token = text(payload, 'token');
  const expiresAt = new Date(text(payload, 'expiresAt') ?? '');
  if (!KINDS.includes(kind ?? '') || token === undefined || Number.isNaN(expiresAt.getTime()))
    throw new Error(`mail.send: not an account mail (${kind ?? 'no kind'})`);
  return { kind: kind as AccountMailKind, to, ...greeting, token, expiresAt };
}

/**
 * The account mail jobs (docs/jobs.md): `account.link` finds the account a link was asked for (by
 * id, or by the address: nobody may hold it, and then nothing is sent) and makes the link, which
 * queues `mail.send`; `mail.send` hands one mail to the mail server — retried while it is down.
 */
export function accountMailJobs(
  links: AccountLinks,
  users: UserRepository,
  mailer: Mailer,
): Record<string, JobHandler> {
  return {
    [ACCOUNT_LINK_JOB]: async (payload) => {
      const kind = text(payload, 'kind');
      if (!KINDS.includes(kind ?? '')) throw new Error(`account.link: unknown kind ${kind ?? ''}`);
      const userId = text(payload, 'userId');
      const email = text(payload, 'email');
      const user =
        userId !== undefined
          ? await users.findById(userId)
          : email !== undefined
            ? await users.findByEmail(email)
            : undefined;
      if (!user) return;
      const ip = text(payload, 'ip');
      await links.send(user, kind as AccountMailKind, ip === undefined ? undefined : { ip });
    },
    [MAIL_SEND_JOB]: (payload) => mailer.send(mailOf(payload)),
  };
}
