import { expect } from 'chai';
import { BcryptPasswordHasher } from '../../../../src/adapters/outbound/crypto/BcryptPasswordHasher.js';

/** Cost 4, bcrypt's minimum: the behaviour is the same at any cost, only slower. */
const hasher = new BcryptPasswordHasher(4);

describe('BcryptPasswordHasher', () => {
  it('hashes into a bcrypt string with the configured cost', async () => {
    const hash = await hasher.hash('correct horse battery staple');
    expect(hash).to.match(/^\$2[aby]\$04\$[./A-Za-z0-9]{53}$/);
    expect(await new BcryptPasswordHasher(5).hash('x')).to.match(/^\$2[aby]\$05\$/);
  });

  it('verifies the password it hashed', async () => {
    const hash = await hasher.hash('correct horse battery staple');
    expect(await hasher.verify('correct horse battery staple', hash)).to.equal(true);
  });

  it('refuses any other password', async () => {
    const hash = await hasher.hash('correct horse battery staple');
    for (const other of [
      'correct horse battery stapl',
      'Correct horse battery staple',
      'correct horse battery staple ',
      '',
    ]) {
      expect(await hasher.verify(other, hash), JSON.stringify(other)).to.equal(false);
    }
  });

  it('handles non-ASCII passwords byte for byte', async () => {
    const hash = await hasher.hash('pässwörd-密码');
    expect(await hasher.verify('pässwörd-密码', hash)).to.equal(true);
    expect(await hasher.verify('passwörd-密码', hash)).to.equal(false);
  });

  it('answers false, without throwing, against a malformed hash', async () => {
    const good = await hasher.hash('secret-password');
    for (const malformed of [
      '',
      'not-a-hash',
      '$2b$04$',
      '$2b$04$tooshort',
      good.slice(0, -10),
      `$9z$${good.slice(4)}`,
    ]) {
      expect(await hasher.verify('secret-password', malformed), JSON.stringify(malformed)).to.equal(false);
    }
  });

  it('salts: two hashes of one password differ, and both verify', async () => {
    const [a, b] = await Promise.all([hasher.hash('same-password'), hasher.hash('same-password')]);
    expect(a).not.to.equal(b);
    expect(await hasher.verify('same-password', a)).to.equal(true);
    expect(await hasher.verify('same-password', b)).to.equal(true);
  });
});
