import { expect } from 'chai';
import { NotUniqueError } from '../../../src/domain/shared/DomainError.js';
import { snakeCase, type FieldDeclaration } from '../../../src/domain/shared/resource.js';
import type { ResourceRepository } from '../../../src/domain/shared/ResourceRepository.js';
import { notUniqueMessage } from '../../../src/domain/shared/resourceErrors.js';
import { gqlData, graphql } from '../graphql.js';
import { externalService } from '../env.js';
import { mutationsOf, type FieldUnderTest, type Json, type ResourceUnderTest } from './descriptor.js';
import { documentsOf } from './graphql.js';
import { domainValue, fieldsOf, inputOf, samplesOf, type DeclaredEntity } from './declared.js';
import { variantOf } from './variants.js';
import { createRow, graphqlInput, itemPath, useResourceWorld, validBody, type ResourceWorld } from './world.js';

export { variantOf };

/**
 * What a `unique` field promises, on every engine and through both APIs: a second row with one
 * value is refused, 409 CONFLICT naming the field (`must be unique: another <resource> has this
 * value`), on create and on update; an optional one may be null in any number of rows; of ten
 * creates racing with one value exactly one is stored.
 */

/** The kind and samples of a declared field as `variantOf` reads them. */
const samplesUnderTest = (field: FieldDeclaration): Pick<FieldUnderTest, 'kind' | 'samples'> => ({
  kind: field.type,
  samples: samplesOf(field).rest as [Json, Json],
});

/** The declared fields of `Entity` that are unique (camel case), refs apart (one row per referenced row is another test). */
export const uniqueFieldsOf = (Entity: DeclaredEntity): [string, FieldDeclaration][] =>
  fieldsOf(Entity).filter(([, field]) => field.isUnique && field.type !== 'ref');

/** A valid create input of `Entity` (camel case) whose unique fields hold their `n`-th values. */
export function distinctInputOf(Entity: DeclaredEntity, n: number): Record<string, unknown> {
  const input = inputOf(Entity);
  for (const [key, field] of uniqueFieldsOf(Entity))
    input[key] = domainValue(field, variantOf(samplesUnderTest(field), n));
  return input;
}

/** One engine the repository half of the suite runs on. */
export interface UniqueEngine<E> {
  readonly name: string;
  /** Opens the engine; a text says why the suite is skipped. */
  setUp(): Promise<string | undefined>;
  /** An empty repository of the resource (the rows its references name stored). */
  fresh(): Promise<ResourceRepository<E>>;
  tearDown(): Promise<void>;
}

type Row = { readonly id: string; toProps(): Record<string, unknown>; update(changes: object, now: Date): Row };

const T0 = new Date('2026-01-02T03:04:05.678Z');
const idOf = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** Asserts `error` is the 409 naming `fields` with the resource's message. */
function expectNotUnique(error: unknown, fields: readonly string[], human: string): void {
  expect(error, String(error)).to.be.instanceOf(NotUniqueError);
  expect(error).to.include({ code: 'CONFLICT', message: 'not unique' });
  expect((error as NotUniqueError).fields).to.deep.equal(
    fields.map((field) => ({ field, message: notUniqueMessage(human) })),
  );
}

const rejectionOf = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

/** The repository half: a unique field's value held once, on each of `engines`. */
export function describeUniqueRepository(Entity: DeclaredEntity, engines: readonly UniqueEngine<Row>[]): void {
  const human = Entity.errors
    .notFound('')
    .message.replace(/ not found$/, '')
    .toLowerCase();
  const make = (n: number, values: Record<string, unknown> = {}): Row =>
    Entity.create({ ...distinctInputOf(Entity, n), ...values, id: idOf(n) } as never, T0) as Row;
  for (const engine of engines) {
    describe(`${Entity.declaration.plural}: unique fields on ${engine.name}`, function () {
      this.timeout(30_000);
      let rows: ResourceRepository<Row>;
      before(async function () {
        const skipped = await engine.setUp();
        if (skipped) {
          console.log(`      (skipped: ${skipped})`);
          this.skip();
        }
      });
      beforeEach(async () => {
        rows = await engine.fresh();
      });
      after(() => engine.tearDown());

      for (const [key, field] of uniqueFieldsOf(Entity)) {
        const name = snakeCase(key);
        it(`${name}: a second row with one value is refused (409 naming ${name}), on add and on update; keeping its own value is not`, async () => {
          const first = make(1);
          await rows.add(first);
          const taken = first.toProps()[key];
          expectNotUnique(await rejectionOf(rows.add(make(2, { [key]: taken }))), [name], human);
          expect(await rows.findById(idOf(2))).to.equal(undefined);
          await rows.add(make(3));
          expectNotUnique(
            await rejectionOf(rows.update(idOf(3), (row) => row.update({ [key]: taken }, T0))),
            [name],
            human,
          );
          expect((await rows.findById(idOf(3)))?.toProps()[key]).to.deep.equal(make(3).toProps()[key]);
          const kept = await rows.update(idOf(1), (row) => row.update({ [key]: taken }, T0));
          expect(kept?.toProps()[key]).to.deep.equal(taken);
        });

        if (field.nullable)
          it(`${name}: optional, so any number of rows may hold null`, async () => {
            for (const n of [1, 2, 3]) await rows.add(make(n, { [key]: null }));
            expect((await rows.list({ page: 1, perPage: 10, sort: 'created_at', order: 'asc' })).items.length).to.equal(
              3,
            );
          });

        it(`${name}: of 10 adds racing with one value, exactly one is stored; the others are refused (409)`, async () => {
          const value = make(1).toProps()[key];
          const results = await Promise.allSettled(
            Array.from({ length: 10 }, (_, i) => rows.add(make(10 + i, { [key]: value }))),
          );
          expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(1);
          for (const result of results.filter((r) => r.status === 'rejected'))
            expectNotUnique(result.reason, [name], human);
        });
      }
    });
  }
}

/** How the HTTP half runs: its engines, and what is done to the service's database once it is up. */
export interface UniqueHttpOptions {
  /** E.g. a unique index added by hand (its fields then count as unique). */
  readonly prepare?: (world: ResourceWorld) => Promise<void>;
  /** Undoes `prepare`, before the service stops (PostgreSQL's test database is shared). */
  readonly cleanUp?: (world: ResourceWorld) => Promise<void>;
}

/** The HTTP half: REST and GraphQL, on SQLite and (with `SVC_TEST_POSTGRES_URL`) PostgreSQL. */
export function describeUniqueHttp(
  resource: ResourceUnderTest,
  unique: readonly FieldUnderTest[],
  options: UniqueHttpOptions = {},
): void {
  const engines = [
    { name: 'SQLite', database: () => 'sqlite::memory:' },
    { name: 'PostgreSQL', database: () => externalService('SVC_TEST_POSTGRES_URL') },
  ];
  const docs = documentsOf(resource);
  const mutations = mutationsOf(resource);
  const message = notUniqueMessage(resource.human.toLowerCase());
  for (const engine of engines) {
    describe(`${resource.human}: unique fields over HTTP on ${engine.name}`, function () {
      this.timeout(60_000);
      let prepared = false;
      after(async () => {
        if (prepared) await options.cleanUp?.(world());
      });
      const world = useResourceWorld({ database: engine.database, skipReason: 'needs SVC_TEST_POSTGRES_URL' });
      let n = 1000;
      /** A valid body whose unique fields hold values no other row has. */
      const freshBody = async (): Promise<Record<string, Json>> => {
        const body = await validBody(world(), resource);
        n += 1;
        for (const field of unique) body[field.name] = variantOf(field, n);
        return body;
      };
      const post = (json: Record<string, Json>) =>
        world().api.post(resource.collection, { token: world().token, json });
      const gql = (query: string, variables: Record<string, unknown>) =>
        graphql<Record<string, { status: number; message: string; errors: unknown; data: unknown }>>(
          world().service.url,
          query,
          { variables, token: world().token },
        );
      before(async () => {
        await options.prepare?.(world());
        prepared = true;
      });

      for (const field of unique) {
        const refused = { code: 'CONFLICT', message: 'not unique', fields: [{ field: field.name, message }] };
        it(`${field.name}: POST and PUT giving a second row its value answer 409 CONFLICT naming ${field.name}; PUT keeping its own answers 200`, async () => {
          const first = await createRow(world(), resource, await freshBody());
          const second = await post({ ...(await freshBody()), [field.name]: first[field.name]! });
          expect(second.status, second.text).to.equal(409);
          expect(second.body).to.deep.equal({ success: false, error: refused });
          const other = await createRow(world(), resource, await freshBody());
          const put = await world().api.put(itemPath(resource, other.id), {
            token: world().token,
            json: { [field.name]: first[field.name]! },
          });
          expect(put.status, put.text).to.equal(409);
          expect(put.body).to.deep.equal({ success: false, error: refused });
          const unchanged = await world().api.get(itemPath(resource, other.id), { token: world().token });
          expect((unchanged.body as { data: Record<string, Json> }).data[field.name]).to.deep.equal(other[field.name]);
          const same = await world().api.put(itemPath(resource, first.id), {
            token: world().token,
            json: { [field.name]: first[field.name]! },
          });
          expect(same.status, same.text).to.equal(200);
        });

        it(`${field.name}: GraphQL create and update answer status 409 in the response object, naming ${field.graphql}`, async () => {
          const first = await createRow(world(), resource, await freshBody());
          const taken = { [field.name]: first[field.name]! };
          const expected = {
            status: 409,
            message: 'not unique',
            errors: [{ fieldName: field.graphql, message }],
            data: null,
          };
          const created = gqlData(
            await gql(docs.create, { input: graphqlInput(resource, { ...(await freshBody()), ...taken }) }),
          )[mutations.create];
          expect(created).to.deep.equal(expected);
          const other = await createRow(world(), resource, await freshBody());
          const updated = gqlData(await gql(docs.update, { id: other.id, input: graphqlInput(resource, taken) }))[
            mutations.update
          ];
          expect(updated).to.deep.equal(expected);
        });

        it(`${field.name}: of 10 POSTs racing with one value, exactly one answers 201 and nine 409, none 500`, async () => {
          const body = await freshBody();
          const answers = await Promise.all(Array.from({ length: 10 }, () => post(body)));
          const statuses = answers.map((a) => a.status).sort();
          expect(statuses, answers.map((a) => a.text).join('\n')).to.deep.equal([201, ...Array(9).fill(409)]);
        });

        if (field.optional)
          it(`${field.name}: optional, so many rows may leave it null`, async () => {
            for (let i = 0; i < 3; i += 1) {
              const answer = await post({ ...(await freshBody()), [field.name]: null });
              expect(answer.status, answer.text).to.equal(201);
            }
          });
      }
    });
  }
}
