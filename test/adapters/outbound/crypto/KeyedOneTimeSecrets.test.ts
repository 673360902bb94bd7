import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { KeyedOneTimeSecrets } from '../../../../src/adapters/outbound/crypto/KeyedOneTimeSecrets.js';
import { TEST_SECRETS_KEY } from '../../../support/oneTimeSecrets.js';

describe('KeyedOneTimeSecrets', () => {
  const secrets = new KeyedOneTimeSecrets(TEST_SECRETS_KEY);

  it('makes <selector>.<verifier>: 16 random bytes and a 32-byte keyed verifier in base64url, and stores only the SHA-256 of the verifier', () => {
    const { token, selector, verifierHash } = secrets.create();
    const [sel, verifier] = token.split('.');
    expect(sel).to.equal(selector);
    expect(Buffer.from(selector, 'base64url')).to.have.length(16);
    expect(Buffer.from(verifier!, 'base64url')).to.have.length(32);
    expect(token).to.match(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(verifierHash).to.equal(createHash('sha256').update(verifier!).digest('hex'));
    expect(verifierHash).to.not.include(verifier);
  });

  it('makes the same token again from its selector alone, and only under the same key', () => {
    const { token, selector } = secrets.create();
    expect(secrets.tokenOf(selector)).to.equal(token);
    expect(new KeyedOneTimeSecrets(TEST_SECRETS_KEY).tokenOf(selector)).to.equal(token);
    const otherKey = new KeyedOneTimeSecrets(`${TEST_SECRETS_KEY}, but another one`);
    expect(otherKey.tokenOf(selector)).to.not.equal(token);
    expect(otherKey.tokenOf(selector)!.split('.')[0]).to.equal(selector);
    // Without the key, the selector and the stored hash give nothing: the verifier is not a hash of the selector.
    const verifier = token.split('.')[1]!;
    expect(verifier).to.not.equal(createHash('sha256').update(selector).digest('base64url'));
  });

  it('makes no token from anything not shaped like a selector, without throwing', () => {
    const { selector } = secrets.create();
    const bad: unknown[] = [
      '',
      selector.slice(1),
      `${selector}A`,
      `${selector.slice(0, -1)}B`,
      `${selector}.`,
      42,
      null,
      {},
    ];
    for (const input of bad) expect(secrets.tokenOf(input as string), String(input)).to.equal(undefined);
  });

  it('refuses a key shorter than 32 bytes', () => {
    expect(() => new KeyedOneTimeSecrets('x'.repeat(31))).to.throw(/at least 32 bytes/);
    expect(() => new KeyedOneTimeSecrets(Buffer.alloc(32, 1))).to.not.throw();
  });

  it('never gives two tokens the same selector or verifier over many draws', () => {
    const selectors = new Set<string>();
    const verifiers = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const { token, selector } = secrets.create();
      selectors.add(selector);
      verifiers.add(token.split('.')[1]!);
    }
    expect(selectors.size).to.equal(20_000);
    expect(verifiers.size).to.equal(20_000);
  });

  it('parses what it makes', () => {
    const { token, selector } = secrets.create();
    expect(secrets.parse(token)).to.deep.equal({ selector, verifier: token.split('.')[1] });
  });

  it('refuses anything not exactly that shape, without throwing', () => {
    const { token } = secrets.create();
    const [selector, verifier] = token.split('.') as [string, string];
    const bad: unknown[] = [
      '',
      '.',
      selector,
      `${selector}.`,
      `.${verifier}`,
      `${selector}.${verifier}.`,
      `${selector}.${verifier}x`,
      `${selector}x.${verifier}`,
      `${selector.slice(1)}.${verifier}`,
      `${selector}.${verifier.slice(1)}`,
      `${selector}:${verifier}`,
      ` ${token}`,
      `${token}\n`,
      `${selector}.${verifier.slice(0, -1)}+`,
      `${selector}.${verifier.slice(0, -1)}=`,
      `${selector.slice(0, -1)}/.${verifier}`,
      `${selector.slice(0, -2)}==.${verifier}`,
      `${selector}.${verifier.slice(0, -1)}é`,
      'x'.repeat(10_000_000),
      `${selector}.${verifier}`.repeat(2),
      undefined,
      null,
      42,
      {},
      [token],
      { toString: () => token },
    ];
    for (const input of bad) {
      expect(() => secrets.parse(input as string), String(input).slice(0, 80)).to.not.throw();
      expect(secrets.parse(input as string), String(input).slice(0, 80)).to.equal(undefined);
    }
  });

  it('refuses a non-canonical spelling of the same bytes', () => {
    // 16 bytes in 22 characters: the last carries 2 bits and 4 zero bits, so "A" and "B" decode alike.
    const selector = 'AAAAAAAAAAAAAAAAAAAAAB';
    expect(Buffer.from(selector, 'base64url').equals(Buffer.from('AAAAAAAAAAAAAAAAAAAAAA', 'base64url'))).to.be.true;
    const verifier = secrets.create().token.split('.')[1]!;
    expect(secrets.parse(`AAAAAAAAAAAAAAAAAAAAAA.${verifier}`)).to.not.equal(undefined);
    expect(secrets.parse(`${selector}.${verifier}`)).to.equal(undefined);
  });

  it('matches the verifier against its stored hash, and nothing else', () => {
    const { token, verifierHash } = secrets.create();
    const { verifier } = secrets.parse(token)!;
    expect(secrets.matches(verifier, verifierHash)).to.be.true;
    const other = secrets.create();
    expect(secrets.matches(secrets.parse(other.token)!.verifier, verifierHash)).to.be.false;
    expect(secrets.matches(verifier, other.verifierHash)).to.be.false;
    expect(secrets.matches(verifier, verifierHash.toUpperCase().replace(/[0-9]/g, 'G'))).to.be.false;
    expect(secrets.matches(verifier, verifierHash.slice(0, 62))).to.be.false;
    expect(secrets.matches(verifier, `${verifierHash}00`)).to.be.false;
    expect(secrets.matches(verifier, '')).to.be.false;
    expect(secrets.matches(verifierHash, verifierHash)).to.be.false;
    expect(() => secrets.matches(undefined as unknown as string, verifierHash)).to.not.throw();
  });
});
