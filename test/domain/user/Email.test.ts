import { expect } from 'chai';
import { isValidEmail, normalizeEmail, parseEmail } from '../../../src/domain/user/Email.js';

describe('Email', () => {
  describe('parseEmail (the one rule: NFKC, trimmed, lower-cased, then checked)', () => {
    for (const [label, raw, email] of [
      ['a plain address', 'ada@example.com', 'ada@example.com'],
      ['spaces around and capitals', '  Ada@Example.COM ', 'ada@example.com'],
      ['full-width letters, "＠" and "．"', 'ＡＤＡ＠ｅｘａｍｐｌｅ．ｃｏｍ', 'ada@example.com'],
      ['the ligature "ﬁ"', 'ﬁn@example.com', 'fin@example.com'],
      [
        'an ideographic space around it (NFKC makes it a space, then it is trimmed)',
        '\u3000ada@example.com\u3000',
        'ada@example.com',
      ],
      [
        'a dot-atom with every special character allowed',
        "a.b!#$%&'*+/=?^_`{|}~-c@mail.example.com",
        "a.b!#$%&'*+/=?^_`{|}~-c@mail.example.com",
      ],
      ['letters of any script', 'josé@exämple.de', 'josé@exämple.de'],
      ['a hyphen inside a domain label', 'ada@my-host.example.com', 'ada@my-host.example.com'],
    ] as const) {
      it(`accepts ${label}`, () => {
        expect(parseEmail(raw)).to.deep.equal({ email });
      });
    }

    for (const [label, raw, problem] of [
      ['a zero-width space', 'a\u200bda@example.com', 'must not contain invisible characters'],
      ['a zero-width joiner', 'ada\u200d@example.com', 'must not contain invisible characters'],
      ['a word joiner', 'ada@exam\u2060ple.com', 'must not contain invisible characters'],
      [
        'a leading byte-order mark (refused, not trimmed)',
        '\ufeffada@example.com',
        'must not contain invisible characters',
      ],
      ['a left-to-right mark', 'ada\u200e@example.com', 'must not contain invisible characters'],
      ['a right-to-left override', 'ada@\u202eexample.com', 'must not contain invisible characters'],
      ['a bidi isolate', '\u2066ada\u2069@example.com', 'must not contain invisible characters'],
      ['a soft hyphen', 'a\u00adda@example.com', 'must not contain invisible characters'],
      ['a lone surrogate', 'ada\ud800@example.com', 'must not contain unpaired surrogates'],
      ['a NUL', 'ada\u0000@example.com', 'must not contain NUL characters'],
      ['no @', 'ada.example.com', 'must be a valid e-mail address'],
      ['a space inside', 'a da@example.com', 'must be a valid e-mail address'],
      // Forms a mailer reads another recipient out of: each would be a second account for one inbox.
      ['a display name with angle brackets', 'x<victim@ex.com>', 'must be a valid e-mail address'],
      ['a group syntax', 'g:victim@ex.com;', 'must be a valid e-mail address'],
      ['a list', 'a@ex.com,victim@ex.com', 'must be a valid e-mail address'],
      ['a comment', 'victim(c)@ex.com', 'must be a valid e-mail address'],
      ['a quoted local part', '"victim@ex.com"@evil.com', 'must be a valid e-mail address'],
      ['a backslash', 'vic\\tim@ex.com', 'must be a valid e-mail address'],
      ['a second @', 'a@b@ex.com', 'must be a valid e-mail address'],
      ['a leading dot', '.ada@example.com', 'must be a valid e-mail address'],
      ['two dots in a row', 'a..da@example.com', 'must be a valid e-mail address'],
      ['a trailing dot in the local part', 'ada.@example.com', 'must be a valid e-mail address'],
      ['a domain without a dot', 'ada@localhost', 'must be a valid e-mail address'],
      ['a domain label starting with a hyphen', 'ada@-example.com', 'must be a valid e-mail address'],
      ['an underscore in the domain', 'ada@ex_ample.com', 'must be a valid e-mail address'],
      ['a local part over 64 characters', `${'a'.repeat(65)}@example.com`, 'must be a valid e-mail address'],
    ] as const) {
      it(`refuses ${label}`, () => {
        expect(parseEmail(raw)).to.deep.equal({ problem });
      });
    }
  });

  it('normalizeEmail makes compatibility variants one address', () => {
    expect(normalizeEmail('ＡＤＡ＠ｅｘａｍｐｌｅ．ｃｏｍ')).to.equal(normalizeEmail('ada@example.com'));
  });

  it('isValidEmail guards the stored form: no invisible character or lone surrogate gets through', () => {
    expect(isValidEmail('ada@example.com')).to.equal(true);
    expect(isValidEmail('a\u200bda@example.com')).to.equal(false);
    expect(isValidEmail('ada\udc00@example.com')).to.equal(false);
  });
});
