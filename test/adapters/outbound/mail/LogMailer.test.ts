import { expect } from 'chai';
import { Writable } from 'node:stream';
import { LOG_MAIL_ADAPTER, LogMailer } from '../../../../src/adapters/outbound/mail/LogMailer.js';
import { MailComposer } from '../../../../src/adapters/outbound/mail/MailComposer.js';
import { createLogger } from '../../../../src/main/infrastructure/logger.js';
import { accountMail, clock, HOUR_MS, TOKEN } from './accountMail.js';
import { capturingLogger } from '../../../support/logger.js';

const composer = MailComposer.load(
  { directory: 'mail/templates', from: 'Portico <no-reply@localhost>', linkBaseUrl: 'http://localhost:8080' },
  clock,
);
const mail = accountMail({ kind: 'email-verification', expiresAt: new Date(clock.now().getTime() + 24 * HOUR_MS) });

describe('LogMailer (development)', () => {
  it('writes the rendered message, link and token included, at info, marked as the development log adapter', async () => {
    const { logger, lines } = capturingLogger();
    await new LogMailer(composer, logger).send(mail);
    const [line, ...rest] = lines();
    expect(rest).to.be.empty;
    expect(line).to.include({ level: 30, mail_adapter: LOG_MAIL_ADAPTER });
    expect(LOG_MAIL_ADAPTER).to.include('development');
    const logged = line!.mail as Record<string, string>;
    expect(logged).to.include({
      kind: 'email-verification',
      to: 'ada@example.com',
      from: 'Portico <no-reply@localhost>',
      subject: 'Confirm your e-mail address for Portico',
    });
    expect(logged.text).to.include(`http://localhost:8080/verify-email?token=${TOKEN}`);
    expect(logged.text).to.include('expires in 24 hours');
  });

  it("the service logger's redaction leaves the link readable", async () => {
    const chunks: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk.toString('utf8'));
        done();
      },
    });
    await new LogMailer(composer, createLogger('info', 'json', destination)).send(mail);
    const line = JSON.parse(chunks.join('')) as { mail: { text: string }; mail_adapter: string };
    expect(line.mail_adapter).to.equal(LOG_MAIL_ADAPTER);
    expect(line.mail.text).to.include(`verify-email?token=${TOKEN}`);
    expect(chunks.join('')).to.not.include('[redacted]');
  });
});
