import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { AesGcmSecretBox } from '../../../../src/adapters/outbound/crypto/AesGcmSecretBox.js';
import { KeyedRecoveryCodes } from '../../../../src/adapters/outbound/crypto/KeyedRecoveryCodes.js';
import { OtplibOneTimePasswords } from '../../../../src/adapters/outbound/crypto/OtplibOneTimePasswords.js';

const KEY = 'a test key for sealed secrets, at least 32 bytes long';

/** RFC 6238's own test secret ("12345678901234567890" in base32) and Debian's oathtool as the reference. */
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const oathtool = (secret: string, epochSeconds: number): string =>
  execFileSync('oathtool', ['--totp', '-b', '-N', `@${epochSeconds}`, secret], { encoding: 'utf8' }).trim();

describe('OtplibOneTimePasswords', () => {
  const otp = new OtplibOneTimePasswords();
  const epoch = 1_111_111_109; // RFC 6238's test time; step 37037036

  it('accepts what oathtool computes, one step either side, and answers the step it matched', () => {
    const now = new Date(epoch * 1000);
    expect(otp.verify(RFC_SECRET, oathtool(RFC_SECRET, epoch), now)).to.equal(37_037_036);
    expect(otp.verify(RFC_SECRET, oathtool(RFC_SECRET, epoch - 30), now)).to.equal(37_037_035);
    expect(otp.verify(RFC_SECRET, oathtool(RFC_SECRET, epoch + 30), now)).to.equal(37_037_037);
    expect(otp.verify(RFC_SECRET, oathtool(RFC_SECRET, epoch + 60), now)).to.equal(undefined);
    expect(otp.verify(RFC_SECRET, oathtool(RFC_SECRET, epoch - 60), now)).to.equal(undefined);
  });

  it('makes 160-bit base32 secrets that oathtool reads, and refuses anything not six digits', () => {
    const secret = otp.newSecret();
    expect(secret).to.match(/^[A-Z2-7]{32}$/);
    const now = new Date();
    expect(otp.verify(secret, oathtool(secret, Math.floor(now.getTime() / 1000)), now)).to.be.a('number');
    expect(otp.verify(secret, '12345', now)).to.equal(undefined);
    expect(otp.verify(secret, 'abcdef', now)).to.equal(undefined);
    expect(otp.verify('not base32!', '123456', now)).to.equal(undefined);
  });

  it('writes the otpauth URI an authenticator reads', () => {
    const uri = new URL(otp.uri(RFC_SECRET, 'ada@example.com', 'Portico'));
    expect(uri.protocol).to.equal('otpauth:');
    expect(uri.searchParams.get('secret')).to.equal(RFC_SECRET);
    expect(uri.searchParams.get('issuer')).to.equal('Portico');
  });
});

describe('AesGcmSecretBox', () => {
  const box = new AesGcmSecretBox(KEY);

  it('opens what it sealed, for the same context only; each seal differs', () => {
    const sealed = box.seal(RFC_SECRET, 'user-1');
    expect(sealed).to.not.include(RFC_SECRET);
    expect(box.seal(RFC_SECRET, 'user-1')).to.not.equal(sealed);
    expect(box.open(sealed, 'user-1')).to.equal(RFC_SECRET);
    expect(box.open(sealed, 'user-2')).to.equal(undefined);
  });

  it('refuses another key, altered bytes and malformed text, without throwing', () => {
    const sealed = box.seal(RFC_SECRET, 'user-1');
    expect(new AesGcmSecretBox(`${KEY} but another`).open(sealed, 'user-1')).to.equal(undefined);
    const parts = sealed.split('.');
    // The first character: all six of its bits are data (the last one's low bits may be padding, which decoding ignores).
    parts[2] = `${parts[2]!.startsWith('A') ? 'B' : 'A'}${parts[2]!.slice(1)}`;
    expect(box.open(parts.join('.'), 'user-1')).to.equal(undefined);
    expect(box.open('v1.nonsense', 'user-1')).to.equal(undefined);
    expect(() => new AesGcmSecretBox('short')).to.throw(/32 bytes/);
  });
});

describe('KeyedRecoveryCodes', () => {
  const codes = new KeyedRecoveryCodes(KEY);

  it('makes distinct codes, hashed alike however they are typed, and differently under another key', () => {
    const made = codes.create(10);
    expect(new Set(made).size).to.equal(10);
    for (const code of made) expect(code).to.match(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
    const code = made[0]!;
    const hash = codes.hash(code);
    expect(hash).to.match(/^[0-9a-f]{64}$/);
    expect(codes.hash(code.toUpperCase().replace(/-/g, ' '))).to.equal(hash);
    expect(new KeyedRecoveryCodes(`${KEY} but another`).hash(code)).to.not.equal(hash);
    expect(codes.hash('123456')).to.equal(undefined);
    expect(codes.hash('x'.repeat(200))).to.equal(undefined);
  });
});
