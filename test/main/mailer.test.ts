import { expect } from 'chai';
import { LOG_MAIL_ADAPTER, LogMailer } from '../../src/adapters/outbound/mail/LogMailer.js';
import { SmtpMailer } from '../../src/adapters/outbound/mail/SmtpMailer.js';
import type { AccountMail } from '../../src/application/ports/Mailer.js';
import { StartupError } from '../../src/main/infrastructure/StartupError.js';
import { buildMailer } from '../../src/main/infrastructure/mailer.js';
import { startService } from '../../src/main/wiring/service.js';
import { TOKENS } from '../../src/main/wiring/tokens.js';
import { testConfig } from '../support/config.js';
import { capturingLogger, silentLogger } from '../support/logger.js';
import { runEntry } from '../support/process.js';
import { linkToken, startSmtpServer, type TestSmtpServer } from '../support/smtp.js';

const TOKEN = 'c2VsZWN0b3Itc2VsZWN0b3I.dmVyaWZpZXItdmVyaWZpZXItdmVyaWZpZXItdmVyaWZpZXI';
const mail = (to: string): AccountMail => ({
  kind: 'password-reset',
  to,
  firstName: 'Ada',
  token: TOKEN,
  expiresAt: new Date(Date.now() + 3_600_000),
});

describe('buildMailer', function () {
  this.timeout(20_000);
  let smtp: TestSmtpServer;
  before(async () => {
    smtp = await startSmtpServer();
  });
  after(() => smtp.close());

  it('with mail.smtp_url set: SMTP, from mail.from, links under mail.link_base_url', async () => {
    const config = testConfig({
      SVC_MAIL_SMTP_URL: smtp.url,
      SVC_MAIL_FROM: 'Shop <shop@example.com>',
      SVC_MAIL_LINK_BASE_URL: 'https://shop.example.com/',
    });
    const built = buildMailer(config, silentLogger());
    try {
      expect(built.mailer).to.be.instanceOf(SmtpMailer);
      await built.mailer.send(mail('smtp@example.com'));
      const received = await smtp.waitFor((m) => m.to.includes('smtp@example.com'));
      expect(received.from).to.equal('Shop <shop@example.com>');
      expect(received.text).to.include(`https://shop.example.com/reset-password?token=${TOKEN}`);
    } finally {
      built.close();
    }
  });

  it('with mail.smtp_url empty: the log mailer, and it says so at start', async () => {
    const { logger, lines } = capturingLogger();
    const built = buildMailer(testConfig(), logger);
    expect(built.mailer).to.be.instanceOf(LogMailer);
    expect(lines().map((l) => l.msg)).to.deep.equal([
      'mail.smtp_url is empty: account e-mails are written to the log (development only)',
    ]);
    await built.mailer.send(mail('log@example.com'));
    expect(lines()[1]).to.include({ mail_adapter: LOG_MAIL_ADAPTER });
    expect(() => built.close()).to.not.throw();
  });

  it('a broken template is a start-up error naming the key and the file', () => {
    const config = testConfig({ SVC_MAIL_TEMPLATES: 'test/main' });
    expect(() => buildMailer(config, silentLogger())).to.throw(
      StartupError,
      'mail.templates: test/main/password-reset.txt: cannot read the template (ENOENT)',
    );
  });

  it('the running service binds TOKENS.Mailer to it, and stops cleanly', async () => {
    const service = await startService(testConfig({ SVC_MAIL_SMTP_URL: smtp.url }), { logger: silentLogger() });
    try {
      await service.container.get(TOKENS.Mailer).send(mail('service@example.com'));
      const received = await smtp.waitFor((m) => m.to.includes('service@example.com'));
      expect(linkToken(received)).to.equal(TOKEN);
    } finally {
      await service.stop();
    }
  });

  it('the server refuses to start with missing templates: exit 1, one line, no stack trace', async () => {
    const { code, stdout, stderr } = await runEntry('src/main/server.ts', [], {
      SVC_MAIL_TEMPLATES: '/nonexistent/mail',
      SVC_DATABASE_URL: 'sqlite::memory:',
      SVC_SERVER_PORT: '0',
      SVC_METRICS_PORT: '0',
    });
    expect(code, stderr).to.equal(1);
    expect(stderr.trim()).to.equal(
      'portico: mail.templates: /nonexistent/mail/password-reset.txt: cannot read the template (ENOENT)',
    );
    expect(stdout).to.not.include('listening');
  });
});
