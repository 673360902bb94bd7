import { expect } from 'chai';
import { buildSchema, parse, type ExecutionArgs, type GraphQLScalarType } from 'graphql';
import { defineDecimal } from '../../../../src/adapters/inbound/graphql/decimal.js';
import { withDecimalTexts } from '../../../../src/adapters/inbound/graphql/decimalVariables.js';
import { NumberText } from '../../../../src/domain/shared/Decimal.js';

const schema = buildSchema(`
  scalar Decimal
  input Line { price: Decimal, weight: Float, count: Int, next: Line }
  input Loop { other: Back }
  input Back { loop: Loop, amount: Decimal }
  input Plain { weight: Float }
  type Query {
    echo(amount: Decimal, weight: Float, lines: [Line!], loop: Loop, amounts: [Decimal], plain: Plain): String
  }
`);
defineDecimal(schema.getType('Decimal') as GraphQLScalarType);

const document = parse(`query Echo($amount: Decimal, $weight: Float, $lines: [Line!], $loop: Loop, $amounts: [Decimal],
  $plain: Plain) {
  echo(amount: $amount, weight: $weight, lines: $lines, loop: $loop, amounts: $amounts, plain: $plain)
}`);

/** The arguments graphql-http hands to `execute` for this request body, read by withDecimalTexts. */
function readVariables(body: string): { args: ExecutionArgs; read: ExecutionArgs } {
  const args = {
    schema,
    document,
    variableValues: (JSON.parse(body) as { variables: Record<string, unknown> }).variables,
  };
  return { args, read: withDecimalTexts(args, () => ({ json: body, at: ['variables'] })) };
}

describe('withDecimalTexts: Decimal variables given as JSON numbers, read by their text', () => {
  it('hands on the text of each number at a Decimal position, wherever the variable types put one', () => {
    const body = `{"query": "…", "variables": {
      "amount": 0.10000000000000001, "weight": 0.10000000000000001,
      "lines": [{"price": 1e400, "weight": 2.5, "count": 3, "next": {"price": 7.0, "weight": 1e-7}}, {"price": "8"}],
      "loop": {"other": {"amount": 1.50, "loop": {"other": {"amount": 12345678901234567890}}}},
      "amounts": [1, "2", 3.0, null], "plain": {"weight": 0.5}}}`;
    const { args, read } = readVariables(body);
    expect(read.variableValues).to.deep.equal({
      amount: new NumberText('0.10000000000000001'),
      weight: 0.1,
      lines: [
        { price: new NumberText('1e400'), weight: 2.5, count: 3, next: { price: new NumberText('7.0'), weight: 1e-7 } },
        { price: '8' },
      ],
      loop: {
        other: { amount: new NumberText('1.50'), loop: { other: { amount: new NumberText('12345678901234567890') } } },
      },
      amounts: [new NumberText('1'), '2', new NumberText('3.0'), null],
      plain: { weight: 0.5 },
    });
    // The parsed body is left as it was.
    expect((args.variableValues as Record<string, unknown>).amount).to.equal(0.1);
  });

  it('a lone Decimal is taken for a one-item list, as GraphQL coerces it', () => {
    const { read } = readVariables('{"variables": {"amounts": 0.10000000000000001}}');
    expect(read.variableValues).to.deep.equal({ amounts: new NumberText('0.10000000000000001') });
  });

  it('leaves the arguments as they are, never reading the text, when no Decimal position holds a number', () => {
    const args = {
      schema,
      document,
      variableValues: { amount: '0.10', weight: 0.5, lines: [{ weight: 1, price: null }], plain: { weight: 2 } },
    };
    const read = withDecimalTexts(args, () => expect.fail('the text was read'));
    expect(read).to.equal(args);
    const bare = { schema, document: parse('{ echo }') };
    expect(withDecimalTexts(bare, () => expect.fail('the text was read'))).to.equal(bare);
  });
});
