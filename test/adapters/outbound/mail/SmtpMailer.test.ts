import { expect } from 'chai';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { MailComposer } from '../../../../src/adapters/outbound/mail/MailComposer.js';
import { SmtpMailer, smtpOptions } from '../../../../src/adapters/outbound/mail/SmtpMailer.js';
import { accountMail, clock, HOUR_MS, TOKEN } from './accountMail.js';
import { linkToken, startSmtpServer, type TestSmtpServer } from '../../../support/smtp.js';

const H = HOUR_MS;
const composer = MailComposer.load(
  {
    directory: 'mail/templates',
    from: 'Portico Accounts <accounts@example.com>',
    linkBaseUrl: 'https://app.example.com/portal/',
  },
  clock,
);
const mail = accountMail;

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('SmtpMailer against a real SMTP server', function () {
  this.timeout(15_000);
  let smtp: TestSmtpServer;
  let mailer: SmtpMailer;

  before(async () => {
    smtp = await startSmtpServer();
    mailer = new SmtpMailer(smtp.url, composer);
  });
  after(async () => {
    mailer.close();
    await smtp.close();
  });
  afterEach(() => {
    smtp.refusing = false;
    smtp.refusingRecipients = false;
    smtp.clear();
  });

  it('delivers the password-reset mail: from, to, subject, the link under the base URL with the token, the expiry', async () => {
    await mailer.send(mail());
    const received = await smtp.waitFor((m) => m.to.includes('ada@example.com'));
    expect(received.to).to.deep.equal(['ada@example.com']);
    expect(received.envelopeFrom).to.equal('accounts@example.com');
    expect(received.from).to.equal('Portico Accounts <accounts@example.com>');
    expect(received.subject).to.equal('Reset your Portico password');
    expect(received.text).to.include('Hello Ada,');
    expect(received.text).to.include(`https://app.example.com/portal/reset-password?token=${TOKEN}`);
    expect(received.text).to.include('expires in 1 hour');
    expect(linkToken(received)).to.equal(TOKEN);
  });

  it('delivers the verification mail with its own link and 24 hours, and a non-ASCII name intact', async () => {
    await mailer.send(
      mail({
        kind: 'email-verification',
        to: 'zoe@example.com',
        firstName: 'Zoë Ærø',
        expiresAt: new Date(clock.now().getTime() + 24 * H),
      }),
    );
    const received = await smtp.waitFor((m) => m.to.includes('zoe@example.com'));
    expect(received.subject).to.equal('Confirm your e-mail address for Portico');
    // nodemailer sends non-ASCII text quoted-printable; the helper decodes it.
    expect(received.headers.get('content-transfer-encoding')).to.equal('quoted-printable');
    expect(received.raw).to.not.include('Zoë');
    expect(received.text).to.include('Hello Zoë Ærø,');
    expect(received.text).to.include(`https://app.example.com/portal/verify-email?token=${TOKEN}`);
    expect(received.text).to.include('expires in 24 hours');
    expect(linkToken(received)).to.equal(TOKEN);
  });

  it('rejects when the server refuses the message', async () => {
    smtp.refusing = true;
    const error = await mailer.send(mail()).then(
      () => undefined,
      (e: unknown) => e as { responseCode?: number },
    );
    expect(error, 'send rejected').to.not.equal(undefined);
    expect(error!.responseCode).to.equal(554);
    expect(smtp.messages).to.be.empty;
  });

  it("rejects with the server's code but none of its reply text, which names the recipient", async () => {
    smtp.refusingRecipients = true;
    const error = await mailer.send(mail()).then(
      () => undefined,
      (e: unknown) => e as Error & { responseCode?: number },
    );
    expect(error, 'send rejected').to.be.instanceOf(Error);
    expect(error!.responseCode).to.equal(550);
    expect(error!.message).to.equal('the mail server refused the message (RCPT TO: 550)');
    const everything = JSON.stringify({ ...error, message: error!.message, stack: error!.stack });
    expect(everything).to.not.include('ada@example.com');
    expect(everything).to.not.include('Recipient address rejected');
    expect(everything).to.not.include(TOKEN);
  });

  it('rejects at once when nothing listens', async () => {
    const down = new SmtpMailer(`smtp://127.0.0.1:${await closedPort()}`, composer);
    const started = Date.now();
    const error = await down.send(mail()).then(
      () => undefined,
      (e: unknown) => e as NodeJS.ErrnoException,
    );
    down.close();
    expect(error?.code).to.be.oneOf(['ESOCKET', 'ECONNECTION', 'ECONNREFUSED']);
    expect(Date.now() - started).to.be.below(3000);
  });

  it('rejects within its timeout when the server accepts the connection but never speaks', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const stalled = new SmtpMailer(`smtp://127.0.0.1:${(silent.address() as AddressInfo).port}`, composer, {
      timeoutMs: 300,
    });
    const started = Date.now();
    try {
      const error = await stalled.send(mail()).then(
        () => undefined,
        (e: unknown) => e as NodeJS.ErrnoException,
      );
      expect(error?.code).to.equal('ETIMEDOUT');
      expect(Date.now() - started).to.be.below(3000);
    } finally {
      stalled.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('bounds every phase by a few seconds by default', () => {
    const options = smtpOptions('smtp://127.0.0.1:25', 5000);
    expect(options).to.include({
      connectionTimeout: 5000,
      greetingTimeout: 5000,
      socketTimeout: 5000,
      dnsTimeout: 5000,
    });
  });
});

describe('smtpOptions', () => {
  it('reads host, port, TLS and percent-encoded credentials from the URL', () => {
    expect(smtpOptions('smtps://us%40er:p%3Ass%2Fw@mail.example.com', 1000)).to.deep.include({
      host: 'mail.example.com',
      port: 465,
      secure: true,
      auth: { user: 'us@er', pass: 'p:ss/w' },
    });
    const plain = smtpOptions('smtp://mail.example.com:2525', 1000);
    expect(plain).to.deep.include({ host: 'mail.example.com', port: 2525, secure: false });
    expect(plain).to.not.have.property('auth');
    expect(smtpOptions('smtp://[::1]:25', 1000).host).to.equal('::1');
  });
});
