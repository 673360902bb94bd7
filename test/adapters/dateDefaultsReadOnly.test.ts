import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { expect } from 'chai';
import { graphql, printSchema, type GraphQLSchema } from 'graphql';
import pino from 'pino';
import { decodeBody, type Shape } from '../../src/adapters/inbound/codecs/fields.js';
import { bodiesOf } from '../../src/adapters/inbound/codecs/resourceCodecs.js';
import type { GraphQLContext } from '../../src/adapters/inbound/graphql/resolverKit.js';
import { resourceGraphQL } from '../../src/adapters/inbound/graphql/resourceGraphQL.js';
import { createSchema } from '../../src/adapters/inbound/graphql/schema.js';
import { buildOpenApiDocument } from '../../src/adapters/inbound/http/openapi.js';
import { operationsOf } from '../../src/adapters/inbound/http/resourceOperations.js';
import { memoryRepositoryOf } from '../../src/adapters/outbound/memory/InMemoryResourceRepository.js';
import type { Database } from '../../src/adapters/outbound/mikroorm/database.js';
import { createResourceTable, tableOf, tableSpecOf } from '../../src/adapters/outbound/mikroorm/resourceTable.js';
import { changeResourceTable } from '../../src/adapters/outbound/mikroorm/resourceTableChange.js';
import { SqlResourceRepository } from '../../src/adapters/outbound/mikroorm/SqlResourceRepository.js';
import { resourceUseCases } from '../../src/application/resources/resourceUseCases.js';
import type { ValidationError } from '../../src/domain/shared/DomainError.js';
import { declareResource, entityOf, field, READ_ONLY } from '../../src/domain/shared/resource.js';
import { connectDatabase } from '../support/database.js';
import { externalService } from '../support/env.js';
import { FixedClock } from '../support/FixedClock.js';
import { entityUnderTest } from '../support/resource/declared.js';
import { describeResourceEntity, describeResourceUseCases } from '../support/resource/useCases.js';
import { SequentialIds } from '../support/SequentialIds.js';

/**
 * A resource with a `date` field, a default and a read-only enum (an edition of a book), served by
 * the shared cores without the service: the domain and use-case suites over its declaration, its
 * REST bodies and API document, its GraphQL schema and mutations, and its table on SQLite and
 * PostgreSQL (dates read back as written, sorted by day; the column default; a backfill).
 */
const EDITION = declareResource({
  name: 'edition',
  plural: 'test_editions',
  fields: {
    title: field.string(1, 80),
    publishedOn: field.date().optional(),
    stock: field.integer(0).default(0),
    status: field.enum(['draft', 'sent', 'paid']).readonly().default('draft'),
  },
});
class Edition extends entityOf(EDITION) {}

const T0 = new Date('2026-01-02T03:04:05.678Z');
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describe('date fields, defaults and read-only fields (a declared resource on the shared cores)', () => {
  describe('the shared domain and use-case suites over the declaration', () => {
    const entity = entityUnderTest(Edition);
    it('derive date samples, the defaults and the read-only field from the declaration', () => {
      expect(entity.input).to.include({ publishedOn: '2026-03-04', status: 'draft' });
      expect(entity.defaults).to.deep.equal([
        { prop: 'stock', value: 0 },
        { prop: 'status', value: 'draft' },
      ]);
      expect(entity.readOnly).to.deep.equal([{ prop: 'status', field: 'status', other: 'sent' }]);
      expect(entity.invalid.filter((i) => i.prop === 'publishedOn').map((i) => i.value)).to.include('2026-02-30');
    });
    describeResourceEntity(entity);
    describeResourceUseCases({
      ...entity,
      useCases: (rows, ids, clock) =>
        resourceUseCases({ entity: Edition as never, rows: rows as never, ids, clock }) as never,
      fresh: async () => memoryRepositoryOf(Edition as never) as never,
    });
  });

  describe('the date rule', () => {
    const rule = EDITION.fields.publishedOn.rule;
    it('takes a real day as YYYY-MM-DD (leap days included) and refuses anything else, naming the form', () => {
      for (const day of ['2026-01-31', '2024-02-29', '2000-02-29', '0001-01-01', '9999-12-31'])
        expect(rule.read(day), day).to.deep.equal({ value: day });
      for (const bad of [
        '2026-02-30',
        '2025-02-29',
        '1900-02-29',
        '2026-13-01',
        '2026-00-10',
        '0000-01-01',
        '2026-1-1',
      ])
        expect(rule.read(bad), bad).to.deep.equal({ problem: 'must be a date (YYYY-MM-DD)' });
      for (const bad of ['2026-01-31T00:00:00Z', 20260131, '', null])
        expect(rule.read(bad), String(bad)).to.deep.equal({ problem: 'must be a date (YYYY-MM-DD)' });
    });
    it('a default is read through the field rule: a default that breaks it is refused when declared', () => {
      expect(field.date().default(' 2026-01-01 ').defaultValue).to.equal('2026-01-01');
      expect(() => field.date().default('2026-02-30')).to.throw('must be a date (YYYY-MM-DD)');
      expect(() => field.integer(0).default(-1)).to.throw('must be an integer from 0');
    });
    it('a value that breaks a read-only field rule is reported once, for its rule', () => {
      let error: unknown;
      try {
        Edition.create({ id: id(1), title: 'A', status: 'lost' as never }, T0);
      } catch (caught) {
        error = caught;
      }
      expect((error as ValidationError).fields).to.deep.equal([
        { field: 'status', message: 'must be one of draft, sent, paid' },
      ]);
      expect(READ_ONLY).to.equal('is read-only');
    });
  });

  describe('REST', () => {
    const bodies = bodiesOf(EDITION);
    it('a create body may leave out the optional date and the defaulted fields; a bad date is refused on that field', () => {
      expect(decodeBody(bodies.create as Shape, { title: 'A' })).to.deep.equal({ title: 'A' });
      expect(decodeBody(bodies.create as Shape, { title: 'A', published_on: ' 2026-05-06 ' })).to.deep.equal({
        title: 'A',
        publishedOn: '2026-05-06',
      });
      for (const value of ['2026-02-30', 20260506, '06/05/2026']) {
        try {
          decodeBody(bodies.create as Shape, { title: 'A', published_on: value });
          expect.fail(`accepted ${value}`);
        } catch (error) {
          expect((error as ValidationError).fields).to.deep.equal([
            { field: 'published_on', message: 'must be a date (YYYY-MM-DD)' },
          ]);
        }
      }
    });

    it('the API document: a date is a string of format date; a default is shown and not required; read-only is readOnly', () => {
      const operations = Object.values(operationsOf(EDITION));
      const document = buildOpenApiDocument(operations, { title: 't', version: '1', description: 'd' }) as unknown as {
        paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>>;
        components: { schemas: Record<string, Schema> };
      };
      type Schema = { required?: string[]; properties?: Record<string, Record<string, unknown>> };
      const create = document.paths['/api/v1/test-editions']!.post!.requestBody!.content['application/json']!.schema;
      expect(create.required).to.deep.equal(['title']);
      expect(create.properties!.published_on).to.include({ format: 'date' });
      expect(create.properties!.published_on!.type).to.deep.equal(['string', 'null']);
      expect(create.properties!.stock).to.include({ type: 'integer', default: 0 });
      expect(create.properties!.status).to.include({ default: 'draft', readOnly: true });
      const update =
        document.paths['/api/v1/test-editions/{id}']!.put!.requestBody!.content['application/json']!.schema;
      expect(update.properties!.status).to.include({ readOnly: true });
      expect(update.properties!.status).not.to.have.property('default');
      const answered = document.components.schemas.Edition!;
      expect(answered.required).to.include.members(['stock', 'status', 'published_on']);
      expect(answered.properties!.stock).to.deep.include({ type: 'integer' });
      expect(answered.properties!.stock).not.to.have.property('default');
      expect(answered.properties!.status).to.include({ readOnly: true });
    });
  });

  describe('GraphQL', () => {
    const context = (): GraphQLContext => ({
      bearer: 'token',
      bearerProblem: undefined,
      log: pino({ level: 'silent' }),
      access: {
        authenticate: { execute: async () => ({ sub: 'u1', role: 'admin' }) } as never,
        policy: { enforce: async () => true, scopeOf: async () => 'all' } as never,
      },
    });
    let schema: GraphQLSchema;
    beforeEach(() => {
      const useCases = resourceUseCases({
        entity: Edition as never,
        rows: memoryRepositoryOf(Edition as never),
        ids: new SequentialIds(),
        clock: new FixedClock(T0),
      });
      schema = createSchema([
        resourceGraphQL(
          { declaration: EDITION, notFound: (n: string) => Edition.errors.notFound(n) } as never,
          useCases as never,
        ),
      ]);
    });
    const run = async (source: string, variables: Record<string, unknown> = {}) => {
      const result = await graphql({ schema, source, contextValue: context(), variableValues: variables });
      if (result.errors) throw new Error(result.errors.map((e) => e.message).join('; '));
      return result.data as Record<string, { status: number; errors: unknown; data: Record<string, unknown> | null }>;
    };
    const CREATE = `mutation ($input: CreateEditionInput!) { createEdition(input: $input) { status errors { fieldName message } data { id title publishedOn stock status } } }`;
    const UPDATE = `mutation ($id: ID!, $input: UpdateEditionInput!) { updateEdition(id: $id, input: $input) { status errors { fieldName message } data { status stock } } }`;

    it('the SDL: the Date scalar, the defaults shown in the create input (enum values in upper case)', () => {
      const sdl = printSchema(schema);
      expect(sdl).to.include('scalar Date');
      expect(sdl).to.match(
        /input CreateEditionInput \{[^}]*publishedOn: Date\n[^}]*stock: Int! = 0\n[^}]*status: EditionStatus! = DRAFT\n/,
      );
      expect(sdl).to.match(/type Edition \{[^}]*publishedOn: Date\n/);
    });

    it('a create that leaves the defaulted fields out stores their defaults; a date is answered as written', async () => {
      const created = (await run(CREATE, { input: { title: 'A', publishedOn: '2026-05-06' } })).createEdition!;
      expect(created).to.deep.include({ status: 201, errors: null });
      expect(created.data).to.deep.include({ publishedOn: '2026-05-06', stock: 0, status: 'DRAFT' });
    });

    it('a bad date is a 422 naming the field; the read-only field set to another value is a 422 "is read-only", sent back it is accepted', async () => {
      const bad = (await run(CREATE, { input: { title: 'A', publishedOn: '2026-02-30' } })).createEdition!;
      expect(bad).to.deep.include({
        status: 422,
        errors: [{ fieldName: 'publishedOn', message: 'must be a date (YYYY-MM-DD)' }],
      });
      const refused = (await run(CREATE, { input: { title: 'A', status: 'PAID' } })).createEdition!;
      expect(refused).to.deep.include({ status: 422, errors: [{ fieldName: 'status', message: 'is read-only' }] });
      const made = (await run(CREATE, { input: { title: 'A', status: 'DRAFT' } })).createEdition!.data!;
      const changed = (await run(UPDATE, { id: made.id, input: { status: 'SENT' } })).updateEdition!;
      expect(changed).to.deep.include({ status: 422, errors: [{ fieldName: 'status', message: 'is read-only' }] });
      const kept = (await run(UPDATE, { id: made.id, input: { status: 'DRAFT', stock: 4 } })).updateEdition!;
      expect(kept).to.deep.include({ status: 200, errors: null, data: { status: 'DRAFT', stock: 4 } });
    });
  });

  describe('the memory repository', () => {
    it('sorts by a date chronologically, nulls last both ways', async () => {
      const rows = memoryRepositoryOf<Edition, ReturnType<Edition['toProps']>>(Edition as never);
      const days = ['2026-10-01', null, '2026-02-03', '2025-12-31'];
      for (const [n, day] of days.entries())
        await rows.add(Edition.create({ id: id(n + 1), title: `E${n}`, publishedOn: day }, T0));
      const sorted = async (order: 'asc' | 'desc') =>
        (await rows.list({ page: 1, perPage: 10, sort: 'published_on' as never, order })).items.map(
          (e) => e.publishedOn,
        );
      expect(await sorted('asc')).to.deep.equal(['2025-12-31', '2026-02-03', '2026-10-01', null]);
      expect(await sorted('desc')).to.deep.equal(['2026-10-01', '2026-02-03', '2025-12-31', null]);
    });
  });

  for (const [engine, url] of [
    ['SQLite', (): string | undefined => 'sqlite::memory:'],
    ['PostgreSQL', (): string | undefined => externalService('SVC_TEST_POSTGRES_URL')],
  ] as const) {
    describe(`the table on ${engine}`, function () {
      this.timeout(30_000);
      let database: Database;
      const knex = () => (database.orm.em.getConnection() as AbstractSqlConnection).getKnex();
      const exec = async (statements: readonly string[]) => {
        for (const statement of statements) await knex().raw(statement);
      };
      before(async function () {
        const found = url();
        if (found === undefined) {
          console.log('      (skipped: needs SVC_TEST_POSTGRES_URL)');
          this.skip();
        }
        database = await connectDatabase(found);
      });
      beforeEach(async () => {
        await knex().raw('drop table if exists test_editions');
        await exec(createResourceTable(knex(), tableSpecOf(EDITION)));
      });
      after(async () => {
        if (!database) return;
        await knex().raw('drop table if exists test_editions');
        await database.close();
      });
      const repository = () => new SqlResourceRepository(database, tableOf(Edition));

      it('reads a date back as the same text, whatever the time zone, and sorts by it chronologically, nulls last', async () => {
        const rows = repository();
        const days = ['2026-10-01', null, '2026-02-03', '0999-12-31', '2026-02-28'];
        for (const [n, day] of days.entries())
          await rows.add(Edition.create({ id: id(n + 1), title: `E${n}`, publishedOn: day }, T0));
        expect((await rows.findById(id(1)))?.publishedOn).to.equal('2026-10-01');
        const sorted = async (order: 'asc' | 'desc') =>
          (await rows.list({ page: 1, perPage: 10, sort: 'published_on', order })).items.map((e) => e.publishedOn);
        expect(await sorted('asc')).to.deep.equal(['0999-12-31', '2026-02-03', '2026-02-28', '2026-10-01', null]);
        expect(await sorted('desc')).to.deep.equal(['2026-10-01', '2026-02-28', '2026-02-03', '0999-12-31', null]);
        const updated = await rows.update(id(2), (e) => e.update({ publishedOn: '2024-02-29' }, T0));
        expect(updated?.publishedOn).to.equal('2024-02-29');
        expect((await rows.findByIds([id(2)]))[0]?.publishedOn).to.equal('2024-02-29');
      });

      it('the columns carry the defaults: a row inserted without them gets them', async () => {
        await knex().raw(
          `insert into test_editions (id, title, version, created_at, updated_at) values (?, 'raw', 1, ?, ?)`,
          [id(9), T0.toISOString(), T0.toISOString()],
        );
        const row = await repository().findById(id(9));
        expect(row?.toProps()).to.deep.include({ stock: 0, status: 'draft', publishedOn: null });
      });

      it('adding a required field with a default backfills the rows stored before, and keeps the column default', async () => {
        const PLAIN = declareResource({
          name: 'edition',
          plural: 'test_editions',
          fields: { title: field.string(1, 80) },
        });
        await knex().raw('drop table test_editions');
        await exec(createResourceTable(knex(), tableSpecOf(PLAIN)));
        await knex().raw(
          `insert into test_editions (id, title, version, created_at, updated_at) values (?, 'old', 1, ?, ?)`,
          [id(7), T0.toISOString(), T0.toISOString()],
        );
        const change = changeResourceTable(knex(), { before: tableSpecOf(PLAIN), after: tableSpecOf(EDITION) });
        await exec(change.statements);
        const old = await repository().findById(id(7));
        expect(old?.toProps()).to.deep.include({ title: 'old', stock: 0, status: 'draft', publishedOn: null });
        await knex().raw(
          `insert into test_editions (id, title, version, created_at, updated_at) values (?, 'raw', 1, ?, ?)`,
          [id(8), T0.toISOString(), T0.toISOString()],
        );
        expect((await repository().findById(id(8)))?.toProps()).to.deep.include({ stock: 0, status: 'draft' });
      });

      it('a changed default changes the column default, the rows kept', async () => {
        const LATER = declareResource({
          name: 'edition',
          plural: 'test_editions',
          fields: { ...EDITION.fields, stock: field.integer(0).default(5) },
        });
        await repository().add(Edition.create({ id: id(3), title: 'kept', stock: 2 }, T0));
        const change = changeResourceTable(knex(), { before: tableSpecOf(EDITION), after: tableSpecOf(LATER) });
        expect(change.rebuild).to.equal(engine === 'SQLite');
        await exec(change.statements);
        expect((await repository().findById(id(3)))?.toProps()).to.deep.include({ title: 'kept', stock: 2 });
        await knex().raw(
          `insert into test_editions (id, title, version, created_at, updated_at) values (?, 'raw', 1, ?, ?)`,
          [id(4), T0.toISOString(), T0.toISOString()],
        );
        expect((await repository().findById(id(4)))?.stock).to.equal(5);
      });
    });
  }
});
