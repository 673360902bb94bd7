import { expect } from 'chai';
import { jsonNumberTexts } from '../../../../src/adapters/inbound/codecs/jsonNumbers.js';

describe('jsonNumberTexts: the source text of numbers in a JSON text', () => {
  it('finds each number where its path leads, as written, and nothing where a path leads to no number', () => {
    const json = '{"a": 0.10000000000000001, "b": [1, 2E+5, {"c": -0}], "d": "7", "e": {"f": 1e400}}';
    expect(
      jsonNumberTexts(json, [['a'], ['b', 1], ['b', 2, 'c'], ['e', 'f'], ['d'], ['b', 0, 'x'], ['b', 9], ['z'], []]),
    ).to.deep.equal([
      '0.10000000000000001',
      '2E+5',
      '-0',
      '1e400',
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(jsonNumberTexts(' \t\r\n12345678901234567890 ', [[]])).to.deep.equal(['12345678901234567890']);
    expect(jsonNumberTexts(json, [])).to.deep.equal([]);
  });

  it('skips strings whatever they hold (quotes, brackets, escapes) and values off the paths', () => {
    const json = '{"s": "a\\\\\\"}{[,", "t": ["]", {"a": 9}], "u": true, "v": null, "a": 1.50}';
    expect(JSON.parse(json)).to.have.property('a', 1.5);
    expect(jsonNumberTexts(json, [['a'], ['t', 1, 'a'], ['u']])).to.deep.equal(['1.50', '9', undefined]);
  });

  it('reads members as JSON.parse keeps them: a repeated name by its last value, an escaped name by its text', () => {
    expect(jsonNumberTexts('{"a": 1, "a": 2.50}', [['a']])).to.deep.equal(['2.50']);
    expect(jsonNumberTexts('{"a": 1.5, "a": "x"}', [['a']])).to.deep.equal([undefined]);
    // The last `a` replaces the first whole: its `b` is gone with it.
    expect(
      jsonNumberTexts('{"a": {"b": 1, "c": 2}, "a": {"c": 3}}', [
        ['a', 'b'],
        ['a', 'c'],
      ]),
    ).to.deep.equal([undefined, '3']);
    expect(jsonNumberTexts('{"\\u0061": 4.0, "\\"q": 5}', [['a'], ['"q']])).to.deep.equal(['4.0', '5']);
  });

  it('an object member is named by text, an array item by its index', () => {
    expect(jsonNumberTexts('{"0": 1}', [[0], ['0']])).to.deep.equal([undefined, '1']);
    expect(jsonNumberTexts('[1, 2]', [['0'], [1]])).to.deep.equal([undefined, '2']);
  });

  it('costs one pass over the text, however many numbers are asked for and however often a name repeats', () => {
    const count = 20_000;
    const numbers = Array.from({ length: count }, (_, i) => `${i}.5`);
    const json = `{${'"v": [0], '.repeat(count)}"v": [${numbers.join(', ')}]}`;
    const paths = numbers.map((_, i) => ['v', i]);
    const started = performance.now();
    const texts = jsonNumberTexts(json, paths);
    const elapsed = performance.now() - started;
    expect(texts).to.deep.equal(numbers);
    // Linear: a few milliseconds; a rescan per path or per repeated name would take seconds.
    expect(elapsed).to.be.below(500);
  });
});
