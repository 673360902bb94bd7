import { expect } from 'chai';
import { buildSchema, parse, validate, type DocumentNode, type GraphQLError } from 'graphql';
import { queryLimits } from '../../../../src/adapters/inbound/graphql/limits.js';
import { countingFragmentReads } from '../../../support/fragmentReads.js';

const schema = buildSchema('type Query { a: Int, q: Query }');
const limits = queryLimits({ maxDepth: 15, maxFields: 500, maxAliases: 30 });
const check = (document: DocumentNode): readonly GraphQLError[] => validate(schema, document, [limits]);
const messages = (source: string): string[] => check(parse(source)).map((e) => e.message);

/**
 * `query { ...F0 } fragment F0 on Query { ...F1 ...F1 } … fragment F<n> on Query { __typename }`:
 * about 820 bytes for n = 20, and 2^n fields once every spread is expanded.
 */
export function doublingFragments(n: number): string {
  const fragments = Array.from({ length: n }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`);
  return `query { ...F0 } ${fragments.join(' ')} fragment F${n} on Query { __typename }`;
}

describe('GraphQL query limits (validation rule)', () => {
  it('measures each fragment once, however often it is spread (linear, not 2^n)', () => {
    const document = parse(doublingFragments(12));
    const reads = countingFragmentReads(document);
    expect(check(document).map((e) => e.message)).to.deep.equal([
      'query selects 4096 fields, more than the limit of 500',
    ]);
    // One read by the validation visitor that walks the document, one by the limit rule.
    for (const [name, count] of reads) expect(count, name).to.be.at.most(2);
  });

  it('refuses the 20- and 30-fragment documents with the field limit, counting every spread', () => {
    expect(doublingFragments(20).length).to.be.below(1024);
    expect(messages(doublingFragments(20))).to.deep.equal(['query selects 1048576 fields, more than the limit of 500']);
    expect(messages(doublingFragments(30))).to.deep.equal([
      'query selects 1073741824 fields, more than the limit of 500',
    ]);
  });

  it('saturates counts too large to be exact instead of showing a wrong number', () => {
    expect(messages(doublingFragments(60))).to.deep.equal([
      'query selects at least 9007199254740991 fields, more than the limit of 500',
    ]);
    expect(messages(doublingFragments(2000))).to.deep.equal([
      'query selects at least 9007199254740991 fields, more than the limit of 500',
    ]);
  });

  it('counts a fragment’s fields, aliases and depth at every place it is spread', () => {
    const aliased = (n: number) => Array.from({ length: n }, (_, i) => `x${i}: a`).join(' ');
    // 16 aliases in a fragment spread twice: 32 aliases.
    expect(messages(`{ ...A ...A } fragment A on Query { ${aliased(16)} }`)).to.deep.equal([
      'query uses 32 aliases, more than the limit of 30',
    ]);
    expect(messages(`{ ...A } fragment A on Query { ${aliased(16)} }`)).to.deep.equal([]);
    // The same fragment under 14 levels of q is 15 deep; under 15 it is 16.
    const under = (levels: number) => `${'q { '.repeat(levels)}...B${' }'.repeat(levels)}`;
    expect(messages(`{ ...B ${under(14)} } fragment B on Query { a }`)).to.deep.equal([]);
    expect(messages(`{ ...B ${under(15)} } fragment B on Query { a }`)).to.deep.equal([
      'query depth 16 exceeds the limit of 15',
    ]);
    // Fragments inside inline fragments and nested fragments add up: 250 + 250 fields pass, one more does not.
    const wide = (n: number) => 'a '.repeat(n);
    expect(
      messages(
        `{ ... on Query { ...C } ...D } fragment C on Query { ${wide(250)} } fragment D on Query { ${wide(250)} }`,
      ),
    ).to.deep.equal([]);
    expect(
      messages(
        `{ ... on Query { ...C } ...D } fragment C on Query { ${wide(250)} } fragment D on Query { ${wide(249)} q { a } }`,
      ),
    ).to.deep.equal(['query selects 501 fields, more than the limit of 500']);
  });

  it('terminates on cyclic and unknown fragments (the standard rules report those)', () => {
    expect(messages('{ ...A } fragment A on Query { a ...B } fragment B on Query { a ...A }')).to.deep.equal([]);
    expect(messages('{ ...Missing a }')).to.deep.equal([]);
  });
});
