import { expect } from 'chai';
import {
  booleanRule,
  dateRule,
  datetimeRule,
  emailRule,
  enumRule,
  guardFields,
  integerRule,
  numberRule,
  optional,
  stringRule,
  textRule,
  uuidRule,
  type FieldRule,
} from '../../../src/domain/shared/fieldRules.js';
import { ValidationError } from '../../../src/domain/shared/DomainError.js';

function expectRule<T>(rule: FieldRule<T>, accepted: readonly unknown[], refused: readonly [unknown, string][]): void {
  for (const value of accepted) expect(rule.violation(value), `accepts ${String(value)}`).to.equal(undefined);
  for (const [value, message] of refused) expect(rule.violation(value), `refuses ${String(value)}`).to.equal(message);
}

describe('field rules (one rule, one message, for every field type)', () => {
  it('string: trimmed, within the length in characters, no NUL, lone surrogate or invisible character', () => {
    const rule = stringRule(1, 200);
    expect(rule.message).to.equal('must be 1 to 200 characters');
    expectRule(
      rule,
      ['x', 'n'.repeat(200), '😀'.repeat(200), 'Blue  Widget'],
      [
        ['', 'must be 1 to 200 characters'],
        ['n'.repeat(201), 'must be 1 to 200 characters'],
        [' Widget', 'must be 1 to 200 characters'],
        ['a\u0000b', 'must not contain NUL characters'],
        ['p\ud800q', 'must not contain unpaired surrogates'],
        ['Wid\u200bget', 'must not contain invisible characters'],
        [42, 'must be 1 to 200 characters'],
      ],
    );
    expect(stringRule(3, 3).message).to.equal('must be exactly 3 characters');
  });

  it('string read: trims, but refuses an invisible character before trimming could hide it', () => {
    expect(stringRule(1, 80).read('  Widget \n')).to.deep.equal({ value: 'Widget' });
    expect(stringRule(1, 80).read('\ufeffWidget')).to.deep.equal({ problem: 'must not contain invisible characters' });
    expect(stringRule(1, 80).read('   ')).to.deep.equal({ problem: 'must be 1 to 80 characters' });
    expect(stringRule(1, 80).read(7)).to.deep.equal({ problem: 'must be 1 to 80 characters' });
  });

  it('text: trimmed, 0 to max, line breaks and format characters allowed, still no NUL', () => {
    const rule = textRule(0, 2000);
    expect(rule.message).to.equal('must be at most 2000 characters');
    expectRule(
      rule,
      ['', 'line one\nline two', 'zero\u200bwidth', 'n'.repeat(2000)],
      [
        ['n'.repeat(2001), 'must be at most 2000 characters'],
        [' padded ', 'must be at most 2000 characters'],
        ['a\u0000b', 'must not contain NUL characters'],
      ],
    );
    expect(rule.read('  notes\n')).to.deep.equal({ value: 'notes' });
  });

  it('integer: a whole number within the inclusive bounds and the signed 32-bit range', () => {
    const rule = integerRule(0, 10);
    expect(rule.message).to.equal('must be an integer from 0 to 10');
    expectRule(
      rule,
      [0, 10, 5],
      [
        [-1, 'must be an integer from 0 to 10'],
        [11, 'must be an integer from 0 to 10'],
        [1.5, 'must be an integer from 0 to 10'],
        ['5', 'must be an integer from 0 to 10'],
        [Number.NaN, 'must be an integer from 0 to 10'],
      ],
    );
    expect(integerRule().message).to.equal('must be an integer from -2147483648 to 2147483647');
    expectRule(
      integerRule(),
      [2147483647, -2147483648],
      [[2147483648, 'must be an integer from -2147483648 to 2147483647']],
    );
  });

  it('number: finite, with inclusive or exclusive bounds named in the message', () => {
    expect(numberRule().message).to.equal('must be a finite number');
    expectRule(
      numberRule(),
      [-1e300, 0, 1.5],
      [
        [Number.POSITIVE_INFINITY, 'must be a finite number'],
        [Number.NaN, 'must be a finite number'],
        ['10', 'must be a finite number'],
      ],
    );
    const positive = numberRule({ min: 0, minExclusive: true });
    expect(positive.message).to.equal('must be a number greater than 0');
    expectRule(
      positive,
      [Number.MIN_VALUE, 0.01],
      [
        [0, 'must be a number greater than 0'],
        [-0, 'must be a number greater than 0'],
      ],
    );
    const fraction = numberRule({ min: 0, max: 1, maxExclusive: true });
    expect(fraction.message).to.equal('must be a number from 0 to less than 1');
    expectRule(
      fraction,
      [0, 0.999],
      [
        [1, fraction.message],
        [-0.1, fraction.message],
      ],
    );
    expect(numberRule({ min: 0, max: 5 }).message).to.equal('must be a number from 0 to 5');
    expect(numberRule({ min: 0, minExclusive: true, max: 5 }).message).to.equal(
      'must be a number from more than 0 to 5',
    );
    expect(numberRule({ min: 2 }).message).to.equal('must be a number of at least 2');
    expect(numberRule({ max: 9, maxExclusive: true }).message).to.equal('must be a number less than 9');
    expect(numberRule({ max: 9 }).message).to.equal('must be a number of at most 9');
  });

  it('boolean: true or false only', () => {
    expectRule(
      booleanRule(),
      [true, false],
      [
        ['true', 'must be true or false'],
        [0, 'must be true or false'],
      ],
    );
  });

  it('date: a calendar day YYYY-MM-DD that exists (leap years counted), its value the text; read trimmed', () => {
    const rule = dateRule();
    const message = 'must be a date (YYYY-MM-DD)';
    expectRule(
      rule,
      ['2026-01-31', '2024-02-29', '2000-02-29', '0001-01-01', '9999-12-31'],
      [
        ['2026-02-30', message],
        ['2025-02-29', message],
        ['1900-02-29', message],
        ['2026-04-31', message],
        ['2026-13-01', message],
        ['2026-00-01', message],
        ['0000-01-01', message],
        ['2026-1-31', message],
        ['2026-01-31T00:00:00Z', message],
        [' 2026-01-31', message],
        [new Date('2026-01-31'), message],
        [20260131, message],
      ],
    );
    expect(rule.read(' 2026-01-31 ')).to.deep.equal({ value: '2026-01-31' });
    expect(rule.read('2026-02-30')).to.deep.equal({ problem: message });
    expect(rule.facts).to.deep.equal({ kind: 'date' });
  });

  it('datetime: a valid Date; read from RFC 3339 with a zone only, refusing impossible days', () => {
    const rule = datetimeRule();
    const message = 'must be a date-time in RFC 3339 format with a time zone';
    expectRule(
      rule,
      [new Date('2026-01-01T00:00:00Z')],
      [
        [new Date('nope'), message],
        ['2026-01-01T00:00:00Z', message],
      ],
    );
    expect(rule.read('2026-03-01T10:00:00+02:00')).to.deep.equal({ value: new Date('2026-03-01T08:00:00.000Z') });
    expect(rule.read('2026-03-01T10:00:00.123Z')).to.deep.equal({ value: new Date('2026-03-01T10:00:00.123Z') });
    for (const bad of [
      '2026-03-01T10:00:00',
      '2026-02-30T00:00:00Z',
      '2026-03-01',
      '2026-13-01T00:00:00Z',
      'yesterday',
      1700000000,
    ]) {
      expect(rule.read(bad), String(bad)).to.deep.equal({ problem: message });
    }
  });

  it("email: the users' rule — read NFKC-normalized, trimmed and lower-cased; stored form checked", () => {
    const rule = emailRule();
    expect(rule.read(' ＡＤＡ＠Example.com ')).to.deep.equal({ value: 'ada@example.com' });
    expect(rule.read('ada\u200b@example.com')).to.deep.equal({ problem: 'must not contain invisible characters' });
    expectRule(
      rule,
      ['ada@example.com'],
      [
        ['Ada@example.com', 'must be a valid e-mail address'],
        ['not-an-address', 'must be a valid e-mail address'],
        ['ada@exa\u200bmple.com', 'must not contain invisible characters'],
      ],
    );
  });

  it('uuid (and ref): a UUID in lower case; read lower-cases it', () => {
    const id = '0a1b2c3d-0000-4000-8000-00000000000f';
    expectRule(
      uuidRule(),
      [id],
      [
        [id.toUpperCase(), 'must be a UUID'],
        ['42', 'must be a UUID'],
        [42, 'must be a UUID'],
      ],
    );
    expect(uuidRule().read(id.toUpperCase())).to.deep.equal({ value: id });
    expect(uuidRule().read('42')).to.deep.equal({ problem: 'must be a UUID' });
  });

  it('enum: one of the listed values, exactly', () => {
    const rule = enumRule(['free', 'pro'] as const);
    expect(rule.message).to.equal('must be one of free, pro');
    expectRule(
      rule,
      ['free', 'pro'],
      [
        ['FREE', 'must be one of free, pro'],
        ['gold', 'must be one of free, pro'],
      ],
    );
  });

  it('optional: null is no value and passes; anything else keeps the rule', () => {
    const rule = optional(integerRule(0, 10));
    expectRule(rule, [null, 3], [[11, 'must be an integer from 0 to 10']]);
    expect(rule.read(null)).to.deep.equal({ value: null });
    expect(rule.read(12)).to.deep.equal({ problem: 'must be an integer from 0 to 10' });
    expect(integerRule(0, 10).violation(null)).to.equal('must be an integer from 0 to 10');
  });

  it("guardFields lists every failing field at once in the rules' order, skipping absent ones", () => {
    const rules = { name: stringRule(1, 5), due_at: datetimeRule(), score: optional(integerRule(0, 10)) };
    expect(() => guardFields(rules, { name: 'ok', score: null })).to.not.throw();
    try {
      guardFields(rules, { score: 11, name: '' });
      expect.fail('nothing was refused');
    } catch (error) {
      expect(error).to.be.instanceOf(ValidationError);
      expect((error as ValidationError).fields).to.deep.equal([
        { field: 'name', message: 'must be 1 to 5 characters' },
        { field: 'score', message: 'must be an integer from 0 to 10' },
      ]);
    }
  });
});
