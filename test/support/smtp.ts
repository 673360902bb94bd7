import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One message the test SMTP server accepted, decoded enough to read it. */
export interface ReceivedMail {
  /** The envelope's recipients (`RCPT TO`), as sent. */
  readonly to: string[];
  /** The envelope's sender (`MAIL FROM`). */
  readonly envelopeFrom: string;
  /** The `From:` header, decoded (`Portico <no-reply@localhost>`). */
  readonly from: string;
  /** The `Subject:` header, decoded. */
  readonly subject: string;
  /** The text/plain body, transfer-decoded (quoted-printable, base64, 7bit/8bit) as UTF-8, CRLF turned to LF. */
  readonly text: string;
  /** Every header, names lower-cased, values unfolded and decoded. */
  readonly headers: ReadonlyMap<string, string>;
  /** The message as it came over the wire. */
  readonly raw: string;
}

/** A real SMTP server in this process (no auth, no TLS), on 127.0.0.1 and a free port. */
export interface TestSmtpServer {
  /** `smtp://127.0.0.1:<port>`: what `mail.smtp_url` should be. */
  readonly url: string;
  readonly port: number;
  /** Every message accepted so far, oldest first. */
  readonly messages: readonly ReceivedMail[];
  /** While true, every message is refused at the end of DATA (554), so senders see a failure. */
  refusing: boolean;
  /**
   * While true, every recipient is refused (550) with the reply real servers give, which names the
   * address: `<ada@example.com>: Recipient address rejected: User unknown in local recipient table`.
   */
  refusingRecipients: boolean;
  /**
   * The first message (already received or arriving within `timeoutMs`, default 5000) that
   * `predicate` accepts; rejects with the messages seen so far when none does in time.
   */
  waitFor(predicate: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  /** Forgets the messages received so far. */
  clear(): void;
  /** Stops listening and ends open connections. */
  close(): Promise<void>;
}

/**
 * The token of the first link in `mail`'s text that carries `?token=` (URL-decoded); throws when
 * there is none.
 */
export function linkToken(mail: ReceivedMail): string {
  const link = /https?:\/\/\S+/g;
  for (const [candidate] of mail.text.matchAll(link)) {
    const token = new URL(candidate).searchParams.get('token');
    if (token !== null) return token;
  }
  throw new Error(`no link with a token in the mail to ${mail.to.join(', ')}:\n${mail.text}`);
}

/**
 * Starts a {@link TestSmtpServer}; close it in `after`. `port` (default: a free one) lets a test
 * start a server again where one it closed listened, as a mail server back from an outage.
 */
export async function startSmtpServer(options: { port?: number } = {}): Promise<TestSmtpServer> {
  const messages: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  const state = { refusing: false, refusingRecipients: false };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    hideSTARTTLS: true,
    logger: false,
    banner: 'portico test smtp',
    onRcptTo(address, _session, callback) {
      if (!state.refusingRecipients) return callback();
      const reply = `<${address.address}>: Recipient address rejected: User unknown in local recipient table`;
      callback(Object.assign(new Error(reply), { responseCode: 550 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        if (state.refusing) {
          const error = Object.assign(new Error('refused by the test SMTP server'), { responseCode: 554 });
          callback(error);
          return;
        }
        const envelope = session.envelope;
        const from = envelope.mailFrom === false ? '' : envelope.mailFrom.address;
        messages.push(
          parseMessage(
            Buffer.concat(chunks).toString('utf8'),
            from,
            envelope.rcptTo.map((r) => r.address),
          ),
        );
        callback();
        for (const wake of [...waiters]) wake();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  const port = (server.server.address() as AddressInfo).port;

  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    get refusing() {
      return state.refusing;
    },
    set refusing(value: boolean) {
      state.refusing = value;
    },
    get refusingRecipients() {
      return state.refusingRecipients;
    },
    set refusingRecipients(value: boolean) {
      state.refusingRecipients = value;
    },
    waitFor(predicate, timeoutMs = 5000) {
      return new Promise<ReceivedMail>((resolve, reject) => {
        const check = (): boolean => {
          const found = messages.find(predicate);
          if (!found) return false;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(found);
          return true;
        };
        const wake = (): void => void check();
        const timer = setTimeout(() => {
          waiters.delete(wake);
          const seen = messages.map((m) => `${m.to.join(',')}: ${m.subject}`).join('; ') || 'none';
          reject(new Error(`no matching mail within ${timeoutMs} ms (received: ${seen})`));
        }, timeoutMs);
        waiters.add(wake);
        check();
      });
    },
    clear() {
      messages.length = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Headers (unfolded) and body of one MIME entity. */
function splitEntity(raw: string): { headers: Map<string, string>; body: string } {
  const text = raw.replace(/\r\n/g, '\n');
  const end = text.indexOf('\n\n');
  const head = end === -1 ? text : text.slice(0, end);
  const body = end === -1 ? '' : text.slice(end + 2);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), decodeWords(line.slice(colon + 1).trim()));
  }
  return { headers, body };
}

/** RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`); whitespace between two of them goes. */
function decodeWords(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[QqBb]\?[^?]*\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_m, _charset: string, encoding: string, data: string) =>
      encoding.toUpperCase() === 'B'
        ? Buffer.from(data, 'base64').toString('utf8')
        : decodeQuotedPrintable(data.replace(/_/g, ' ')),
    );
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  const source = text.replace(/=\r?\n/g, '');
  for (let i = 0; i < source.length; i++) {
    const hex = source.slice(i + 1, i + 3);
    if (source[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(source[i]!, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function decodeBody(body: string, encoding: string | undefined): string {
  switch ((encoding ?? '7bit').toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    case 'quoted-printable':
      return decodeQuotedPrintable(body);
    default:
      return body;
  }
}

/** The text/plain part of an entity (the entity itself, or the first one inside a multipart). */
function textOf(headers: Map<string, string>, body: string): string | undefined {
  const type = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    for (const part of body.split(`--${boundary}`).slice(1)) {
      if (part.startsWith('--')) break;
      const entity = splitEntity(part.replace(/^\n/, ''));
      const text = textOf(entity.headers, entity.body);
      if (text !== undefined) return text;
    }
    return undefined;
  }
  if (!/^text\/plain/i.test(type)) return undefined;
  return decodeBody(body, headers.get('content-transfer-encoding')).replace(/\r\n/g, '\n');
}

function parseMessage(raw: string, envelopeFrom: string, to: string[]): ReceivedMail {
  const { headers, body } = splitEntity(raw);
  return {
    to,
    envelopeFrom,
    from: headers.get('from') ?? '',
    subject: headers.get('subject') ?? '',
    text: (textOf(headers, body) ?? '').replace(/\n$/, ''),
    headers,
    raw,
  };
}
