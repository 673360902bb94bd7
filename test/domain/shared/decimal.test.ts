import { expect } from 'chai';
import { addDecimals, formatUnits, NumberText, numberParts, unitsOf } from '../../../src/domain/shared/Decimal.js';
import { ValidationError } from '../../../src/domain/shared/DomainError.js';
import { decimalRule } from '../../../src/domain/shared/fieldRules.js';
import { declareResource, entityOf, field } from '../../../src/domain/shared/resource.js';

const MONEY = 'must be a decimal of at most 10 digits before the point and 2 after';
const read = (raw: unknown, rule = decimalRule(12, 2)) => rule.read(raw);

describe('exact decimals (decimal(p,s))', () => {
  it('reads text and plain JSON numbers into canonical text with exactly s fraction digits', () => {
    expect(read('0.10')).to.deep.equal({ value: '0.10' });
    expect(read('0.2')).to.deep.equal({ value: '0.20' });
    expect(read(0.1)).to.deep.equal({ value: '0.10' });
    expect(read(12)).to.deep.equal({ value: '12.00' });
    expect(read('  0012.5 ')).to.deep.equal({ value: '12.50' });
    expect(read('-0.00')).to.deep.equal({ value: '0.00' });
    expect(read('-3.5')).to.deep.equal({ value: '-3.50' });
    expect(read('9999999999.99')).to.deep.equal({ value: '9999999999.99' });
    expect(read('7', decimalRule(5, 0))).to.deep.equal({ value: '7' });
  });

  it('reads a JSON number JavaScript prints with an exponent by its plain digits', () => {
    expect(read(5e-8, decimalRule(10, 8))).to.deep.equal({ value: '0.00000005' });
    expect(read(1e2)).to.deep.equal({ value: '100.00' });
  });

  it('reads a number by its own text: every digit written counts, none is rounded away', () => {
    const written = (text: string, rule = decimalRule(12, 2)) => rule.read(new NumberText(text));
    expect(written('0.10')).to.deep.equal({ value: '0.10' });
    expect(written('1.25e1')).to.deep.equal({ value: '12.50' });
    expect(written('100E-2')).to.deep.equal({ value: '1.00' });
    expect(written('1.000e-2')).to.deep.equal({ value: '0.01' });
    expect(written('5e-8', decimalRule(10, 8))).to.deep.equal({ value: '0.00000005' });
    expect(written('9.99999999999e9')).to.deep.equal({ value: '9999999999.99' });
    // -0 is zero exactly, as the text "-0" is.
    expect(written('-0')).to.deep.equal({ value: '0.00' });
    expect(written('-0.0e5')).to.deep.equal({ value: '0.00' });
    // More digits than a double keeps: JSON.parse would give 0.1, 12345678901234567000, Infinity.
    for (const text of ['0.10000000000000001', '12345678901234567890', '1e400', '-1e400', '1e-400', '1e11', '1e-3']) {
      expect(written(text), text).to.deep.equal({ problem: MONEY });
    }
    // Its text is a number's, not a decimal string's: no spaces, no sign but `-`.
    for (const text of [' 1', '+1', '1.', '.5', '0x10', 'Infinity', '1e', '']) {
      expect(written(text), JSON.stringify(text)).to.deep.equal({ problem: MONEY });
    }
  });

  it('weighs an exponent before placing any digit: 1e300000000 is refused at the cost of its text', () => {
    const limits = { integer: 10, fraction: 2 };
    expect(numberParts('1.25e1', limits)).to.deep.equal({ negative: false, integer: '12', fraction: '5' });
    expect(numberParts('-5e-3', { integer: 1, fraction: 3 })).to.deep.equal({
      negative: true,
      integer: '0',
      fraction: '005',
    });
    expect(numberParts('0012.500', limits)).to.deep.equal({ negative: false, integer: '12', fraction: '5' });
    expect(numberParts('0e300000000', limits)).to.deep.equal({ negative: false, integer: '0', fraction: '' });
    const huge = [
      '1e300000000',
      '-1e300000000',
      '1e-300000000',
      '1e99999999999999999999999',
      `1e${'9'.repeat(100_000)}`,
      `1e-${'9'.repeat(100_000)}`,
    ];
    const started = performance.now();
    for (const text of huge) {
      expect(numberParts(text, limits), text.slice(0, 30)).to.equal(undefined);
      expect(read(new NumberText(text)), text.slice(0, 30)).to.deep.equal({ problem: MONEY });
    }
    // Expanded, the first alone would be 300 million digits (hundreds of milliseconds, hundreds of MB).
    expect(performance.now() - started).to.be.below(50);
  });

  it('reads text at the cost of its length: a long run of zeros is no slower than any other digits', () => {
    const zeros = '0'.repeat(50_000);
    const started = performance.now();
    expect(read(`0.${zeros}1`)).to.deep.equal({ problem: MONEY });
    expect(read(`1.${zeros}`)).to.deep.equal({ value: '1.00' });
    expect(read(`${zeros}1.5`)).to.deep.equal({ value: '1.50' });
    expect(read(new NumberText(`0.${zeros}1`))).to.deep.equal({ problem: MONEY });
    expect(unitsOf(`2.${zeros}`, 2)).to.equal(200n);
    expect(performance.now() - started).to.be.below(50);
  });

  it('never rounds: a third fraction digit at scale 2, and 0.1 + 0.2 as a double, are refused', () => {
    expect(read('1.005')).to.deep.equal({ problem: MONEY });
    expect(read(0.125)).to.deep.equal({ problem: MONEY });
    expect(read(0.1 + 0.2)).to.deep.equal({ problem: MONEY });
    expect(read('1.5', decimalRule(5, 0))).to.deep.equal({ problem: 'must be a whole number of at most 5 digits' });
  });

  it('refuses p − s + 1 integer digits, and anything that is not a plain decimal', () => {
    expect(read('12345678901')).to.deep.equal({ problem: MONEY });
    expect(read('12345678901.00')).to.deep.equal({ problem: MONEY });
    expect(read('00000000001234567890.5')).to.deep.equal({ value: '1234567890.50' });
    for (const raw of ['', '1e3', '+1', '1.', '.5', '1,50', 'NaN', 'Infinity', true, null, {}, 1e21, Number.NaN]) {
      expect(read(raw), String(raw)).to.deep.equal({ problem: MONEY });
    }
  });

  it('keeps its bounds exactly, exclusive or not, given as numbers or text', () => {
    const positive = decimalRule(12, 2, { min: 0, minExclusive: true });
    expect(positive.message).to.equal(`${MONEY}, greater than 0.00`);
    expect(positive.read('0.00')).to.deep.equal({ problem: positive.message });
    expect(positive.read('0.01')).to.deep.equal({ value: '0.01' });
    const capped = decimalRule(6, 3, { min: '-1.5', max: '2.25', maxExclusive: true });
    expect(capped.message).to.equal(
      'must be a decimal of at most 3 digits before the point and 3 after, from -1.500 to less than 2.250',
    );
    expect(capped.read('-1.5')).to.deep.equal({ value: '-1.500' });
    expect(capped.read('-1.501')).to.have.property('problem');
    expect(capped.read('2.249')).to.deep.equal({ value: '2.249' });
    expect(capped.read('2.25')).to.have.property('problem');
    expect(capped.facts).to.deep.equal({
      kind: 'decimal',
      precision: 6,
      scale: 3,
      range: { min: '-1.500', max: '2.250', maxExclusive: true },
    });
  });

  it('a stored value must be canonical: the domain guards what a store hands back', () => {
    const rule = decimalRule(12, 2);
    expect(rule.violation('12.50')).to.equal(undefined);
    for (const value of ['12.5', '012.50', '-0.00', 12.5, '12.500']) expect(rule.violation(value)).to.equal(MONEY);
  });

  it('refuses a declaration no engine can store exactly', () => {
    expect(() => decimalRule(16, 2)).to.throw('precision is 1 to 15');
    expect(() => decimalRule(4, 5)).to.throw('scale is 0 to the precision');
    expect(() => decimalRule(12, 2, { min: '0.001' })).to.throw('not of that scale');
  });

  it('sums and formats through whole units, with no double in between', () => {
    expect(addDecimals(['0.10', '0.20'], 2)).to.equal('0.30');
    expect(addDecimals(['9999999999.99', '-9999999999.99', '0.01'], 2)).to.equal('0.01');
    expect(unitsOf('12.50', 2)).to.equal(1250n);
    expect(unitsOf('12.505', 2)).to.equal(undefined);
    expect(formatUnits(-5, 2)).to.equal('-0.05');
    expect(formatUnits(1250n, 0)).to.equal('1250');
  });

  it('a declared entity holds its decimal fields as text and refuses bad ones on create and update', () => {
    const INVOICE = declareResource({
      name: 'invoice',
      plural: 'invoices',
      fields: { amount: field.decimal(12, 2, { min: 0 }), fee: field.decimal(5, 0).optional() },
    });
    class Invoice extends entityOf(INVOICE) {}
    const now = new Date('2026-01-01T00:00:00Z');
    const invoice = Invoice.create({ id: 'i1', amount: '0.10' }, now);
    expect(invoice.amount).to.equal('0.10');
    expect(invoice.fee).to.equal(null);
    expect(() => Invoice.create({ id: 'i2', amount: '0.101' }, now)).to.throw(ValidationError);
    expect(() => invoice.update({ amount: '-0.01' }, now)).to.throw(ValidationError);
    expect(invoice.update({ fee: '12' }, now).fee).to.equal('12');
    expect(INVOICE.sortFields).to.deep.equal(['amount', 'fee', 'created_at', 'updated_at']);
  });
});
