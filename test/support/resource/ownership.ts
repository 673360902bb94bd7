import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { expect } from 'chai';
import { graphql } from 'graphql';
import pino from 'pino';
import { resourceGraphQL } from '../../../src/adapters/inbound/graphql/resourceGraphQL.js';
import type { GraphQLContext } from '../../../src/adapters/inbound/graphql/resolverKit.js';
import { createSchema } from '../../../src/adapters/inbound/graphql/schema.js';
import { resourceRoutes } from '../../../src/adapters/inbound/http/resourceRoutes.js';
import { inboundOf, namesOf, pathsOf, relationsOf } from '../../../src/adapters/inbound/resources.js';
import { CasbinAccessPolicy } from '../../../src/adapters/outbound/access/CasbinAccessPolicy.js';
import { parsePolicyCsv } from '../../../src/adapters/outbound/access/PolicyRuleStore.js';
import { InMemoryPolicyRuleStore } from '../../../src/adapters/outbound/memory/InMemoryPolicyRuleStore.js';
import { memoryRepositoryOf } from '../../../src/adapters/outbound/memory/InMemoryResourceRepository.js';
import type { Database } from '../../../src/adapters/outbound/mikroorm/database.js';
import { createResourceTable, tableOf } from '../../../src/adapters/outbound/mikroorm/resourceTable.js';
import { SqlResourceRepository } from '../../../src/adapters/outbound/mikroorm/SqlResourceRepository.js';
import { resourceUseCases } from '../../../src/application/resources/resourceUseCases.js';
import { FileLinks } from '../../../src/application/files/FileLinks.js';
import { snakeCase } from '../../../src/domain/shared/resource.js';
import { SqlDatabaseFixture, sqlTargets } from '../../adapters/outbound/contracts/databases.js';
import { deleteUserIn, registerUserIn } from '../../adapters/outbound/sqlUsers.js';
import { Api, dataOf, expectError, type ApiResponse } from '../api.js';
import { FixedClock } from '../FixedClock.js';
import { MemoryFileStorage } from '../MemoryFileStorage.js';
import { startHttpApp, type RunningApp } from '../httpApp.js';
import { SequentialIds } from '../SequentialIds.js';
import { MODULES } from '../../../src/main/modules/index.js';
import { clientSamples, declaredEntity, fieldsOf, type DeclaredEntity } from './declared.js';
import { variantOf } from './variants.js';
import { clearResourceTables } from './repository.js';

const MODEL = readFileSync(new URL('../../../policy/model.conf', import.meta.url), 'utf8');

/** The callers: two users, a moderator and an admin; each one's token is its name. */
const CALLERS = {
  alice: { userId: 'a11ce000-0000-4000-8000-000000000001', role: 'user' },
  bob: { userId: 'b0b00000-0000-4000-8000-000000000002', role: 'user' },
  moderator: { userId: '0d000000-0000-4000-8000-000000000003', role: 'moderator' },
  admin: { userId: 'ad000000-0000-4000-8000-000000000004', role: 'admin' },
} as const;
type Caller = keyof typeof CALLERS;

type Row = Record<string, unknown> & { id: string; owner_id: string };

/** The resources `Entity`'s references name, and theirs, parents first; `given` by plural, else from the module list. */
function chainOf(Entity: DeclaredEntity, given: Readonly<Record<string, DeclaredEntity>>): DeclaredEntity[] {
  const chain: DeclaredEntity[] = [];
  const visit = (entity: DeclaredEntity) => {
    for (const [, f] of fieldsOf(entity)) {
      if (f.type !== 'ref' || !f.references) continue;
      const parent = given[f.references.plural] ?? declaredEntity(f.references.plural);
      if (!chain.includes(parent)) visit(parent);
    }
    if (!chain.includes(entity)) chain.push(entity);
  };
  visit(Entity);
  return chain;
}

/** The rules the generator writes for these resources: an owned one's `user` rules reach only the caller's rows. */
function policyCsv(chain: readonly DeclaredEntity[]): string {
  const lines = ['p, admin, /api/v1/*, .*'];
  for (const entity of chain) {
    const { declaration } = entity;
    const paths = pathsOf(declaration).policy;
    const scope = declaration.owned ? ', own' : '';
    lines.push(
      `p, user, ${paths.collection}, ${declaration.owned ? 'GET|POST' : 'GET'}${scope}`,
      `p, user, ${paths.item}, ${declaration.owned ? 'GET|PUT|DELETE' : 'GET'}${scope}`,
      `p, moderator, ${paths.collection}, .*`,
      `p, moderator, ${paths.item}, .*`,
    );
    for (const relation of relationsOf(declaration).filter((r) => r.reverse))
      lines.push(`p, user, ${relation.policyPath}, GET${scope}`, `p, moderator, ${relation.policyPath}, .*`);
  }
  return [...lines, 'g, admin, moderator', 'g, moderator, user'].join('\n');
}

type Rows = Parameters<typeof resourceUseCases>[0]['rows'];

/** Where the suite keeps rows: memory, or a migrated SQL database with the resources' tables. */
interface Storage {
  readonly name: string;
  open(): Promise<string | undefined>;
  rows(entity: DeclaredEntity): Rows;
  /** Deletes the caller's users row (SQL: one made for the purpose). */
  deleteUser?(userId: string): Promise<void>;
  registerUser?(userId: string): Promise<void>;
  close(): Promise<void>;
}

function memoryStorage(chain: readonly DeclaredEntity[]): Storage {
  const repositories: Record<string, Rows> = {};
  return {
    name: 'memory',
    open: async () => {
      for (const entity of chain)
        repositories[entity.declaration.plural] = memoryRepositoryOf(entity as never, repositories as never) as Rows;
      return undefined;
    },
    rows: (entity) => repositories[entity.declaration.plural]!,
    close: async () => undefined,
  };
}

/** The tables the migrations make are used as they are; a resource of the tests alone gets its table here. */
function sqlStorage(chain: readonly DeclaredEntity[], target: ReturnType<typeof sqlTargets>[number]): Storage {
  const fixture = new SqlDatabaseFixture(target);
  const served = (entity: DeclaredEntity) => MODULES.some((m) => m.resource === entity);
  const db = (): Database => fixture.db;
  return {
    name: target.name,
    open: async () => {
      const skipped = await fixture.open();
      if (skipped) return skipped;
      const knex = (db().orm.em.getConnection() as AbstractSqlConnection).getKnex();
      for (const entity of [...chain].reverse())
        if (!served(entity)) await knex.schema.dropTableIfExists(entity.declaration.plural);
      for (const entity of chain) {
        if (served(entity)) continue;
        for (const statement of createResourceTable(knex, tableOf(entity as never))) await knex.raw(statement);
      }
      await clearResourceTables(db().orm);
      return undefined;
    },
    rows: (entity) => new SqlResourceRepository(db(), tableOf(entity as never)) as unknown as Rows,
    registerUser: (userId) => registerUserIn(db(), userId),
    deleteUser: (userId) => deleteUserIn(db(), userId),
    close: () => fixture.close(),
  };
}

/** The resources served over one storage: REST on a real HTTP app, GraphQL by its schema, one access policy. */
interface World {
  readonly api: Api;
  readonly collection: string;
  gql(caller: Caller, source: string, variables?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Makes a row of `entity` as `caller` (REST), its references naming rows made first; answers it. */
  create(caller: Caller, overrides?: Record<string, unknown>): Promise<Row>;
  /** The parent row every order of the suite names (the nested list's). */
  parentId?: string;
  close(): Promise<void>;
}

async function startWorld(Entity: DeclaredEntity, chain: readonly DeclaredEntity[], storage: Storage): Promise<World> {
  const policy = await CasbinAccessPolicy.create(
    MODEL,
    new InMemoryPolicyRuleStore(),
    parsePolicyCsv(policyCsv(chain)),
  );
  const authenticate = {
    execute: async ({ accessToken }: { accessToken: string }) => {
      const caller = CALLERS[accessToken as Caller];
      return { ...caller, sessionId: 's' };
    },
  };
  const ids = new SequentialIds('0000cafe');
  const clock = new FixedClock();
  // Links for any resource of the chain with a file field (a parent's answer in a nested list carries them).
  const links = new FileLinks(new MemoryFileStorage(), 900);
  const useCases = new Map(
    chain.map((entity) => [
      entity,
      {
        authenticate,
        policy,
        links,
        ...resourceUseCases({ entity: entity as never, rows: storage.rows(entity), ids, clock }),
      },
    ]),
  );
  const parentsOf = (entity: DeclaredEntity) =>
    Object.fromEntries(
      relationsOf(entity.declaration).map((relation) => {
        const parent = chain.find((p) => p.declaration.plural === relation.parent.plural)!;
        return [relation.key, { resource: inboundOf(parent as never), useCases: useCases.get(parent) }];
      }),
    );
  const app: RunningApp = await startHttpApp({
    routes: chain.map((entity) =>
      resourceRoutes(inboundOf(entity as never), useCases.get(entity) as never, parentsOf(entity) as never),
    ),
  });
  const schema = createSchema(
    chain.map((entity) =>
      resourceGraphQL(inboundOf(entity as never), useCases.get(entity) as never, parentsOf(entity) as never),
    ),
  );
  const api = new Api(app.url);
  let made = 0;
  /** A field's value in a new row: its sample (a read-only one as a create stores it, a unique one a value of its own), or a new referenced row. */
  const valueOf = async (key: string, f: ReturnType<typeof fieldsOf>[number][1]): Promise<unknown> => {
    if (f.type !== 'ref' || !f.references) {
      const samples = clientSamples(f).rest;
      return f.isUnique ? variantOf({ kind: f.type, samples }, (made += 1)) : samples[0];
    }
    const parent = chain.find((p) => p.declaration.plural === f.references!.plural)!;
    return (await makeRow(parent, 'admin')).id;
  };
  const makeRow = async (entity: DeclaredEntity, caller: Caller, overrides: Record<string, unknown> = {}) => {
    const body: Record<string, unknown> = {};
    // A file field is never in a body (only an upload sets it).
    for (const [key, f] of fieldsOf(entity)) if (f.type !== 'file') body[snakeCase(key)] = await valueOf(key, f);
    const json = { ...body, ...overrides };
    const path = pathsOf(entity.declaration).collection;
    return dataOf<Row>(await api.post(path, { token: caller, json }), 201);
  };
  const reverse = relationsOf(Entity.declaration).find((r) => r.reverse);
  let parentId: string | undefined;
  if (reverse) {
    const parent = chain.find((p) => p.declaration.plural === reverse.parent.plural)!;
    parentId = (await makeRow(parent, 'admin')).id;
  }
  return {
    api,
    collection: pathsOf(Entity.declaration).collection,
    ...(parentId ? { parentId } : {}),
    gql: async (caller, source, variables) => {
      const context: GraphQLContext = {
        bearer: caller,
        bearerProblem: undefined,
        log: pino({ level: 'silent' }),
        access: { authenticate: authenticate as never, policy },
      };
      const result = await graphql({ schema, source, contextValue: context, variableValues: variables ?? {} });
      if (result.errors) throw new Error(result.errors.map((e) => e.message).join('; '));
      return result.data as Record<string, unknown>;
    },
    create: (caller, overrides = {}) =>
      makeRow(Entity, caller, { ...(reverse && parentId ? { [reverse.field]: parentId } : {}), ...overrides }),
    close: () => app.close(),
  };
}

const idsOf = (response: ApiResponse): string[] =>
  dataOf<Row[]>(response)
    .map((row) => row.id)
    .sort();
const totalOf = (response: ApiResponse): number => (response.body as { meta: { total: number } }).meta.total;

/**
 * An owned resource's rows belong to the user who created them (docs/resources.md): under the `own`
 * rules the generator gives `user`, each user's lists, searches, nested lists and GraphQL lists
 * hold (and count) only their rows, another's id is not found, and the owner is the server's to
 * set; `moderator` and `admin` (rules of scope `all`) see every row. On memory, SQLite and
 * PostgreSQL. `parents` names resources the module list does not serve (a resource of the tests).
 */
export function describeResourceOwnership(
  Entity: DeclaredEntity,
  parents: Readonly<Record<string, DeclaredEntity>> = {},
): void {
  const { plural } = Entity.declaration;
  const chain = chainOf(Entity, parents);
  const names = namesOf(Entity.declaration);
  const search = Entity.declaration.search;
  const reverse = relationsOf(Entity.declaration).find((r) => r.reverse);
  const dir = mkdtempSync(join(tmpdir(), `portico-owned-${plural}-`));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const storages = [
    memoryStorage(chain),
    ...sqlTargets(dir, `${plural}.sqlite`)
      .filter((target) => target.name !== 'SQLite file')
      .map((target) => sqlStorage(chain, target)),
  ];

  for (const storage of storages) {
    describe(`${plural}: each user's own rows (${storage.name})`, () => {
      let world: World;
      let alice: Row[];
      let bob: Row[];
      before(async function () {
        this.timeout(60_000);
        const skipped = await storage.open();
        if (skipped) {
          console.log(`      (skipped: ${skipped})`);
          this.skip();
        }
        world = await startWorld(Entity, chain, storage);
        alice = [await world.create('alice'), await world.create('alice')];
        bob = [await world.create('bob'), await world.create('bob'), await world.create('bob')];
      });
      after(async () => {
        await world?.close();
        await storage.close();
      });
      const all = () => [...alice, ...bob].map((row) => row.id).sort();
      const ids = (rows: Row[]) => rows.map((row) => row.id).sort();

      it('a create is owned by its caller, answered as owner_id', () => {
        for (const row of alice) expect(row.owner_id).to.equal(CALLERS.alice.userId);
        for (const row of bob) expect(row.owner_id).to.equal(CALLERS.bob.userId);
      });

      it('lists hold only the caller’s rows and count only them; moderator and admin see every row', async () => {
        const list = (caller: Caller) => world.api.get(`${world.collection}?per_page=100`, { token: caller });
        for (const [caller, mine] of [
          ['alice', alice],
          ['bob', bob],
        ] as const) {
          const response = await list(caller);
          expect(idsOf(response)).to.deep.equal(ids(mine));
          expect(totalOf(response)).to.equal(mine.length);
        }
        // A page smaller than the rows: the total still counts only the caller's.
        const paged = await world.api.get(`${world.collection}?per_page=1&page=2`, { token: 'bob' });
        expect(dataOf<Row[]>(paged)).to.have.length(1);
        expect(totalOf(paged)).to.equal(3);
        for (const caller of ['moderator', 'admin'] as const) {
          const response = await list(caller);
          expect(idsOf(response)).to.include.members(all());
          expect(totalOf(response)).to.equal(all().length);
        }
      });

      if (search)
        it('a search finds only the caller’s rows', async () => {
          const needle = String(alice[0]![snakeCase(search)]).slice(0, 3);
          const found = await world.api.get(`${world.collection}/search?q=${encodeURIComponent(needle)}`, {
            token: 'alice',
          });
          expect(idsOf(found)).to.deep.equal(ids(alice));
          expect(totalOf(found)).to.equal(alice.length);
          const everyone = await world.api.get(`${world.collection}/search?q=${encodeURIComponent(needle)}`, {
            token: 'moderator',
          });
          expect(totalOf(everyone)).to.equal(all().length);
        });

      if (reverse)
        it('the nested list under a referenced row holds only the caller’s rows', async () => {
          const path = `${pathsOf({ plural: reverse.parent.plural }).collection}/${world.parentId}/${world.collection.split('/').pop()}`;
          const mine = await world.api.get(path, { token: 'bob' });
          expect(idsOf(mine)).to.deep.equal(ids(bob));
          expect(totalOf(mine)).to.equal(bob.length);
          expect(totalOf(await world.api.get(path, { token: 'moderator' }))).to.equal(all().length);
        });

      it('another owner’s id is 404 NOT_FOUND on GET, PUT and DELETE, as an unknown id, and the row stays', async () => {
        const theirs = bob[0]!;
        const path = `${world.collection}/${theirs.id}`;
        const unknown = `${world.collection}/00000000-0000-4000-8000-0000000000ff`;
        for (const target of [path, unknown]) {
          const notFound = (response: ApiResponse) => {
            expect(response.status, response.text).to.equal(404);
            expect((response.body as { error: { code: string } }).error.code).to.equal('NOT_FOUND');
            return (response.body as { error: { message: string } }).error.message;
          };
          const answers = [
            notFound(await world.api.get(target, { token: 'alice' })),
            notFound(await world.api.put(target, { token: 'alice', json: {} })),
            notFound(await world.api.delete(target, { token: 'alice' })),
          ];
          expect(new Set(answers).size).to.equal(1);
        }
        // The same body for another's row and an unknown one (no existence leak).
        const theirsBody = (await world.api.get(path, { token: 'alice' })).body as { error: Record<string, unknown> };
        const unknownBody = (await world.api.get(unknown, { token: 'alice' })).body as {
          error: Record<string, unknown>;
        };
        expect(theirsBody.error.message).to.equal(unknownBody.error.message);
        expect(dataOf<Row>(await world.api.get(path, { token: 'bob' })).id).to.equal(theirs.id);
        expect(dataOf<Row>(await world.api.get(path, { token: 'moderator' })).owner_id).to.equal(CALLERS.bob.userId);
      });

      it('the owner reads, updates and deletes their own row', async () => {
        const row = await world.create('alice');
        const path = `${world.collection}/${row.id}`;
        expect(dataOf<Row>(await world.api.get(path, { token: 'alice' })).id).to.equal(row.id);
        expect((await world.api.put(path, { token: 'alice', json: {} })).status).to.equal(200);
        expect((await world.api.delete(path, { token: 'alice' })).status).to.equal(204);
      });

      it('a body’s owner_id is refused as read-only unless it is the owner; the owner never changes', async () => {
        const refused = (response: ApiResponse) =>
          expectError(response, 400, 'VALIDATION_ERROR', 'validation failed', {
            fields: [{ field: 'owner_id', message: 'is read-only' }],
          });
        refused(
          await world.api.post(world.collection, {
            token: 'alice',
            json: { ...bodyOf(alice[0]!), owner_id: CALLERS.bob.userId },
          }),
        );
        refused(
          await world.api.post(world.collection, {
            token: 'moderator',
            json: { ...bodyOf(alice[0]!), owner_id: 42 },
          }),
        );
        const same = await world.api.post(world.collection, {
          token: 'alice',
          json: { ...bodyOf(alice[0]!), owner_id: CALLERS.alice.userId },
        });
        expect(dataOf<Row>(same, 201).owner_id).to.equal(CALLERS.alice.userId);
        const path = `${world.collection}/${alice[0]!.id}`;
        refused(await world.api.put(path, { token: 'alice', json: { owner_id: CALLERS.bob.userId } }));
        refused(await world.api.put(path, { token: 'moderator', json: { owner_id: CALLERS.moderator.userId } }));
        const kept = await world.api.put(path, { token: 'moderator', json: { owner_id: CALLERS.alice.userId } });
        expect(dataOf<Row>(kept).owner_id).to.equal(CALLERS.alice.userId);
        // A moderator's create is the moderator's.
        const theirs = await world.create('moderator');
        expect(theirs.owner_id).to.equal(CALLERS.moderator.userId);
        await world.api.delete(`${world.collection}/${theirs.id}`, { token: 'moderator' });
        await world.api.delete(`${world.collection}/${dataOf<Row>(same, 201).id}`, { token: 'alice' });
      });

      it('GraphQL: the list and its total hold only the caller’s rows; ownerId is answered; another’s id is null', async () => {
        const query = `query { ${names.camel.plural}(pagination: { page: 1, limit: 100 }) { data { id ownerId } pagination { totalRecords } } }`;
        const listOf = async (caller: Caller) =>
          (await world.gql(caller, query))[names.camel.plural] as {
            data: { id: string; ownerId: string }[];
            pagination: { totalRecords: number };
          };
        const mine = await listOf('alice');
        expect(mine.data.map((row) => row.id).sort()).to.deep.equal(ids(alice));
        expect(mine.data.every((row) => row.ownerId === CALLERS.alice.userId)).to.equal(true);
        expect(mine.pagination.totalRecords).to.equal(alice.length);
        expect((await listOf('moderator')).pagination.totalRecords).to.equal(all().length);
        await expectGraphQLNotFound(world, names.camel.singular, bob[0]!.id);
      });

      if (reverse)
        it('GraphQL: the relation list of a referenced row holds only the caller’s rows (batched)', async () => {
          const parentNames = namesOf(reverse.parent);
          const query = `query { ${parentNames.camel.plural}(pagination: { page: 1, limit: 100 }) { data { id ${names.camel.plural}(pagination: { page: 1, limit: 100 }) { data { id } pagination { totalRecords } } } } }`;
          const parentsOf = async (caller: Caller) =>
            (
              (await world.gql(caller, query))[parentNames.camel.plural] as {
                data: { id: string; [k: string]: unknown }[];
              }
            ).data;
          const parent = (await parentsOf('bob')).find((row) => row.id === world.parentId)!;
          const orders = parent[names.camel.plural] as { data: { id: string }[]; pagination: { totalRecords: number } };
          expect(orders.data.map((row) => row.id).sort()).to.deep.equal(ids(bob));
          expect(orders.pagination.totalRecords).to.equal(bob.length);
          const seen = (await parentsOf('admin')).find((row) => row.id === world.parentId)!;
          expect(
            (seen[names.camel.plural] as { pagination: { totalRecords: number } }).pagination.totalRecords,
          ).to.equal(all().length);
        });

      if (storage.deleteUser)
        it('a user’s deletion keeps their rows, owner kept, seen by rules of scope all', async () => {
          const carol = CALLERS.alice.userId;
          await storage.registerUser!(carol);
          await storage.deleteUser!(carol);
          const response = await world.api.get(`${world.collection}?per_page=100`, { token: 'moderator' });
          const rows = dataOf<Row[]>(response).filter((row) => row.owner_id === carol);
          expect(rows.map((row) => row.id).sort()).to.include.members(ids(alice));
        });
    });
  }
}

/** A create body with the values of `row` (its fields as REST answered them). */
function bodyOf(row: Row): Record<string, unknown> {
  const { id: _id, owner_id: _owner, created_at: _c, updated_at: _u, ...fields } = row;
  return fields;
}

async function expectGraphQLNotFound(world: World, field: string, id: string): Promise<void> {
  let failure: Error | undefined;
  try {
    await world.gql('alice', `query { ${field}(id: "${id}") { id } }`);
  } catch (error) {
    failure = error as Error;
  }
  expect(failure?.message).to.match(/not found/i);
}
