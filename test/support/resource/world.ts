import { expect } from 'chai';
import { startService, type RunningService } from '../../../src/main/wiring/service.js';
import { accountWithRole, Api, dataOf, type Account, type ApiResponse } from '../api.js';
import { emptyTables } from '../../adapters/outbound/contracts/databases.js';
import { testConfig } from '../config.js';
import { silentLogger } from '../logger.js';
import { variantOf } from './variants.js';
import { camelOf, type FieldUnderTest, type Json, type ResourceUnderTest, type Role } from './descriptor.js';

/** A resource row as REST answers it. */
export type RowJson = Readonly<Record<string, Json>> & {
  readonly id: string;
  readonly created_at: string;
  readonly updated_at: string;
};

/** A running service (in-memory SQLite unless told, both APIs) with one account per role. */
export interface ResourceWorld {
  readonly service: RunningService;
  readonly api: Api;
  readonly accounts: Readonly<Record<Role, Account>>;
  /** The admin's token: rows the suites need are made with it. */
  readonly token: string;
  /** The next number of a new row's unique values (`variantOf`): no two bodies share one. */
  readonly distinct: () => number;
}

export interface WorldOptions {
  /**
   * The database the service runs on (`SVC_DATABASE_URL`), read when the suite starts; `undefined`
   * skips the suite, saying why (`skipReason`). PostgreSQL's test database is shared by every
   * suite: its tables are emptied first, so the service seeds the shipped access rules.
   */
  readonly database?: () => string | undefined;
  readonly skipReason?: string;
}

/**
 * Starts the service before the suite's tests and stops it after them; the world is read through
 * the returned function once `before` has run.
 */
export function useResourceWorld(options: WorldOptions = {}): () => ResourceWorld {
  let world: ResourceWorld | undefined;
  before(async function () {
    this.timeout(60_000);
    const database = options.database ? options.database() : 'sqlite::memory:';
    if (database === undefined) {
      console.log(`      (skipped: ${options.skipReason ?? 'no database'})`);
      this.skip();
    }
    if (database.startsWith('postgres')) await emptyTables(database);
    const service = await startService(
      testConfig({
        SVC_DATABASE_URL: database,
        SVC_AUTH_BCRYPT_COST: '4',
        SVC_RATE_LIMIT_ENABLED: 'false',
        SVC_API_MODE: 'both',
      }),
      { logger: silentLogger() },
    );
    const api = new Api(service.url);
    const accounts = {
      user: await accountWithRole(service, api, 'user'),
      moderator: await accountWithRole(service, api, 'moderator'),
      admin: await accountWithRole(service, api, 'admin'),
    };
    let made = 0;
    world = { service, api, accounts, token: accounts.admin.access_token, distinct: () => (made += 1) };
  });
  after(async () => world?.service.stop());
  return () => {
    if (world === undefined) throw new Error('the resource world is not started: before() did not run');
    return world;
  };
}

export const itemPath = (resource: ResourceUnderTest, id: string): string =>
  `${resource.collection}/${encodeURIComponent(id)}`;

/**
 * The value of one field in a new row: a sample, a value of its own for a unique field, or (for a
 * ref) the id of a row of the referenced resource made first.
 */
async function valueFor(world: ResourceWorld, field: FieldUnderTest, which: 0 | 1): Promise<Json> {
  if (field.ref) return (await createRow(world, field.ref())).id;
  return sampleFor(world, field, which);
}

/** A value of a field that is not a ref: its sample `which`, or for a unique field a value no other row has. */
export function sampleFor(world: ResourceWorld, field: FieldUnderTest, which: 0 | 1): Json {
  return field.unique ? variantOf(field, world.distinct()) : field.samples[which];
}

/** A valid create body with every field (refs pointing at rows made for it), in REST form. */
export async function validBody(
  world: ResourceWorld,
  resource: ResourceUnderTest,
  which: 0 | 1 = 0,
): Promise<Record<string, Json>> {
  const body: Record<string, Json> = {};
  for (const field of resource.fields) body[field.name] = await valueFor(world, field, which);
  return body;
}

/** Whether a create must name the field: neither optional nor with a default. */
export const isRequired = (field: FieldUnderTest): boolean => !field.optional && field.default === undefined;

/** Only the required fields of a valid create body (none optional, none with a default). */
export async function requiredBody(world: ResourceWorld, resource: ResourceUnderTest): Promise<Record<string, Json>> {
  const body: Record<string, Json> = {};
  for (const field of resource.fields.filter(isRequired)) body[field.name] = await valueFor(world, field, 0);
  return body;
}

/** Creates a row from a valid body with `overrides` as `token`'s holder (the admin unless told), and answers it. */
export async function createRow(
  world: ResourceWorld,
  resource: ResourceUnderTest,
  overrides: Record<string, Json> = {},
  token: string = world.token,
): Promise<RowJson> {
  const json = { ...(await validBody(world, resource)), ...overrides };
  return dataOf<RowJson>(await world.api.post(resource.collection, { token, json }), 201);
}

/** A REST body in GraphQL input form: camel-case keys, enum values upper case. */
export function graphqlInput(resource: ResourceUnderTest, body: Readonly<Record<string, Json>>): Record<string, Json> {
  const input: Record<string, Json> = {};
  for (const [name, value] of Object.entries(body)) {
    const field = resource.fields.find((f) => f.name === name);
    input[field?.graphql ?? camelOf(name)] = field ? toGraphQL(field, value) : value;
  }
  return input;
}

/** A REST value of a field in GraphQL form (a sample maps to its GraphQL sample). */
export function toGraphQL(field: FieldUnderTest, value: Json): Json {
  if (field.graphqlSamples === undefined || value === null) return value;
  const index = field.samples.indexOf(value);
  return index >= 0 ? field.graphqlSamples[index]! : value;
}

/** A REST row in the shape GraphQL answers it (camel-case keys, enum values upper case). */
export function asGraphQLRow(resource: ResourceUnderTest, row: RowJson): Record<string, Json> {
  const out: Record<string, Json> = { id: row.id, createdAt: row.created_at, updatedAt: row.updated_at };
  for (const field of resource.fields) out[field.graphql] = toGraphQL(field, row[field.name] ?? null);
  return out;
}

/** Asserts a REST answer carries exactly this field list (id, the fields, an owned row's owner_id, created_at, updated_at). */
export function expectRowShape(resource: ResourceUnderTest, row: RowJson): void {
  const owner = resource.owned ? ['owner_id'] : [];
  const files = (resource.files ?? []).map((f) => f.name);
  const keys = ['id', 'created_at', 'updated_at', ...owner, ...resource.fields.map((f) => f.name), ...files].sort();
  expect(Object.keys(row).sort()).to.deep.equal(keys);
  for (const file of files) if (row[file] !== null) expectFileShape(row[file] ?? null);
  expect(row.id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  expect(row.created_at).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  expect(row.updated_at).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
}

/** A file as an item answers it: `{url, size, content_type, sha256}`. */
export function expectFileShape(file: Json): void {
  expect(file).to.be.an('object');
  const f = file as Record<string, Json>;
  expect(Object.keys(f).sort()).to.deep.equal(['content_type', 'sha256', 'size', 'url']);
  expect(f.url).to.be.a('string');
  expect(Number.isSafeInteger(f.size)).to.equal(true);
  expect(f.sha256).to.match(/^[0-9a-f]{64}$/);
}

/** A row as a client may send it back: without its files (only an upload sets one). */
export function withoutFiles(resource: ResourceUnderTest, row: RowJson): Record<string, Json> {
  const files = new Set((resource.files ?? []).map((f) => f.name));
  return Object.fromEntries(Object.entries(row).filter(([name]) => !files.has(name)));
}

/** The `ETag` of an answer carrying one row. */
export const etagOf = (response: ApiResponse): string | null => response.headers.get('etag');

/** The sort key of a value of `kind`: numbers for dates, booleans, numbers and decimals; strings compare as the database's binary order. */
export function sortKey(kind: FieldUnderTest['kind'] | 'timestamp', value: Json): number | string | null {
  if (value === null || value === undefined) return null;
  if (kind === 'datetime' || kind === 'timestamp') return Date.parse(value as string);
  if (kind === 'boolean') return value ? 1 : 0;
  // A decimal is answered as text and sorts by its value: "9.00" before "10.00".
  if (kind === 'decimal') return Number(value);
  return value as number | string;
}

/**
 * Asserts `rows` are sorted by `key` in `order`: values that differ in that direction (nulls last
 * both ways), ties broken by id in the same direction.
 */
export function expectSorted(
  rows: readonly RowJson[],
  key: (row: RowJson) => number | string | null,
  order: 'asc' | 'desc',
  what: string,
): void {
  const sign = order === 'asc' ? 1 : -1;
  for (let i = 1; i < rows.length; i += 1) {
    const a = rows[i - 1]!;
    const b = rows[i]!;
    const x = key(a);
    const y = key(b);
    const context = `${what} at ${i}: ${JSON.stringify(a)} then ${JSON.stringify(b)}`;
    if (x === null || y === null) {
      expect(x === null && y !== null, `a null before a value: ${context}`).to.equal(false);
      if (x === null && y === null)
        expect(sign * (a.id < b.id ? -1 : 1), `tie not broken by id: ${context}`).to.equal(-1);
      continue;
    }
    if (x === y) expect(sign * (a.id < b.id ? -1 : 1), `tie not broken by id: ${context}`).to.equal(-1);
    else expect(sign * (x < y ? -1 : 1), context).to.equal(-1);
  }
}
