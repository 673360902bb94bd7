import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  accountLink,
  expiresInWords,
  MailComposer,
  MailTemplateError,
  type MailComposerOptions,
} from '../../../../src/adapters/outbound/mail/MailComposer.js';
import { accountMail, clock, HOUR_MS, TOKEN } from './accountMail.js';

const H = HOUR_MS;
const shipped: MailComposerOptions = {
  directory: 'mail/templates',
  from: 'Portico <no-reply@example.com>',
  linkBaseUrl: 'https://app.example.com',
};
const reset = accountMail;

/** A folder holding the shipped templates, with `overrides` written over them. */
function templatesWith(overrides: Record<string, string | undefined>): string {
  const dir = mkdtempSync(join(tmpdir(), 'portico-mail-'));
  for (const file of ['password-reset.txt', 'email-verification.txt', 'email-changed.txt']) {
    const text = Object.hasOwn(overrides, file) ? overrides[file] : readFileSync(join('mail/templates', file), 'utf8');
    if (text !== undefined) writeFileSync(join(dir, file), text);
  }
  return dir;
}

function loadError(overrides: Record<string, string | undefined>): string {
  const dir = templatesWith(overrides);
  try {
    MailComposer.load({ ...shipped, directory: dir }, clock);
  } catch (error) {
    expect(error).to.be.instanceOf(MailTemplateError);
    return (error as Error).message.replace(dir, '<dir>');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  throw new Error('expected the templates to be refused');
}

describe('MailComposer', () => {
  const composer = MailComposer.load(shipped, clock);

  it('renders the shipped password-reset template: sender, recipient, subject, name, link and expiry', () => {
    const mail = composer.compose(reset());
    expect(mail.to).to.equal('ada@example.com');
    expect(mail.from).to.equal('Portico <no-reply@example.com>');
    expect(mail.subject).to.equal('Reset your Portico password');
    expect(mail.text).to.include('Hello Ada,');
    expect(mail.text).to.include(`\nhttps://app.example.com/reset-password?token=${TOKEN}\n`);
    expect(mail.text).to.include('expires in 1 hour.');
    expect(mail.text).to.include("If this wasn't you, ignore this mail");
    expect(mail.text).to.not.match(/\{\{|\}\}/);
  });

  it('renders the shipped e-mail verification template with its own link and 24 hours', () => {
    const mail = composer.compose(
      reset({ kind: 'email-verification', expiresAt: new Date(clock.now().getTime() + 24 * H) }),
    );
    expect(mail.subject).to.equal('Confirm your e-mail address for Portico');
    expect(mail.text).to.include(`https://app.example.com/verify-email?token=${TOKEN}`);
    expect(mail.text).to.include('expires in 24 hours.');
    expect(mail.text).to.not.include('reset-password');
  });

  it('greets without a name when the mail carries none (an address not proved yet)', () => {
    const { firstName: _, ...anonymous } = reset();
    const mail = composer.compose(anonymous);
    expect(mail.text.split('\n')[0]).to.equal('Hello,');
    expect(mail.text).not.to.include('Ada');
  });

  it('renders the shipped e-mail change notice: no link, no token, no expiry', () => {
    const mail = composer.compose({ kind: 'email-changed', to: 'ada@example.com', firstName: 'Ada' });
    expect(mail.subject).to.equal('The e-mail address of your Portico account was changed');
    expect(mail.text.split('\n')[0]).to.equal('Hello Ada,');
    expect(mail.text).not.to.match(/https?:\/\/|token|\{\{/);
  });

  it('refuses a notice template asking for a link, naming the file', () => {
    expect(loadError({ 'email-changed.txt': 'Subject: Changed\n\nOpen {{link}}\n' })).to.equal(
      '<dir>/email-changed.txt: unknown placeholder {{link}} (known: {{greeting}}, {{first_name}})',
    );
  });

  it('does not re-scan substituted values for placeholders', () => {
    const mail = composer.compose(reset({ firstName: '{{link}} {{expires_in}}' }));
    expect(mail.text).to.include('Hello {{link}} {{expires_in}},');
  });

  it('keeps the subject on one line whatever the values hold', () => {
    const dir = templatesWith({ 'password-reset.txt': 'Subject: Hi {{first_name}}\n\nBody {{link}}\n' });
    try {
      const mail = MailComposer.load({ ...shipped, directory: dir }, clock).compose(
        reset({ firstName: 'Ada\r\nBcc: eve@example.com' }),
      );
      expect(mail.subject).to.equal('Hi Ada Bcc: eve@example.com');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads CRLF templates and a byte order mark', () => {
    const dir = templatesWith({ 'password-reset.txt': '\uFEFFSubject: Reset\r\n\r\nGo to {{link}}\r\nBye\r\n' });
    try {
      const mail = MailComposer.load({ ...shipped, directory: dir }, clock).compose(reset());
      expect(mail.subject).to.equal('Reset');
      expect(mail.text).to.equal(`Go to https://app.example.com/reset-password?token=${TOKEN}\nBye\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('refuses at load, naming the file', () => {
    it('a missing template', () => {
      expect(loadError({ 'email-verification.txt': undefined })).to.equal(
        '<dir>/email-verification.txt: cannot read the template (ENOENT)',
      );
    });

    it('a missing templates folder', () => {
      expect(() => MailComposer.load({ ...shipped, directory: '/nonexistent/mail' }, clock)).to.throw(
        MailTemplateError,
        '/nonexistent/mail/password-reset.txt: cannot read the template (ENOENT)',
      );
    });

    it('no Subject line first', () => {
      expect(loadError({ 'password-reset.txt': 'Hello {{first_name}}\n\n{{link}}\n' })).to.equal(
        '<dir>/password-reset.txt: the first line must be "Subject: <the subject>"',
      );
      expect(loadError({ 'password-reset.txt': 'Subject:   \n\n{{link}}\n' })).to.include(
        'the first line must be "Subject: <the subject>"',
      );
    });

    it('no blank line after the Subject line, or no body', () => {
      expect(loadError({ 'password-reset.txt': 'Subject: Reset\n{{link}}\n' })).to.equal(
        '<dir>/password-reset.txt: a blank line must follow the Subject line',
      );
      expect(loadError({ 'password-reset.txt': 'Subject: Reset\n\n  \n' })).to.equal(
        '<dir>/password-reset.txt: the body after the Subject line is empty',
      );
    });

    it('an unknown placeholder, in the body or the subject', () => {
      expect(loadError({ 'email-verification.txt': 'Subject: Verify\n\nHi {{firstname}}: {{link}}\n' })).to.equal(
        '<dir>/email-verification.txt: unknown placeholder {{firstname}} (known: {{greeting}}, {{first_name}}, {{link}}, {{expires_in}})',
      );
      expect(loadError({ 'password-reset.txt': 'Subject: {{ link }}\n\n{{link}}\n' })).to.include(
        'unknown placeholder {{ link }}',
      );
    });
  });
});

describe('accountLink', () => {
  it('puts the page under the base, with one slash, keeping a base path', () => {
    expect(accountLink('http://localhost:8080', 'verify-email', 'a.b')).to.equal(
      'http://localhost:8080/verify-email?token=a.b',
    );
    expect(accountLink('http://localhost:8080/', 'verify-email', 'a.b')).to.equal(
      'http://localhost:8080/verify-email?token=a.b',
    );
    expect(accountLink('https://example.com/app', 'reset-password', 'a.b')).to.equal(
      'https://example.com/app/reset-password?token=a.b',
    );
    expect(accountLink('https://example.com/app//', 'reset-password', 'a.b')).to.equal(
      'https://example.com/app/reset-password?token=a.b',
    );
  });

  it('URL-encodes the token', () => {
    const link = accountLink('https://example.com', 'reset-password', 'a+b/c=&d e');
    expect(link).to.equal('https://example.com/reset-password?token=a%2Bb%2Fc%3D%26d%20e');
    expect(new URL(link).searchParams.get('token')).to.equal('a+b/c=&d e');
  });
});

describe('expiresInWords', () => {
  it('says how long in words a reader understands', () => {
    expect(expiresInWords(H)).to.equal('1 hour');
    expect(expiresInWords(H - 1500)).to.equal('1 hour');
    expect(expiresInWords(24 * H)).to.equal('24 hours');
    expect(expiresInWords(2 * H)).to.equal('2 hours');
    expect(expiresInWords(30 * 60_000)).to.equal('30 minutes');
    expect(expiresInWords(60_000)).to.equal('1 minute');
    expect(expiresInWords(0)).to.equal('1 minute');
    expect(expiresInWords(72 * H)).to.equal('3 days');
    expect(expiresInWords(50 * H)).to.equal('50 hours');
  });
});
