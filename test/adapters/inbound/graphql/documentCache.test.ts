import { expect } from 'chai';
import { parse } from 'graphql';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DocumentCache, documentWeight } from '../../../../src/adapters/inbound/graphql/documentCache.js';
import type { GraphQLAccess } from '../../../../src/adapters/inbound/graphql/resolverKit.js';
import { graphqlRoutes, type GraphQLOptions } from '../../../../src/adapters/inbound/graphql/routes.js';
import { gqlData, gqlRefused, graphql } from '../../../support/graphql.js';
import { startHttpApp, type RunningApp } from '../../../support/httpApp.js';

const doc = (source: string) => parse(source);

describe('DocumentCache', () => {
  it('keeps documents up to its weight budget, dropping the least recently used first', () => {
    const cache = new DocumentCache(300);
    const [a, b, c, d] = ['{ a }', '{ b }', '{ c }', '{ d }'].map(doc);
    cache.set('a', a!, 100);
    cache.set('b', b!, 100);
    cache.set('c', c!, 100);
    expect(cache.get('a')).to.equal(a); // a is now the most recently used, b the least
    cache.set('d', d!, 100);
    expect(cache.get('b')).to.equal(undefined);
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).to.deep.equal([a, c, d]);
    expect(cache.size).to.equal(3);
    expect(cache.weight).to.equal(300);
  });

  it('evicts as many as a heavy document needs, and never keeps one heavier than the whole budget', () => {
    const cache = new DocumentCache(300);
    for (const key of ['a', 'b', 'c']) cache.set(key, doc('{ a }'), 100);
    cache.set('heavy', doc('{ h }'), 250);
    expect(cache.size).to.equal(1);
    expect(cache.weight).to.equal(250);
    cache.set('too heavy', doc('{ t }'), 301);
    expect(cache.get('too heavy')).to.equal(undefined);
    expect(cache.get('heavy')).not.to.equal(undefined);
  });

  it('setting a kept source again replaces it without counting it twice', () => {
    const cache = new DocumentCache(300);
    cache.set('a', doc('{ a }'), 100);
    cache.set('a', doc('{ a }'), 120);
    expect(cache.size).to.equal(1);
    expect(cache.weight).to.equal(120);
  });

  it('documentWeight grows with the tokens, not only the source length (a parsed token costs far more than a character)', () => {
    const short = '{ a b c }';
    const many = `{ ${'a '.repeat(1000)}}`;
    expect(documentWeight(short, parse(short))).to.be.below(10_000);
    expect(documentWeight(many, parse(many))).to.be.greaterThan(200_000);
  });
});

/** `global.gc`, reachable without starting node with --expose-gc. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

describe('the GraphQL parse cache (graphqlRoutes)', function () {
  this.timeout(60_000);
  const options: GraphQLOptions = {
    generalRoute: '/graphql',
    playgroundRoute: '/graphql-playground',
    playground: false,
    introspection: true,
    maxDepth: 15,
    maxTokens: 5000,
    maxCost: 10_000,
  };
  let app: RunningApp;
  let cache: DocumentCache;
  before(async () => {
    cache = new DocumentCache(16 * 1024 * 1024);
    app = await startHttpApp({ routes: [graphqlRoutes([], {} as GraphQLAccess, options, cache)] });
  });
  after(async () => app.close());

  /** A distinct document of about 4,800 tokens, refused for its 1,600 aliases. */
  const refused = (i: number) => `{ ${Array.from({ length: 1600 }, (_, j) => `d${i}_${j}: __typename`).join(' ')} }`;

  it('keeps a document that parsed and validated, and answers it again from the cache', async () => {
    const before = cache.size;
    expect(gqlData(await graphql(app.url, '{ cached: __typename }'))).to.deep.equal({ cached: 'Query' });
    expect(cache.size).to.equal(before + 1);
    expect(gqlData(await graphql(app.url, '{ cached: __typename }'))).to.deep.equal({ cached: 'Query' });
    expect(cache.size).to.equal(before + 1);
  });

  it('keeps no refused document: invalid, over the limits or over max_tokens', async () => {
    const before = cache.size;
    gqlRefused(await graphql(app.url, '{ notAField }'), /Cannot query field/);
    gqlRefused(await graphql(app.url, refused(0)), /aliases/);
    gqlRefused(
      await graphql(app.url, `{ ${'__typename '.repeat(5001)}}`),
      /^document has more than 5000 tokens, the limit$/,
    );
    gqlRefused(await graphql(app.url, '{ unclosed'), /Syntax Error/);
    expect(cache.size).to.equal(before);
  });

  it('200 distinct large refused documents do not stay in memory', async () => {
    collectGarbage();
    const heapBefore = process.memoryUsage().heapUsed;
    for (let i = 1; i <= 200; i += 1) gqlRefused(await graphql(app.url, refused(i)), /aliases/);
    collectGarbage();
    const grown = process.memoryUsage().heapUsed - heapBefore;
    // Each such document holds over 1 MiB once parsed: kept, they would be over 200 MiB.
    expect(grown, `heap grew by ${Math.round(grown / 1024 / 1024)} MiB`).to.be.below(64 * 1024 * 1024);
  });
});
