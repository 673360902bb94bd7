import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InMemoryResourceRepository } from '../../../src/adapters/outbound/memory/InMemoryResourceRepository.js';
import { memoryRepositoryOf } from '../../../src/adapters/outbound/memory/InMemoryResourceRepository.js';
import type { Database } from '../../../src/adapters/outbound/mikroorm/database.js';
import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { createResourceTable, tableOf } from '../../../src/adapters/outbound/mikroorm/resourceTable.js';
import { MODULES } from '../../../src/main/modules/index.js';
import { SqlResourceRepository } from '../../../src/adapters/outbound/mikroorm/SqlResourceRepository.js';
import type { Clock } from '../../../src/application/ports/Clock.js';
import type { IdGenerator } from '../../../src/application/ports/IdGenerator.js';
import { resourceUseCases } from '../../../src/application/resources/resourceUseCases.js';
import { snakeCase, type FieldDeclaration } from '../../../src/domain/shared/resource.js';
import type { ResourceRepository } from '../../../src/domain/shared/ResourceRepository.js';
import { SqlDatabaseFixture, sqlTargets } from '../../adapters/outbound/contracts/databases.js';
import {
  resourceRepositoryContract,
  type ResourceDescriptor,
  type ResourceStorage,
} from '../../adapters/outbound/contracts/resourceRepository.contract.js';
import {
  declaredEntity,
  domainValue,
  entityUnderTest,
  fieldsOf,
  resourceUnderTest,
  sampleFile,
  samplesOf,
  type DeclaredEntity,
} from './declared.js';
import { describeCommandRoutes, describeCommandRules } from './commands.js';
import { describeResourceGraphQL } from './graphql.js';
import { describeResourceOwnership } from './ownership.js';
import { describeResourceRbac } from './rbac.js';
import { clearResourceTables, insertRows, REFERENCED_ID } from './repository.js';
import { describeResourceRest } from './rest.js';
import {
  describeUniqueHttp,
  describeUniqueRepository,
  distinctInputOf,
  uniqueFieldsOf,
  variantOf,
  type UniqueEngine,
} from './unique.js';
import { describeResourceEntity, describeResourceUseCases, type EntityLike, type UseCasesOf } from './useCases.js';

type Entity = EntityLike & { update(changes: object, now: Date): Entity; requireVersion(v?: readonly number[]): void };
type Rows = ResourceRepository<Entity>;
type MemoryRows = InMemoryResourceRepository<unknown, { id: string; version: number }, string>;
const T0 = new Date('2026-01-02T03:04:05.678Z');
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);

const refsOf = (Entity: DeclaredEntity): [string, FieldDeclaration][] =>
  fieldsOf(Entity).filter(([, field]) => field.type === 'ref' && field.references);

let rowsMade = 200;
/** A row of `Entity` with this id, its references naming REFERENCED_ID, its unique values its own. */
const rowOf = (Entity: DeclaredEntity, id: string): Entity =>
  Entity.create({ ...distinctInputOf(Entity, (rowsMade += 1)), id } as never, T0) as unknown as Entity;

/**
 * A fresh memory repository of `Entity`, beside those of the resources its references name (and
 * theirs), each holding the row REFERENCED_ID its children's samples name.
 */
export async function freshMemoryRows(
  Entity: DeclaredEntity,
): Promise<{ rows: MemoryRows; parents: Record<string, MemoryRows> }> {
  const parents: Record<string, MemoryRows> = {};
  for (const [, field] of refsOf(Entity)) {
    const plural = field.references!.plural;
    if (parents[plural]) continue;
    const Parent = declaredEntity(plural);
    const { rows } = await freshMemoryRows(Parent);
    await rows.add(rowOf(Parent, REFERENCED_ID));
    parents[plural] = rows;
  }
  return { rows: memoryRepositoryOf(Entity as never, parents as never) as MemoryRows, parents };
}

/** Adds a row of `Entity` with this id on SQL, first the rows its references name (REFERENCED_ID), if missing. */
async function addSqlRow(database: Database, Entity: DeclaredEntity, id: string): Promise<void> {
  for (const [, field] of refsOf(Entity)) {
    const Parent = declaredEntity(field.references!.plural);
    if (!(await sqlRows(database, Parent).findById(REFERENCED_ID))) await addSqlRow(database, Parent, REFERENCED_ID);
  }
  await sqlRows(database, Entity).add(rowOf(Entity, id));
}

const sqlRows = (database: Database, Entity: DeclaredEntity): Rows =>
  new SqlResourceRepository(database, tableOf(Entity as never)) as unknown as Rows;

/** Distinct ascending values of a unique field, one for each row of the contract's catalogues (up to 3,000). */
const ascendingVariants = (field: FieldDeclaration): (string | number)[] =>
  Array.from({ length: 3000 }, (_, n) =>
    domainValue(field, variantOf({ kind: field.type, samples: samplesOf(field).rest }, n)),
  )
    .map((value) => value as string | number)
    .sort((a, b) => (typeof a === 'number' && typeof b === 'number' ? a - b : a < b ? -1 : a > b ? 1 : 0));

/** How the repository contract builds and reads rows of `Entity`. */
function descriptorOf(Entity: DeclaredEntity): ResourceDescriptor<Entity, string> {
  const fields = fieldsOf(Entity);
  const changed = fields.find(
    ([, f]) => ['integer', 'number', 'string', 'text'].includes(f.type) && !f.isReadonly && !f.isUnique,
  );
  const reference = refsOf(Entity)[0];
  const unique = new Set(uniqueFieldsOf(Entity).map(([key]) => key));
  const files = fields.filter(([, f]) => f.type === 'file');
  // Each row made holds unique values of its own, far from those the catalogue sorts by.
  let made = 100;
  return {
    make: (id, values = {}) =>
      Entity.restore({
        ...distinctInputOf(Entity, (made += 1)),
        // Each file field holds a stored file (a create never sets one: an upload does).
        ...Object.fromEntries(files.map(([key, field]) => [key, sampleFile(field, made)])),
        id,
        version: 1,
        createdAt: T0,
        updatedAt: T0,
        ...values,
      } as never) as Entity,
    propsOf: (entity) => entity.toProps() as Record<string, unknown>,
    change: (entity, n, now) => {
      if (!changed) return entity.update({}, now);
      const [key, field] = changed;
      const first = samplesOf(field).ascending[0] as number;
      const value =
        field.type === 'string' || field.type === 'text' ? `v${n}`.slice(0, field.maxLength ?? 200) : first + (n % 2);
      return entity.update({ [key]: value }, now);
    },
    sortable: [
      ...fields
        .filter(([, f]) => f.sortable)
        .map(([key, f]) => ({
          field: snakeCase(key),
          prop: key,
          optional: f.nullable,
          ...(unique.has(key) ? { values: ascendingVariants(f), unique: true } : { values: samplesOf(f).ascending }),
        })),
      { field: 'created_at', prop: 'createdAt', optional: false, values: [at(0), at(1), at(2)] },
      { field: 'updated_at', prop: 'updatedAt', optional: false, values: [at(3), at(4)] },
    ],
    ...(Entity.declaration.search ? { search: Entity.declaration.search } : {}),
    ...(reference
      ? {
          reference: {
            prop: reference[0],
            field: snakeCase(reference[0]),
            target: reference[1].references!.singular.replace(/_/g, ' '),
          },
        }
      : {}),
  };
}

/** Whether the service serves `Entity` (its migrations make its table). */
const served = (Entity: DeclaredEntity): boolean => MODULES.some((m) => m.resource === Entity);

/** The table of a resource of the tests alone (no migration makes it), made afresh. */
async function createTestTable(database: Database, Entity: DeclaredEntity): Promise<void> {
  const knex = (database.orm.em.getConnection() as AbstractSqlConnection).getKnex();
  await knex.schema.dropTableIfExists(Entity.declaration.plural);
  for (const statement of createResourceTable(knex, tableOf(Entity as never))) await knex.raw(statement);
}

/** The repository contract over `Entity`'s rows: in memory, on SQLite (memory and file) and on PostgreSQL. */
function describeResourceRepository(Entity: DeclaredEntity): void {
  const { plural } = Entity.declaration;
  const descriptor = descriptorOf(Entity);
  const parentOf = refsOf(Entity)[0]?.[1].references?.plural;
  describe(`${plural} repositories (shared cores)`, () => {
    const dir = mkdtempSync(join(tmpdir(), `portico-${plural}-`));
    after(() => rmSync(dir, { recursive: true, force: true }));

    resourceRepositoryContract(`${plural} in memory`, descriptor, {
      setUp: async () => undefined,
      fresh: async (): Promise<ResourceStorage<Entity, string>> => {
        const { rows, parents } = await freshMemoryRows(Entity);
        const repository = rows as unknown as Rows;
        const parent = parentOf ? parents[parentOf]! : undefined;
        return {
          repository,
          ...(parent && parentOf
            ? {
                referenced: {
                  add: async (id: string) => parent.add(rowOf(declaredEntity(parentOf), id)),
                  delete: (id: string) => parent.delete(id),
                },
              }
            : {}),
          addMany: async (entities) => void (await Promise.all(entities.map((row) => repository.add(row)))),
        };
      },
      tearDown: async () => undefined,
    });

    for (const target of sqlTargets(dir, `${plural}.sqlite`)) {
      const database = new SqlDatabaseFixture(target);
      resourceRepositoryContract(`${plural} on ${target.name}`, descriptor, {
        setUp: async () => {
          const skipped = await database.open();
          if (skipped === undefined && !served(Entity)) await createTestTable(database.db, Entity);
          return skipped;
        },
        fresh: async () => {
          const orm = database.db.orm;
          await clearResourceTables(orm);
          return {
            repository: sqlRows(database.db, Entity),
            ...(parentOf
              ? {
                  referenced: {
                    add: (id: string) => addSqlRow(database.db, declaredEntity(parentOf), id),
                    delete: (id: string) => sqlRows(database.db, declaredEntity(parentOf)).delete(id),
                  },
                }
              : {}),
            addMany: (entities) =>
              insertRows(
                orm,
                tableOf(Entity as never),
                entities.map((row) => row.toProps()),
                !target.name.startsWith('PostgreSQL'),
              ),
          };
        },
        tearDown: () => database.close(),
      });
    }
  });
}

/**
 * The engines the unique-field suite runs `Entity`'s repository on: memory, SQLite (memory and
 * file) and PostgreSQL, each fresh repository empty but for the rows its references name.
 */
function uniqueEngines(Entity: DeclaredEntity): UniqueEngine<never>[] {
  const { plural } = Entity.declaration;
  const dir = mkdtempSync(join(tmpdir(), `portico-${plural}-unique-`));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const memory: UniqueEngine<never> = {
    name: 'memory',
    setUp: async () => undefined,
    fresh: async () => (await freshMemoryRows(Entity)).rows as never,
    tearDown: async () => undefined,
  };
  return [
    memory,
    ...sqlTargets(dir, `${plural}.sqlite`).map((target): UniqueEngine<never> => {
      const database = new SqlDatabaseFixture(target);
      return {
        name: target.name,
        setUp: () => database.open(),
        fresh: async () => {
          await clearResourceTables(database.db.orm);
          for (const [, field] of refsOf(Entity))
            await addSqlRow(database.db, declaredEntity(field.references!.plural), REFERENCED_ID);
          return sqlRows(database.db, Entity) as never;
        },
        tearDown: () => database.close(),
      };
    }),
  ];
}

/** The shared cores' use cases over one repository, as the resource's module builds them. */
const useCasesOver =
  (Entity: DeclaredEntity) =>
  (rows: Rows, ids: IdGenerator, clock: Clock): UseCasesOf<Entity, string> =>
    resourceUseCases({ entity: Entity, rows: rows as never, ids, clock }) as unknown as UseCasesOf<Entity, string>;

/**
 * The shared suites below the inbound adapters, over a declared resource (served or of the tests
 * alone): the entity's rules, the use cases on memory, the repository contract on every engine.
 */
export function describeResourceCores(Entity: DeclaredEntity): void {
  const entity = entityUnderTest(Entity);
  describeResourceEntity(entity);
  describeResourceUseCases({
    ...entity,
    useCases: useCasesOver(Entity),
    distinct: (n) => {
      const input = distinctInputOf(Entity, n);
      return Object.fromEntries(uniqueFieldsOf(Entity).map(([key]) => [key, input[key]]));
    },
    fresh: async () => (await freshMemoryRows(Entity)).rows as unknown as Rows,
    ...(Entity.declaration.search ? { search: Entity.declaration.search } : {}),
  });
  describeResourceRepository(Entity);
}

/**
 * Every shared suite over a declared resource, read from its declaration: the entity's rules, the
 * use cases on memory, the repository contract on every engine, REST, GraphQL and access control;
 * for `unique` fields their promises on every engine and through both APIs; for an owned resource
 * each user's own rows; and each declared command (commands.ts): its move and refusal in the
 * domain, on memory, over REST and GraphQL on every engine. Behaviour added to a command's method
 * is tested beside.
 */
export function describeResource(Entity: DeclaredEntity): void {
  describeResourceCores(Entity);
  const resource = resourceUnderTest(Entity);
  describeResourceRest(resource);
  describeResourceGraphQL(resource);
  describeResourceRbac(resource);
  const unique = new Set(uniqueFieldsOf(Entity).map(([key]) => snakeCase(key)));
  if (unique.size > 0) {
    describeUniqueRepository(Entity as never, uniqueEngines(Entity));
    describeUniqueHttp(
      resource,
      resource.fields.filter((f) => unique.has(f.name)),
    );
  }
  if (Entity.declaration.owned) describeResourceOwnership(Entity);
  if (Object.keys(Entity.declaration.commands ?? {}).length > 0) {
    describeCommandRules(Entity);
    describeCommandRoutes(Entity);
  }
}
