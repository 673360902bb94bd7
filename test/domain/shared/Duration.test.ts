import { expect } from 'chai';
import { formatDuration, parseDuration } from '../../../src/domain/shared/Duration.js';

describe('Duration', () => {
  describe('parseDuration (Go syntax, to milliseconds)', () => {
    const valid: [string, number][] = [
      ['500ms', 500],
      ['90s', 90_000],
      ['1m30s', 90_000],
      ['24h', 86_400_000],
      ['168h', 604_800_000],
      ['1.5h', 5_400_000],
      ['2h45m', 9_900_000],
      ['1h0m0s', 3_600_000],
      ['0', 0],
      ['0s', 0],
      ['850µs', 0.85], // U+00B5 micro sign, as Go prints it
      ['850μs', 0.85], // U+03BC Greek mu, which Go also accepts
      ['850us', 0.85],
      ['1ns', 0.000001],
      ['.5s', 500],
      ['1.s', 1000],
      ['-1.5h', -5_400_000],
      ['+5s', 5000],
      ['14d', 1_209_600_000], // days, beyond Go, for retention settings
      ['1d12h', 129_600_000],
    ];
    for (const [text, ms] of valid) {
      it(`reads ${JSON.stringify(text)} as ${ms} ms`, () => {
        expect(parseDuration(text)).to.equal(ms);
      });
    }

    const invalid = ['24x', '', '1', 'h', '1h x', '1h 30m', 'ms', '-', '.', '1hh', '1.5', 'abc', '   '];
    for (const text of invalid) {
      it(`refuses ${JSON.stringify(text)}`, () => {
        expect(parseDuration(text)).to.equal(undefined);
      });
    }
  });

  describe('formatDuration (like Go time.Duration.String)', () => {
    const cases: [number, string][] = [
      [0, '0s'],
      [(72 * 3600 + 30 * 60 + 15) * 1000, '72h30m15s'],
      [3_600_000, '1h0m0s'],
      [3_600_500, '1h0m0.5s'],
      [60_000, '1m0s'],
      [90_000, '1m30s'],
      [1000, '1s'],
      [1500, '1.5s'],
      [1000.000001, '1.000000001s'],
      [2, '2ms'],
      [1.5, '1.5ms'],
      [1.234, '1.234ms'],
      [0.85, '850\u00b5s'],
      [0.001, '1\u00b5s'],
      [0.0015, '1.5\u00b5s'],
      [0.0005, '500ns'],
      [0.000001, '1ns'],
      [-1500, '-1.5s'],
    ];
    for (const [ms, text] of cases) {
      it(`prints ${ms} ms as ${text}`, () => {
        expect(formatDuration(ms)).to.equal(text);
      });
    }

    it('rounds to the nanosecond', () => {
      expect(formatDuration(999.9999999)).to.equal('1s');
      expect(formatDuration(0.0000004)).to.equal('0s');
    });

    it('prints what it parses back to the same value', () => {
      for (const text of ['72h30m15s', '1m30s', '1.5s', '1.234ms', '850\u00b5s', '500ns']) {
        expect(formatDuration(parseDuration(text)!)).to.equal(text);
      }
    });
  });
});
