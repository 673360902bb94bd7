import { expect } from 'chai';
import { FAILURE_MESSAGE_MAX, failureMessage } from '../../../src/application/jobs/failureMessage.js';

describe('failureMessage (what a failed job keeps as last_error)', () => {
  it("keeps an error's message as it is when it holds nothing to hide", () => {
    expect(failureMessage(new Error('the mail server refused the message (RCPT TO: 550)'))).to.equal(
      'the mail server refused the message (RCPT TO: 550)',
    );
    expect(failureMessage('a thrown string')).to.equal('a thrown string');
    expect(failureMessage(undefined)).to.equal('undefined');
  });

  it('replaces every e-mail address, however a server quotes it', () => {
    const reply =
      "Can't send mail - all recipients were rejected: 550 <ada@example.com>: Recipient address rejected " +
      '(also "grace.hopper+work@mail.example.org", bob@example.net)';
    const kept = failureMessage(new Error(reply));
    expect(kept).to.not.match(/@/);
    expect(kept).to.equal(
      "Can't send mail - all recipients were rejected: 550 <<address>>: Recipient address rejected " +
        '(also "<address>", <address>)',
    );
  });

  it('replaces anything shaped like a secret (an e-mailed token, a JWT, a hash) but keeps ids', () => {
    const verifier = 'q3Vt0tJk1c5h2m7Zk8yW-Pp4aL0x9Qf3Rr6Ss1Tt2Uu';
    const jwt = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwicm9sZSI6ImFkbWluIn0.sig';
    const hash = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    const id = '7d0c9a52-4c1e-4f7a-9a51-0f6b3c2d1e00';
    const kept = failureMessage(new Error(`token aaaaBBBBccccDDDDeeeeFF.${verifier} ${jwt} ${hash} for job ${id}`));
    for (const secret of [verifier, hash, 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9']) expect(kept).to.not.include(secret);
    expect(kept).to.include(id);
  });

  it('keeps the first line only (never a stack) and at most FAILURE_MESSAGE_MAX characters', () => {
    const error = new Error('first line\n    at somewhere (file.js:1:1)');
    expect(failureMessage(error)).to.equal('first line');
    const long = failureMessage(new Error('word '.repeat(1000)));
    expect(long).to.have.length(FAILURE_MESSAGE_MAX);
    expect(long.endsWith('…')).to.equal(true);
  });
});
