import { InvalidAccountTokenError } from '../../domain/user/UserErrors.js';
import type { User } from '../../domain/user/User.js';
import type { Clock } from '../ports/Clock.js';
import type { EmailTokenRecord, EmailTokenStore } from '../ports/EmailTokenStore.js';
import type { JobPayload, JobQueue, Transaction, Transactions } from '../ports/Jobs.js';
import type { AccountMail, AccountMailKind } from '../ports/Mailer.js';
import type { OneTimeSecrets } from '../ports/OneTimeSecrets.js';

/** The job that prepares a link mail: finds the account, makes the token, queues the mail (AccountMailJobs). */
export const ACCOUNT_LINK_JOB = 'account.link';
/** The job that hands one account mail to the mail server (AccountMailJobs). */
export const MAIL_SEND_JOB = 'mail.send';

/** Whose account a link mail is for: a user by id, or whoever holds an address (maybe nobody). */
export type LinkTarget = { readonly userId: string } | { readonly email: string };

/** How long each kind of link works (docs/authentication.md). */
export const LINK_LIFETIME_MS: Readonly<Record<AccountMailKind, number>> = {
  'password-reset': 3_600_000,
  'email-verification': 24 * 3_600_000,
};

/** At most this many mails of one kind to one address per hour, whichever account holds it. */
export const MAILS_PER_HOUR = 3;
const HOUR_MS = 3_600_000;

/** Who asked for a mail: its client IP counts toward `account.mails_per_ip_per_hour`. */
export interface MailRequester {
  readonly ip: string;
}

/** The name to greet at the user's address: only once the address is proved (no requester text otherwise). */
const greetingName = (user: User): { firstName?: string } => (user.emailVerified ? { firstName: user.firstName } : {});

const LINK_KINDS: readonly string[] = ['password-reset', 'email-verification'] satisfies AccountMailKind[];

/** Whether `kind` (read from a job's payload) is a kind of link mail. */
export const isLinkKind = (kind: string | undefined): kind is AccountMailKind =>
  kind !== undefined && LINK_KINDS.includes(kind);

/** A job payload's text member, or `undefined` when it is absent or not text. */
export const payloadText = (payload: JobPayload, key: string): string | undefined =>
  typeof payload[key] === 'string' ? (payload[key] as string) : undefined;

/** What AccountLinks is given, by name. */
export interface AccountLinksDependencies {
  readonly tokens: EmailTokenStore;
  readonly secrets: OneTimeSecrets;
  readonly jobs: JobQueue;
  readonly transactions: Transactions;
  readonly clock: Clock;
  /** `account.mails_per_ip_per_hour`: link mails one client IP may ask for in an hour. */
  readonly mailsPerIpPerHour: number;
}

/**
 * The e-mailed links of account recovery and verification: asked for as a job, made by it (a
 * single-use token, only its hash stored, and the mail queued in the same transaction), and a
 * presented token redeemed exactly once. The queued mail names the token's selector, never the
 * token: its link is made again from the selector when the mail is sent (`queuedMail`), so no
 * job payload — waiting, finished or archived — holds a working link. Every way a token can be wrong (malformed, unknown,
 * spent, expired, another purpose, another address) is the same InvalidAccountTokenError.
 */
export class AccountLinks {
  constructor(private readonly deps: AccountLinksDependencies) {}

  /**
   * Asks for a link mail of `kind` to `target`: one job (`account.link`) stored before the caller
   * answers, run after it by any instance. For an address, nobody is looked up here — the job does
   * it — so the answer takes the same time whether or not the address has an account. Within
   * `within` when given: the job is stored with the write it follows (a new user, a new address).
   */
  async request(
    target: LinkTarget,
    kind: AccountMailKind,
    requester?: MailRequester,
    within?: Transaction,
  ): Promise<void> {
    await this.deps.jobs.enqueue(
      { name: ACCOUNT_LINK_JOB, payload: { kind, ...target, ...(requester ? { ip: requester.ip } : {}) } },
      within,
    );
  }

  /**
   * Tells `user`'s current address (before a change) that the account's e-mail was changed: a
   * notice with no link, as a `mail.send` job (within `within`, the change's transaction, when given).
   */
  async notice(user: User, within?: Transaction): Promise<void> {
    await this.deps.jobs.enqueue(
      { name: MAIL_SEND_JOB, payload: { kind: 'email-changed', to: user.email, ...greetingName(user) } },
      within,
    );
  }

  /**
   * Makes `user` a link of `kind` to its current address and queues its mail (`mail.send`), both in
   * one transaction — unless MAILS_PER_HOUR of that kind went to that address within the hour, or
   * the requester's IP asked for `mailsPerIpPerHour` within the hour; answers whether one was queued.
   */
  async send(user: User, kind: AccountMailKind, requester?: MailRequester): Promise<boolean> {
    const now = this.deps.clock.now();
    const secret = this.deps.secrets.create();
    const expiresAt = new Date(now.getTime() + LINK_LIFETIME_MS[kind]);
    return this.deps.transactions.run(async (tx) => {
      const stored = await this.deps.tokens.addWithinLimit(
        {
          selector: secret.selector,
          verifierHash: secret.verifierHash,
          userId: user.id,
          purpose: kind,
          email: user.email,
          createdAt: now,
          expiresAt,
          ...(requester ? { requestedIp: requester.ip } : {}),
        },
        { since: new Date(now.getTime() - HOUR_MS), perAddress: MAILS_PER_HOUR, perIp: this.deps.mailsPerIpPerHour },
        tx,
      );
      if (!stored) return false;
      await this.deps.jobs.enqueue(
        {
          name: MAIL_SEND_JOB,
          payload: {
            kind,
            to: user.email,
            ...greetingName(user),
            selector: secret.selector,
            expiresAt: expiresAt.toISOString(),
          },
        },
        tx,
      );
      return true;
    });
  }

  /**
   * The mail a stored `mail.send` payload stands for, its link's token made from the selector the
   * payload names and checked against the stored token, so no mail goes out with a link that would
   * not work (the key changed since it was queued, or the token was purged). Rejects (the job fails)
   * on a payload that is not an account mail. A `token` in place of the selector is read too: mails
   * queued by versions that stored the token itself are still sent after an upgrade.
   */
  async queuedMail(payload: JobPayload): Promise<AccountMail> {
    const text = (key: string) => payloadText(payload, key);
    const kind = text('kind');
    const to = text('to');
    const firstName = text('firstName');
    const greeting = firstName === undefined ? {} : { firstName };
    if (to === undefined) throw new Error('mail.send: no address');
    if (kind === 'email-changed') return { kind, to, ...greeting };
    if (!isLinkKind(kind)) throw new Error(`mail.send: not an account mail (${kind ?? 'no kind'})`);
    const selector = text('selector');
    const token = selector === undefined ? text('token') : this.deps.secrets.tokenOf(selector);
    const expiresAt = new Date(text('expiresAt') ?? '');
    if (token === undefined || Number.isNaN(expiresAt.getTime()))
      throw new Error(`mail.send: a ${kind} mail without a link`);
    const parts = this.deps.secrets.parse(token);
    const record = parts && (await this.deps.tokens.find(parts.selector));
    if (!parts || !record || !this.deps.secrets.matches(parts.verifier, record.verifierHash))
      throw new Error(
        `mail.send: the ${kind} link does not match its stored token (purged, or made under another key)`,
      );
    return { kind, to, ...greeting, token, expiresAt };
  }

  /**
   * Spends a presented token of `kind` and answers what it was issued for. Of any number of
   * concurrent redemptions of one token, one succeeds.
   */
  async redeem(token: string, kind: AccountMailKind): Promise<EmailTokenRecord> {
    const parts = this.deps.secrets.parse(token);
    if (!parts) throw new InvalidAccountTokenError();
    const record = await this.deps.tokens.find(parts.selector);
    const now = this.deps.clock.now();
    const valid =
      record !== undefined &&
      record.purpose === kind &&
      record.expiresAt.getTime() > now.getTime() &&
      this.deps.secrets.matches(parts.verifier, record.verifierHash);
    if (!valid || !(await this.deps.tokens.spend(parts.selector, now))) throw new InvalidAccountTokenError();
    return record;
  }

  /**
   * Spends every outstanding link of `kind` of the user (once one of them has done its work), or
   * of every kind when absent (the password changed: no older link may still act on the account).
   */
  spendAll(userId: string, kind?: AccountMailKind): Promise<void> {
    return this.deps.tokens.spendAll(userId, kind, this.deps.clock.now());
  }
}
