import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../../../application/ports/Clock.js';
import {
  isLinkMail,
  type AccountMail,
  type AccountMailKind,
  type AccountNoticeKind,
} from '../../../application/ports/Mailer.js';

/** An account e-mail ready for a transport: plain text, one recipient. */
export interface ComposedMail {
  readonly to: string;
  readonly from: string;
  readonly subject: string;
  readonly text: string;
}

/** A template that cannot be used; the message names the file and what is wrong with it. */
export class MailTemplateError extends Error {}

export interface MailComposerOptions {
  /** The folder holding `<kind>.txt` for every kind (`mail.templates`). */
  readonly directory: string;
  /** The sender (`mail.from`). */
  readonly from: string;
  /** The links' base (`mail.link_base_url`), which may have a path. */
  readonly linkBaseUrl: string;
}

type Kind = AccountMailKind | AccountNoticeKind;

/** Each kind's template file and, for a mail with a link, the page it opens (under `mail.link_base_url`). */
const KINDS: Readonly<Record<Kind, { file: string; page?: string }>> = {
  'password-reset': { file: 'password-reset.txt', page: 'reset-password' },
  'email-verification': { file: 'email-verification.txt', page: 'verify-email' },
  'email-changed': { file: 'email-changed.txt' },
};

const PLACEHOLDERS = ['greeting', 'first_name', 'link', 'expires_in'] as const;
type Placeholder = (typeof PLACEHOLDERS)[number];
/** What a notice (no link) can say. */
const NOTICE_PLACEHOLDERS: readonly Placeholder[] = ['greeting', 'first_name'];
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;
const SUBJECT = /^Subject:[ \t]*(\S.*)$/;

interface Template {
  readonly subject: string;
  readonly body: string;
}

/** `{{name}}` → value, in one pass: a value is never scanned for placeholders again. */
function fill(template: string, values: Readonly<Record<Placeholder, string>>): string {
  return template.replace(PLACEHOLDER, (whole, name: string) =>
    Object.hasOwn(values, name) ? values[name as Placeholder] : whole,
  );
}

function parseTemplate(path: string, source: string, known: readonly Placeholder[]): Template {
  const lines = source
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .split('\n');
  const subject = SUBJECT.exec(lines[0] ?? '')?.[1]?.trim();
  if (subject === undefined) throw new MailTemplateError(`${path}: the first line must be "Subject: <the subject>"`);
  if ((lines[1] ?? '') !== '') throw new MailTemplateError(`${path}: a blank line must follow the Subject line`);
  const body = lines.slice(2).join('\n').trim();
  if (body === '') throw new MailTemplateError(`${path}: the body after the Subject line is empty`);
  for (const [, name] of `${subject}\n${body}`.matchAll(PLACEHOLDER)) {
    if (!(known as readonly string[]).includes(name ?? '')) {
      throw new MailTemplateError(
        `${path}: unknown placeholder {{${name}}} (known: ${known.map((p) => `{{${p}}}`).join(', ')})`,
      );
    }
  }
  return { subject, body: `${body}\n` };
}

const plural = (n: number, unit: string): string => `${n} ${unit}${n === 1 ? '' : 's'}`;

/** How long until `expiresAt`, in words: `45 minutes`, `1 hour`, `24 hours`, `3 days`. */
export function expiresInWords(ms: number): string {
  const minutes = Math.max(1, Math.round(ms / 60_000));
  if (minutes < 60) return plural(minutes, 'minute');
  const hours = Math.round(minutes / 60);
  return hours >= 48 && hours % 24 === 0 ? plural(hours / 24, 'day') : plural(hours, 'hour');
}

/** `<base>/<page>?token=<token>`: the base's path kept, one slash between, the token URL-encoded. */
export function accountLink(baseUrl: string, page: string, token: string): string {
  const url = new URL(baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${page}`;
  url.search = `?token=${encodeURIComponent(token)}`;
  url.hash = '';
  return url.toString();
}

/**
 * Renders account e-mails from the team's plain-text templates (`<kind>.txt`: a `Subject:` line,
 * a blank line, the body; placeholders `{{greeting}}` (`Hello Ada,`, or `Hello,` when the address
 * is not verified), `{{first_name}}` (empty then), and in mails with a link `{{link}}` and
 * `{{expires_in}}`). The
 * templates are read and checked once, by {@link MailComposer.load}, so a broken one stops the
 * service at start rather than failing a request.
 */
export class MailComposer {
  private constructor(
    private readonly templates: ReadonlyMap<Kind, Template>,
    private readonly options: MailComposerOptions,
    private readonly clock: Pick<Clock, 'now'>,
  ) {}

  /** Reads and checks every template; throws {@link MailTemplateError} naming the file at fault. */
  static load(
    options: MailComposerOptions,
    clock: Pick<Clock, 'now'>,
    read = (path: string) => readFileSync(path, 'utf8'),
  ): MailComposer {
    const templates = new Map<Kind, Template>();
    for (const [kind, { file, page }] of Object.entries(KINDS) as [Kind, (typeof KINDS)[Kind]][]) {
      const path = join(options.directory, file);
      let source: string;
      try {
        source = read(path);
      } catch (error) {
        throw new MailTemplateError(
          `${path}: cannot read the template (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
        );
      }
      templates.set(kind, parseTemplate(path, source, page === undefined ? NOTICE_PLACEHOLDERS : PLACEHOLDERS));
    }
    return new MailComposer(templates, options, clock);
  }

  compose(mail: AccountMail): ComposedMail {
    const template = this.templates.get(mail.kind);
    if (!template) throw new Error(`no template for mail kind ${JSON.stringify(mail.kind)}`);
    const name = mail.firstName?.replace(/\p{Cc}+/gu, ' ').trim();
    const values = {
      greeting: name ? `Hello ${name},` : 'Hello,',
      first_name: name ?? '',
      link: isLinkMail(mail) ? accountLink(this.options.linkBaseUrl, KINDS[mail.kind].page ?? '', mail.token) : '',
      expires_in: isLinkMail(mail) ? expiresInWords(mail.expiresAt.getTime() - this.clock.now().getTime()) : '',
    };
    return {
      to: mail.to,
      from: this.options.from,
      // A header is one line, whatever a first name holds.
      subject: fill(template.subject, values).replace(/[\r\n]+/g, ' '),
      text: fill(template.body, values),
    };
  }
}
