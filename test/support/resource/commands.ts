import { expect } from 'chai';
import { commandsOf, type Command } from '../../../src/adapters/inbound/resources.js';
import { resourceUseCases } from '../../../src/application/resources/resourceUseCases.js';
import { ConflictError, NotFoundError, PreconditionFailedError } from '../../../src/domain/shared/DomainError.js';
import { snakeCase, type FieldDeclaration } from '../../../src/domain/shared/resource.js';
import type { ResourceRepository } from '../../../src/domain/shared/ResourceRepository.js';
import { dataOf, expectError, type ApiResponse } from '../api.js';
import { FixedClock } from '../FixedClock.js';
import { graphql, gqlData, gqlError } from '../graphql.js';
import { SequentialIds } from '../SequentialIds.js';
import { fieldsOf, inputOf, resourceUnderTest, type DeclaredEntity } from './declared.js';
import { UNKNOWN_ID, type Json } from './descriptor.js';
import { freshMemoryRows } from './suites.js';
import { etagOf, itemPath, useResourceWorld, validBody, type ResourceWorld, type RowJson } from './world.js';

/** An entity of a resource with commands, as these suites drive it. */
type Entity = {
  readonly id: string;
  readonly version: number;
  readonly updatedAt: Date;
  update(changes: object, now: Date): Entity;
} & Record<string, unknown>;

const T0 = new Date('2026-03-01T10:00:00.000Z');
const T1 = new Date('2026-03-01T11:00:00.000Z');

/** A command's method on the entity (`entity.ship(now)`). */
const run = (entity: Entity, verb: string, now: Date): Entity =>
  (entity[verb] as (now: Date) => Entity).call(entity, now);

/** The field a command moves. */
const fieldOf = (Entity: DeclaredEntity, command: Command): FieldDeclaration =>
  Entity.declaration.fields[command.declaration.field] as FieldDeclaration;

/**
 * The ways from `start` to `target` of the command's field: none when it is already there; a
 * change of the field (an update) when clients may set it; else the shortest chain of declared
 * commands. `undefined` when no way leads there.
 */
export type Step = { readonly set: string } | { readonly verb: string };
export function stepsTo(Entity: DeclaredEntity, field: string, start: unknown, target: string): Step[] | undefined {
  if (start === target) return [];
  if (!(Entity.declaration.fields[field] as FieldDeclaration).isReadonly) return [{ set: target }];
  const commands = Object.entries(Entity.declaration.commands ?? {}).filter(([, c]) => c.field === field);
  const seen = new Map<unknown, Step[]>([[start, []]]);
  const queue: unknown[] = [start];
  while (queue.length > 0) {
    const state = queue.shift();
    for (const [verb, command] of commands) {
      if (!command.from.includes(state as string) || seen.has(command.to)) continue;
      const steps = [...seen.get(state)!, { verb }];
      if (command.to === target) return steps;
      seen.set(command.to, steps);
      queue.push(command.to);
    }
  }
  return undefined;
}

/** A valid create input of the entity (camel case) that leaves its read-only fields to their defaults. */
function commandInput(Entity: DeclaredEntity): Record<string, unknown> {
  const input = inputOf(Entity);
  for (const [key, field] of fieldsOf(Entity)) if (field.isReadonly) delete input[key];
  return input;
}

/** What a create leaves the field at (its default, else the create input's value). */
const startOf = (Entity: DeclaredEntity, field: string): unknown =>
  (Entity.declaration.fields[field] as FieldDeclaration).defaultValue ?? commandInput(Entity)[field] ?? null;

/** The states of the command's field a row can reach: those it starts from, and those it is refused in. */
function statesOf(Entity: DeclaredEntity, command: Command) {
  const { field, from } = command.declaration;
  const start = startOf(Entity, field);
  const reachable = (state: string) => stepsTo(Entity, field, start, state) !== undefined;
  const values = fieldOf(Entity, command).values ?? [];
  return {
    from: from.filter(reachable),
    other: values.find((state) => !from.includes(state) && reachable(state)),
  };
}

/** The refusal from `state`, in the domain's words (`book order is shipped; ship needs paid`). */
const refusal = (Entity: DeclaredEntity, command: Command, state: string): string =>
  `${Entity.declaration.name.replace(/_/g, ' ')} is ${state}; ${snakeCase(command.verb).replace(/_/g, ' ')} needs ${command.declaration.from.join(' or ')}`;

/** A new entity taken to `state` of the command's field, in the domain. */
function entityAt(Entity: DeclaredEntity, command: Command, state: string, id: string): Entity {
  const { field } = command.declaration;
  let entity = Entity.create({ ...commandInput(Entity), id } as never, T0) as Entity;
  for (const step of stepsTo(Entity, field, entity[field], state)!)
    entity = 'verb' in step ? run(entity, step.verb, T0) : entity.update({ [field]: step.set }, T0);
  return entity;
}

/**
 * The commands of a declared resource in the domain and its use cases on the memory repository:
 * from each state it starts from the field moves to its target (version bumped, stored); from
 * another state a ConflictError naming that state, and nothing stored; an unknown id NOT_FOUND; a
 * stale expected version PRECONDITION_FAILED.
 */
export function describeCommandRules(Entity: DeclaredEntity): void {
  const { plural } = Entity.declaration;
  for (const command of commandsOf(Entity.declaration)) {
    const { field, to } = command.declaration;
    const states = statesOf(Entity, command);
    describe(`${plural}: the ${command.verb} command (domain, use case on memory)`, () => {
      for (const state of states.from) {
        it(`moves ${field} from ${state} to ${to}, bumping the version`, () => {
          const before = entityAt(Entity, command, state, UNKNOWN_ID);
          const after = run(before, command.verb, T1);
          expect(after[field]).to.equal(to);
          expect(after.version).to.equal(before.version + 1);
          expect(after.updatedAt).to.deep.equal(T1);
          expect(before[field], 'the entity is immutable').to.equal(state);
        });
      }
      if (states.other !== undefined) {
        const other = states.other;
        it(`refuses from ${other} with a ConflictError naming the state`, () => {
          const entity = entityAt(Entity, command, other, UNKNOWN_ID);
          expect(() => run(entity, command.verb, T1))
            .to.throw(ConflictError)
            .with.property('message', refusal(Entity, command, other));
        });
      }

      const useCases = async () => {
        const rows = (await freshMemoryRows(Entity)).rows as unknown as ResourceRepository<Entity>;
        const cases = resourceUseCases({
          entity: Entity as never,
          rows: rows as never,
          ids: new SequentialIds(),
          clock: new FixedClock(T1),
        });
        const use = cases.commands![command.verb]!;
        const execute = async (input: { id: string; expectedVersions?: readonly number[] }) =>
          (await use.execute(input)) as unknown as Entity;
        return { rows, execute };
      };
      if (states.from[0] !== undefined) {
        const state = states.from[0];
        it(`stores the move; a stale expected version is PRECONDITION_FAILED and leaves the row as it was`, async () => {
          const { rows, execute } = await useCases();
          const row = entityAt(Entity, command, state, UNKNOWN_ID);
          await rows.add(row as never);
          await expectRejection(execute({ id: row.id, expectedVersions: [row.version + 7] }), PreconditionFailedError);
          expect((await rows.findById(row.id))?.[field]).to.equal(state);
          const done = await execute({ id: row.id, expectedVersions: [row.version] });
          expect(done[field]).to.equal(to);
          const stored = await rows.findById(row.id);
          expect(stored?.[field]).to.equal(to);
          expect(stored?.version).to.equal(row.version + 1);
        });
      }
      it('answers NOT_FOUND for an unknown id', async () => {
        const { execute } = await useCases();
        await expectRejection(execute({ id: UNKNOWN_ID }), NotFoundError);
      });
      if (states.other !== undefined) {
        const other = states.other;
        it(`refuses from ${other} (CONFLICT) and stores nothing`, async () => {
          const { rows, execute } = await useCases();
          const row = entityAt(Entity, command, other, UNKNOWN_ID);
          await rows.add(row as never);
          const error = await expectRejection(execute({ id: row.id }), ConflictError);
          expect(error.message).to.equal(refusal(Entity, command, other));
          expect((await rows.findById(row.id))?.version).to.equal(row.version);
        });
      }
    });
  }
}

async function expectRejection<E extends Error>(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
): Promise<E> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(type);
    return error as E;
  }
  throw new Error(`expected a ${type.name}`);
}

/** The roles the generated rules let run a command: staff, and the owner too on an owned resource unless staff-only. */
export function commandRoles(Entity: DeclaredEntity, command: Command): { allowed: string[]; refused: string[] } {
  const owned = (Entity.declaration as { readonly owned?: boolean }).owned === true;
  return owned && !command.declaration.staffOnly
    ? { allowed: ['moderator', 'admin', 'user'], refused: [] }
    : { allowed: ['moderator', 'admin'], refused: ['user'] };
}

/** REST body values of a create that leaves read-only fields to their defaults (sent back as they are). */
async function createBody(world: ResourceWorld, Entity: DeclaredEntity): Promise<Record<string, Json>> {
  const body = await validBody(world, resourceUnderTest(Entity));
  for (const [key, field] of fieldsOf(Entity)) {
    if (!field.isReadonly) continue;
    const value = field.defaultValue;
    if (value === undefined) delete body[snakeCase(key)];
    else body[snakeCase(key)] = (value instanceof Date ? value.toISOString() : value) as Json;
  }
  return body;
}

/**
 * The commands of a resource the service serves, over REST and GraphQL, on SQLite and (with
 * SVC_TEST_POSTGRES_URL) PostgreSQL: 200 with the row and its new ETag; 409 CONFLICT from another
 * state, the message naming it; 404 for an unknown or malformed id; 412 for a stale If-Match; 403
 * for a role the rules leave out; the mutation's `status: 409` in its response object.
 */
export function describeCommandRoutes(Entity: DeclaredEntity): void {
  const resource = resourceUnderTest(Entity);
  const engines = [
    { name: 'SQLite', options: {} },
    {
      name: 'PostgreSQL',
      options: { database: () => process.env.SVC_TEST_POSTGRES_URL, skipReason: 'needs SVC_TEST_POSTGRES_URL' },
    },
  ];
  for (const engine of engines)
    describe(`${resource.collection} commands (REST and GraphQL, ${engine.name})`, function () {
      this.timeout(60_000);
      const world = useResourceWorld(engine.options);
      const gql = <D = Record<string, unknown>>(query: string, variables: Record<string, unknown>, token: string) =>
        graphql<D>(world().service.url, query, { variables, token });
      const post = (path: string, token: string, headers: Record<string, string> = {}): Promise<ApiResponse> =>
        world().api.post(path, { token, headers });

      /** A row taken to `state` through the API (as the admin). */
      async function rowAt(command: Command, state: string): Promise<RowJson> {
        const created = dataOf<RowJson>(
          await world().api.post(resource.collection, {
            token: world().token,
            json: await createBody(world(), Entity),
          }),
          201,
        );
        const { field } = command.declaration;
        let row = created;
        for (const step of stepsTo(Entity, field, created[snakeCase(field)], state)!) {
          const path = 'verb' in step ? commandPath(Entity, step.verb, row.id) : itemPath(resource, row.id);
          row = dataOf<RowJson>(
            'verb' in step
              ? await post(path, world().token)
              : await world().api.put(path, { token: world().token, json: { [snakeCase(field)]: step.set } }),
          );
        }
        return row;
      }

      for (const command of commandsOf(Entity.declaration)) {
        const { field, to } = command.declaration;
        const json = snakeCase(field);
        const states = statesOf(Entity, command);
        const roles = commandRoles(Entity, command);
        const from = states.from[0];
        if (from !== undefined)
          it(`POST …/{id}/${command.path.split('/').pop()}: 200 with the row at ${to} and its new ETag; a stale If-Match is 412`, async () => {
            const row = await rowAt(command, from);
            const path = commandPath(Entity, command.verb, row.id);
            const read = await world().api.get(itemPath(resource, row.id), { token: world().token });
            const etag = etagOf(read)!;
            expectError(
              await post(path, world().token, { 'If-Match': '"999"' }),
              412,
              'PRECONDITION_FAILED',
              `${resource.human.toLowerCase()} is not at the expected version; read it again`,
              { detail: `id: ${row.id}` },
            );
            const done = await post(path, world().token, { 'If-Match': etag });
            const data = dataOf<RowJson>(done);
            expect(data).to.include({ id: row.id, [json]: to });
            expect(etagOf(done)).to.not.equal(etag);
            const stored = dataOf<RowJson>(await world().api.get(itemPath(resource, row.id), { token: world().token }));
            expect(stored[json]).to.equal(to);
          });
        if (states.other !== undefined) {
          const other = states.other;
          it(`POST …/${command.verb} from ${other}: 409 CONFLICT naming the state, the row unchanged; GraphQL ${command.mutation} answers status 409`, async () => {
            const row = await rowAt(command, other);
            const message = refusal(Entity, command, other);
            expectError(
              await post(commandPath(Entity, command.verb, row.id), world().token),
              409,
              'CONFLICT',
              message,
              {
                detail: `id: ${row.id}`,
              },
            );
            const response = await gql<Record<string, unknown>>(
              `mutation ($id: ID!) { ${command.mutation}(id: $id) { status message errors { fieldName } data { id } } }`,
              { id: row.id },
              world().token,
            );
            expect(gqlData(response)[command.mutation]).to.deep.equal({
              status: 409,
              message,
              errors: null,
              data: null,
            });
            const stored = dataOf<RowJson>(await world().api.get(itemPath(resource, row.id), { token: world().token }));
            expect(stored).to.deep.equal(row);
          });
        }
        it(`POST …/${command.verb}: 404 NOT_FOUND for an unknown id and for one that is not an id, on REST and GraphQL`, async () => {
          for (const id of [UNKNOWN_ID, 'not-an-id'])
            expectError(
              await post(commandPath(Entity, command.verb, id), world().token),
              404,
              'NOT_FOUND',
              `${resource.human} not found`,
              { detail: `id: ${id}` },
            );
          const response = await gql(
            `mutation ($id: ID!) { ${command.mutation}(id: $id) { status } }`,
            { id: UNKNOWN_ID },
            world().token,
          );
          expect(gqlError(response, 'NOT_FOUND').message).to.equal(`${resource.human} not found`);
        });
        if (from !== undefined)
          it(`${command.mutation}: status 200 with the row at ${to}`, async () => {
            const row = await rowAt(command, from);
            const response = await gql<Record<string, { status: number; data: Record<string, unknown> }>>(
              `mutation ($id: ID!) { ${command.mutation}(id: $id) { status errors { fieldName } data { id ${field} } } }`,
              { id: row.id },
              world().token,
            );
            const answer = gqlData(response)[command.mutation]!;
            expect(answer.status).to.equal(200);
            expect(answer.data).to.deep.equal({ id: row.id, [field]: to.toUpperCase() });
          });
        it(`POST …/${command.verb}: ${roles.refused.length > 0 ? `403 for ${roles.refused.join(', ')}; ` : ''}${roles.allowed.join(', ')} may`, async () => {
          for (const role of roles.refused) {
            const token = world().accounts[role as 'user'].access_token;
            expectError(
              await post(commandPath(Entity, command.verb, UNKNOWN_ID), token),
              403,
              'FORBIDDEN',
              'forbidden',
            );
            const response = await gql(
              `mutation ($id: ID!) { ${command.mutation}(id: $id) { status } }`,
              { id: UNKNOWN_ID },
              token,
            );
            gqlError(response, 'FORBIDDEN');
          }
          for (const role of roles.allowed) {
            const token = world().accounts[role as 'user'].access_token;
            expect((await post(commandPath(Entity, command.verb, UNKNOWN_ID), token)).status).to.equal(404);
          }
        });
      }
    });
}

/** `/api/v1/<plural>/<id>/<verb>`: a command's path for one row. */
export function commandPath(Entity: DeclaredEntity, verb: string, id: string): string {
  const command = commandsOf(Entity.declaration).find((c) => c.verb === verb)!;
  return command.path.replace(':id', encodeURIComponent(id));
}
