import { expect } from 'chai';
import { runEntry } from '../support/process.js';

describe('starting the server with a bad configuration', function () {
  this.timeout(20_000);

  it('exits 1 with one line per problem and no stack trace', async () => {
    const { code, stdout, stderr } = await runEntry('src/main/server.ts', [], {
      SVC_JWT_EXPIRATION: '24x',
      SVC_SERVER_PORT: 'abc',
    });
    expect(code, stderr).to.equal(1);
    const lines = stderr.split('\n').map((l) => l.trim());
    expect(lines).to.include('jwt.expiration: "24x" is not a duration');
    expect(lines).to.include('server.port: "abc" is not an integer from 0 to 65535');
    expect(lines.filter((l) => l.includes(' is not '))).to.have.length(2);
    expect(stderr).to.not.match(/^ {4}at /m);
    expect(stderr).to.not.include('Error:');
    expect(stdout).to.not.include('listening');
  });

  it('in production without mail.smtp_url: exits 1 with one line saying why', async () => {
    const secret = 'a-production-secret-of-32-bytes!';
    const { code, stdout, stderr } = await runEntry('src/main/server.ts', [], {
      SVC_ENV: 'production',
      SVC_JWT_SECRET: secret,
      SVC_SECRETS_ENCRYPTION_KEY: 'a production key for e-mailed links',
      SVC_STORAGE_SIGNING_SECRET: 'a production secret signing file links',
      SVC_MAIL_LINK_BASE_URL: 'https://app.example.com',
    });
    expect(code, stderr).to.equal(1);
    const lines = stderr
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '');
    expect(lines).to.deep.equal([
      'portico: invalid configuration',
      'mail.smtp_url: must be set in production (set SVC_MAIL_SMTP_URL); the log mailer, which writes links with tokens to the log, is for development only',
    ]);
    expect(stdout).to.not.include('listening');
  });
});
