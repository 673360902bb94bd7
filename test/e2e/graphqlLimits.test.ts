import { expect } from 'chai';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { testConfig } from '../support/config.js';
import {
  gqlData,
  gqlRefused,
  graphql,
  type GraphQLErrorJson,
  type GraphQLRequest,
  type GraphQLResponse,
} from '../support/graphql.js';
import { silentLogger } from '../support/logger.js';

const GRAPHQL_RESPONSE = 'application/graphql-response+json';

/** `query { ...F0 } fragment F0 on Query { ...F1 ...F1 } … fragment F<n> on Query { __typename }`: 2^n fields. */
const doublingFragments = (n: number): string =>
  `query { ...F0 } ${Array.from({ length: n }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`).join(' ')} fragment F${n} on Query { __typename }`;

/** A document of exactly `n` lexical tokens: `{`, n - 2 `__typename`, `}`. */
const tokens = (n: number): string => `{ ${'__typename '.repeat(n - 2)}}`;

/** `n` short tokens (`{`, n - 2 `a`, `}`), small enough for a GET URL. */
const shortTokens = (n: number): string => `{${' a'.repeat(n - 2)} }`;

const start = (env: Record<string, string> = {}): Promise<RunningService> =>
  startService(
    testConfig({ SVC_API_MODE: 'graphql', SVC_AUTH_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false', ...env }),
    { logger: silentLogger() },
  );

/** The one refusal with `code`, after asserting the document was refused before execution. */
function refusedWith(response: GraphQLResponse<unknown>, message: RegExp, code: string): GraphQLErrorJson {
  const errors = gqlRefused(response, message);
  const error = errors.find((e) => message.test(e.message))!;
  expect(error.extensions?.code, response.text).to.equal(code);
  return error;
}

describe('GraphQL hardening: fragments, tokens, parse cache (end to end)', function () {
  this.timeout(60_000);
  let service: RunningService;
  before(async () => {
    service = await start();
  });
  after(async () => service.stop());

  for (const method of ['POST', 'GET'] as const) {
    it(`${method}: fragments spreading each other twice, 20 and 30 deep, are refused at once with the field limit`, async () => {
      for (const [n, fields] of [
        [20, '1048576'],
        [30, '1073741824'],
      ] as const) {
        const started = performance.now();
        const response = await graphql(service.url, doublingFragments(n), { method });
        const elapsed = performance.now() - started;
        expect(response.status, response.text).to.equal(200);
        refusedWith(
          response,
          new RegExp(`^query selects ${fields} fields, more than the limit of 500$`),
          'QUERY_TOO_COMPLEX',
        );
        // Generous for a loaded machine: walking every spread took seconds for 20 and would take hours for 30.
        expect(elapsed, `${n} fragments took ${Math.round(elapsed)} ms`).to.be.below(2000);
      }
      // The service is still answering.
      expect(gqlData(await graphql(service.url, '{ __typename }', { method }))).to.deep.equal({ __typename: 'Query' });
    });
  }

  it('graphql.max_tokens (default 5000): 5,001 tokens are refused while parsing, over POST and GET, with no data', async () => {
    const message = /^document has more than 5000 tokens, the limit$/;
    for (const method of ['POST', 'GET'] as const) {
      const request: GraphQLRequest = { method };
      const json = await graphql(service.url, shortTokens(5001), request);
      expect(json.status, json.text).to.equal(200); // graphql-http: a refused document is 200 to application/json clients
      expect(json.body.errors, json.text).to.have.length(1);
      const error = refusedWith(json, message, 'QUERY_TOO_COMPLEX');
      expect(error.locations, json.text).to.deep.equal([{ line: 1, column: 10_001 }]); // the 5,001st token, the closing brace
      const strict = await graphql(service.url, shortTokens(5001), { ...request, accept: GRAPHQL_RESPONSE });
      expect(strict.status, strict.text).to.equal(400);
      refusedWith(strict, message, 'QUERY_TOO_COMPLEX');
    }
  });

  it('the token limit applies before the field limit: 5,000 tokens reach validation (and its field limit) instead', async () => {
    refusedWith(
      await graphql(service.url, tokens(5000)),
      /^query selects 4998 fields, more than the limit of 500$/,
      'QUERY_TOO_COMPLEX',
    );
  });

  it('a document refused once is refused again (refusals are never cached as anything else)', async () => {
    for (let i = 0; i < 2; i += 1)
      gqlRefused(await graphql(service.url, '{ __typename notAField }'), /Cannot query field "notAField"/);
  });
});

describe('GraphQL with graphql.max_tokens 10', function () {
  this.timeout(30_000);
  let service: RunningService;
  before(async () => {
    service = await start({ SVC_GRAPHQL_MAX_TOKENS: '10' });
  });
  after(async () => service.stop());

  it('a document of 10 tokens runs; 11 tokens are refused', async () => {
    expect(gqlData(await graphql(service.url, tokens(10)))).to.deep.equal({ __typename: 'Query' });
    refusedWith(
      await graphql(service.url, tokens(11)),
      /^document has more than 10 tokens, the limit$/,
      'QUERY_TOO_COMPLEX',
    );
  });
});

/** Documents whose errors graphql-js would finish with a "Did you mean …?" suggestion. */
const MISSPELLED: [string, string, Record<string, unknown> | undefined, RegExp][] = [
  [
    'a misspelled field',
    '{ queryHealth { statuss } }',
    undefined,
    /^Cannot query field "statuss" on type "TCommonResponseDto"\.$/,
  ],
  [
    'a misspelled argument',
    '{ product(id: "x", idd: "y") { id } }',
    undefined,
    /^Unknown argument "idd" on field "Query\.product"\.$/,
  ],
  [
    'a misspelled type',
    'query ($p: TPaginationInputDt) { products(pagination: $p) { data { id } } }',
    undefined,
    /^Unknown type "TPaginationInputDt"\.$/,
  ],
  [
    'a misspelled input field',
    '{ products(sort: { sortByFeld: "name" }) { data { id } } }',
    undefined,
    /^Field "sortByFeld" is not defined by type "TSortingInputDto"\.$/,
  ],
  [
    'a misspelled enum value',
    '{ products(sort: { sortByField: "name", sortOrientation: ASCC }) { data { id } } }',
    undefined,
    /^Value "ASCC" does not exist in "SortOrientation" enum\.$/,
  ],
  [
    'a misspelled field of a variable (caught at execution, not validation)',
    'query ($s: TSortingInputDto) { products(sort: $s) { data { id } } }',
    { s: { sortByField: 'name', sortOrientatio: 'ASC' } },
    /Field "sortOrientatio" is not defined by type "TSortingInputDto"\.$/,
  ],
];

describe('GraphQL error messages and introspection', function () {
  this.timeout(30_000);
  let withIntrospection: RunningService;
  let withoutIntrospection: RunningService;
  before(async () => {
    withIntrospection = await start();
    withoutIntrospection = await start({ SVC_GRAPHQL_INTROSPECTION: 'false' });
  });
  after(async () => {
    await withIntrospection.stop();
    await withoutIntrospection.stop();
  });

  for (const [what, query, variables, message] of MISSPELLED) {
    it(`${what}: "Did you mean" only while introspection is on`, async () => {
      const on = await graphql(withIntrospection.url, query, { variables });
      expect(on.text).to.match(/Did you mean/);
      const off = await graphql(withoutIntrospection.url, query, { variables });
      expect(off.status, off.text).to.equal(200);
      expect(off.text).not.to.match(/did you mean/i);
      expect(
        off.body.errors!.some((e) => message.test(e.message)),
        off.text,
      ).to.equal(true);
      // Everything but the suggestion stays: the locations still point at the mistake.
      const error = off.body.errors!.find((e) => message.test(e.message))!;
      expect(error.locations, off.text).to.be.an('array').that.is.not.empty;
    });
  }
});
