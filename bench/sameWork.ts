/**
 * The same-work yardstick: a hand-written Koa + @koa/router + jsonwebtoken app doing what Portico
 * does for three REST routes and the GraphQL products list (graphql-http + graphql-js, as Portico),
 * on the drivers Portico uses (`libsql` for SQLite, `pg` for PostgreSQL), answering the same bytes
 * (test/bench/sameWork.test.ts holds it to that). Portico's ratio to it is what the architecture
 * costs over code written by hand for the same work.
 *
 *   node --import tsx bench/sameWork.ts <sqlite:file | postgres://…> <jwt secret> <jwt issuer> <port>
 *
 * What it does, per request: the bearer token verified (HS256 pinned, issuer, `typ: access`;
 * a verified token is remembered until it expires, as Portico's JwtTokenIssuer does); then
 *   GET  /api/v1/products/:id  one prepared select by id;
 *   GET  /api/v1/products      `select count(*)`, then the page (sort, order, page, per_page);
 *   POST /api/v1/products      name and price checked, one prepared insert;
 *   POST /graphql              the body read as JSON (1 MiB at most), then graphql-http on a schema
 *                              of `products(pagination, sort)` and the types it returns, with
 *                              Portico's names and types; each document parsed and validated once
 *                              (Portico keeps them too); the `products` resolver checks the token
 *                              (a refusal is a GraphQL error in a 200, as Portico answers), then
 *                              runs the list's two prepared reads, count and page.
 * What it leaves out, which Portico does: the caller lookup (user and session, cached by Portico),
 * the RBAC check, the middleware chain (request id, logging, metrics, security headers, CORS,
 * load shedding, timeout), the per-query time bound, invisible-character checks on names. On
 * GraphQL also: the rest of the schema (`product`, the mutations, health, the `search` argument),
 * GET requests, the depth, field, alias and token limits, `graphql.introspection: false` (no
 * introspection, no suggestions in errors; Portico's default is on, as here), tracing and the
 * operations metric, the 415 for a body that is not JSON, the 400 for two Authorization headers,
 * and the field list of a VALIDATION_ERROR (only its code is given).
 * SQLite: one connection, the pragmas Portico sets, statements prepared once. PostgreSQL: a
 * pg.Pool of 10 (Portico's MikroORM pool: min 0, max 10) and named statements, so each
 * connection parses and plans a statement once.
 */
import { createSecretKey, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import Router from '@koa/router';
import { buildSchema, GraphQLError, parse, validate, type DocumentNode } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/koa';
import Koa, { type Context, type Next } from 'koa';
import jwt from 'jsonwebtoken';
import Database from 'libsql';

/** A products row as a driver returns it (timestamps: epoch ms on SQLite, Date on PostgreSQL). */
interface Row {
  id: string;
  name: string;
  price: number;
  version: number;
  created_at: number | Date;
  updated_at: number | Date;
}

/** The statements the routes run, on either engine. */
interface Store {
  byId(id: string): Promise<Row | undefined>;
  count(): Promise<number>;
  page(sort: string, order: 'asc' | 'desc', limit: number, offset: number): Promise<Row[]>;
  insert(row: Row): Promise<void>;
  close(): Promise<void>;
}

const COLUMNS = 'id, name, price, version, created_at, updated_at';
const SORTS = new Set(['name', 'price', 'created_at', 'updated_at']);
const orderBy = (sort: string, order: 'asc' | 'desc'): string =>
  order === 'desc' ? `${sort} desc, id desc` : `${sort}, id`;

function sqliteStore(file: string): Store {
  const db = new Database(file);
  db.exec(
    'pragma foreign_keys = on; pragma journal_mode = wal; pragma synchronous = normal; pragma busy_timeout = 5000;',
  );
  const byId = db.prepare(`select ${COLUMNS} from products where id = ?`);
  const count = db.prepare('select count(*) as total from products');
  const insert = db.prepare(`insert into products (${COLUMNS}) values (?, ?, ?, ?, ?, ?)`);
  const pages = new Map<string, Database.Statement>();
  return {
    byId: async (id) => byId.get(id) as Row | undefined,
    count: async () => (count.get() as { total: number }).total,
    page: async (sort, order, limit, offset) => {
      const by = orderBy(sort, order);
      let statement = pages.get(by);
      if (!statement)
        pages.set(by, (statement = db.prepare(`select ${COLUMNS} from products order by ${by} limit ? offset ?`)));
      return statement.all(limit, offset) as Row[];
    },
    insert: async (r) =>
      void insert.run(
        r.id,
        r.name,
        r.price,
        r.version,
        (r.created_at as Date).getTime(),
        (r.updated_at as Date).getTime(),
      ),
    close: async () => void db.close(),
  };
}

/** The part of `pg` used here (the package ships no types, and @types/pg is not installed). */
interface PgPool {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
  end(): Promise<void>;
}
const pg = createRequire(import.meta.url)('pg') as {
  Pool: new (options: { connectionString: string; max: number }) => PgPool;
};

function postgresStore(url: string): Store {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const run = async (name: string, text: string, values: unknown[]) => (await pool.query({ name, text, values })).rows;
  return {
    byId: async (id) =>
      (await run('product', `select ${COLUMNS} from products where id = $1`, [id]))[0] as Row | undefined,
    count: async () =>
      Number(((await run('count', 'select count(*) as total from products', []))[0] as { total: string }).total),
    page: async (sort, order, limit, offset) =>
      (await run(
        `page-${sort}-${order}`,
        `select ${COLUMNS} from products order by ${orderBy(sort, order)} limit $1 offset $2`,
        [limit, offset],
      )) as Row[],
    insert: async (r) =>
      void (await run('insert', `insert into products (${COLUMNS}) values ($1, $2, $3, $4, $5, $6)`, [
        r.id,
        r.name,
        r.price,
        r.version,
        r.created_at,
        r.updated_at,
      ])),
    close: () => pool.end(),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]+)$/i;

/** Portico's error envelope. */
function fail(
  ctx: Context,
  status: number,
  error: { code: string; message: string; detail?: string; fields?: { field: string; message: string }[] },
): void {
  ctx.status = status;
  ctx.body = { success: false, error };
}

const present = (r: Row) => ({
  id: r.id,
  name: r.name,
  price: r.price,
  created_at: new Date(r.created_at).toISOString(),
  updated_at: new Date(r.updated_at).toISOString(),
});

/** A query parameter as an integer in [min, max]; the default when absent; `undefined` when invalid. */
function integerParam(raw: unknown, min: number, max: number, fallback: number): number | undefined {
  if (raw === undefined) return fallback;
  const n = typeof raw === 'string' && /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN;
  return n >= min && n <= max ? n : undefined;
}

/** The request's body as JSON; throws past `limit` bytes or when it is not JSON. */
async function jsonBody(ctx: Context, limit = 1024 * 1024): Promise<unknown> {
  // Decoded once at the end: a character split across two chunks stays whole.
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new Error('too large');
    chunks.push(chunk);
  }
  return JSON.parse(Buffer.concat(chunks, size).toString('utf8')) as unknown;
}

/**
 * The part of Portico's GraphQL schema the bench's query reaches, with Portico's names and types:
 * the `products` list with its `pagination` and `sort` arguments (not `search`), its envelope, the
 * product. `DateTime` is left as graphql-js builds a scalar (as is): the resolver hands it ISO text.
 */
const SDL = `
scalar DateTime
enum SortOrientation {
  ASC
  DESC
}
input TPaginationInputDto {
  limit: Int
  page: Int
}
input TSortingInputDto {
  sortByField: String!
  sortOrientation: SortOrientation
}
type TPaginationObjectDto {
  totalRecords: Int
  recordsPerPage: Int
  totalPages: Int
  currentPage: Int
}
type Product {
  id: ID!
  name: String!
  price: Float!
  createdAt: DateTime!
  updatedAt: DateTime!
}
type ProductList {
  data: [Product!]!
  pagination: TPaginationObjectDto!
}
type Query {
  products(pagination: TPaginationInputDto, sort: TSortingInputDto): ProductList!
}
`;

/** `sortByField`'s names and the columns they sort by. */
const GRAPHQL_SORTS = new Map([
  ['name', 'name'],
  ['price', 'price'],
  ['createdAt', 'created_at'],
  ['updatedAt', 'updated_at'],
]);

interface ProductsArgs {
  pagination?: { limit?: number | null; page?: number | null } | null;
  sort?: { sortByField: string; sortOrientation?: 'ASC' | 'DESC' | null } | null;
}

/** What a resolver gets from the request: its Authorization header ('' when absent). */
type GraphQLContext = { authorization: string };

const presentGraphQL = (r: Row) => ({
  id: r.id,
  name: r.name,
  price: r.price,
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
});

/** Documents kept parsed and validated, at most this many (then all are dropped). */
const MAX_DOCUMENTS = 1000;

export interface SameWorkOptions {
  databaseUrl: string;
  secret: string;
  issuer: string;
  port: number;
}

export async function startSameWork(
  options: SameWorkOptions,
): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const store = options.databaseUrl.startsWith('sqlite:')
    ? sqliteStore(options.databaseUrl.slice('sqlite:'.length))
    : postgresStore(options.databaseUrl);
  const key = createSecretKey(Buffer.from(options.secret, 'utf8'));
  const verified = new Map<string, { typ?: unknown; exp: number }>();

  const app = new Koa();
  const router = new Router({ sensitive: true, strict: true });
  /**
   * Why the Authorization header `header` ('' when absent) lets no one in, in Portico's words;
   * `undefined` for a valid access token.
   */
  const refusal = (header: string): string | undefined => {
    const match = BEARER.exec(header.trim());
    const token = match?.[1];
    let claims = token === undefined ? undefined : verified.get(token);
    if (token !== undefined && claims === undefined) {
      try {
        claims = jwt.verify(token, key, { algorithms: ['HS256'], issuer: options.issuer }) as {
          typ?: unknown;
          exp: number;
        };
        if (verified.size >= 10_000) verified.clear();
        verified.set(token, claims);
      } catch {
        claims = undefined;
      }
    }
    if (claims?.typ === 'access' && claims.exp > Date.now() / 1000) return undefined;
    return header === '' ? 'missing bearer token' : match ? 'invalid token' : 'invalid authorization header';
  };

  /** The REST routes' authentication: 401 with `WWW-Authenticate: Bearer` when refused. */
  const authenticated = async (ctx: Context, next: Next): Promise<void> => {
    const message = refusal(ctx.get('Authorization'));
    if (message !== undefined) {
      ctx.set('WWW-Authenticate', 'Bearer');
      return fail(ctx, 401, { code: 'UNAUTHORIZED', message });
    }
    await next();
  };

  router.get('/api/v1/products/:id', authenticated, async (ctx) => {
    const raw = ctx.params.id ?? '';
    const row = UUID.test(raw) ? await store.byId(raw.toLowerCase()) : undefined;
    if (!row)
      return fail(ctx, 404, {
        code: 'NOT_FOUND',
        message: 'Product not found',
        detail: `id: ${UUID.test(raw) ? raw.toLowerCase() : raw}`,
      });
    ctx.set('ETag', `"${row.version}"`);
    ctx.body = { success: true, data: present(row) };
  });

  router.get('/api/v1/products', authenticated, async (ctx) => {
    const q = ctx.query;
    const page = integerParam(q.page, 1, 999_999_999, 1);
    const perPage = integerParam(q.per_page, 1, 100, 20);
    const sort = q.sort ?? 'created_at';
    const order = typeof q.order === 'string' ? q.order.toLowerCase() : 'desc';
    if (
      page === undefined ||
      perPage === undefined ||
      typeof sort !== 'string' ||
      !SORTS.has(sort) ||
      (order !== 'asc' && order !== 'desc')
    ) {
      return fail(ctx, 400, { code: 'VALIDATION_ERROR', message: 'validation failed' });
    }
    const total = await store.count();
    const rows = total > (page - 1) * perPage ? await store.page(sort, order, perPage, (page - 1) * perPage) : [];
    ctx.body = {
      success: true,
      data: rows.map(present),
      meta: { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage) },
    };
  });

  router.post('/api/v1/products', authenticated, async (ctx) => {
    let body: unknown;
    try {
      body = await jsonBody(ctx);
    } catch {
      return fail(ctx, 400, { code: 'BAD_REQUEST', message: 'invalid request body' });
    }
    const { name, price } = (typeof body === 'object' && body !== null ? body : {}) as {
      name?: unknown;
      price?: unknown;
    };
    const trimmed = typeof name === 'string' ? name.trim() : '';
    const fields: { field: string; message: string }[] = [];
    if (name === undefined) fields.push({ field: 'name', message: 'is required' });
    else if (trimmed.length === 0 || [...trimmed].length > 200)
      fields.push({ field: 'name', message: 'must be 1 to 200 characters' });
    if (price === undefined) fields.push({ field: 'price', message: 'is required' });
    else if (typeof price !== 'number' || !Number.isFinite(price) || price <= 0)
      fields.push({ field: 'price', message: 'must be a number greater than 0' });
    if (fields.length > 0) return fail(ctx, 400, { code: 'VALIDATION_ERROR', message: 'validation failed', fields });
    const now = new Date();
    const row: Row = {
      id: randomUUID(),
      name: trimmed,
      price: price as number,
      version: 1,
      created_at: now,
      updated_at: now,
    };
    await store.insert(row);
    ctx.status = 201;
    ctx.set('ETag', '"1"');
    ctx.body = { success: true, data: present(row) };
  });

  /**
   * `products`: the token checked when the field resolves, as Portico's resolvers do (a refusal is a
   * GraphQL error, HTTP 200), then the list's count and page.
   */
  const schema = buildSchema(SDL);
  schema.getQueryType()!.getFields().products!.resolve = async (
    _root: unknown,
    args: ProductsArgs,
    context: GraphQLContext,
  ) => {
    const message = refusal(context.authorization);
    if (message !== undefined) throw new GraphQLError(message, { extensions: { code: 'UNAUTHORIZED' } });
    const perPage = args.pagination?.limit ?? 20;
    const page = args.pagination?.page ?? 1;
    const sort = args.sort ? GRAPHQL_SORTS.get(args.sort.sortByField.trim()) : 'created_at';
    const order = args.sort?.sortOrientation === 'ASC' ? 'asc' : 'desc';
    if (sort === undefined || perPage < 1 || perPage > 100 || page < 1 || page > 999_999_999)
      throw new GraphQLError('validation failed', { extensions: { code: 'VALIDATION_ERROR' } });
    const total = await store.count();
    const rows = total > (page - 1) * perPage ? await store.page(sort, order, perPage, (page - 1) * perPage) : [];
    return {
      data: rows.map(presentGraphQL),
      pagination: {
        totalRecords: total,
        recordsPerPage: perPage,
        totalPages: Math.ceil(total / perPage),
        currentPage: page,
      },
    };
  };
  // Each document is parsed and validated once, as Portico's parse cache does; only valid ones are kept.
  const documents = new Map<string, DocumentNode>();
  const validated = new WeakSet<DocumentNode>();
  const graphql = createHandler<GraphQLContext>({
    schema,
    parse: (source) => (typeof source === 'string' ? documents.get(source) : undefined) ?? parse(source),
    validate: (on, document, rules) => {
      if (validated.has(document)) return [];
      const errors = validate(on, document, rules);
      if (errors.length === 0 && document.loc) {
        if (documents.size >= MAX_DOCUMENTS) documents.clear();
        documents.set(document.loc.source.body, document);
        validated.add(document);
      }
      return errors;
    },
    // graphql-http's `req.headers` may be a plain object or a Headers-like one; the Node request's are plain.
    context: (req) => ({ authorization: req.raw.headers.authorization ?? '' }),
  });

  // graphql-http reads a parsed body from `ctx.request.body` and has no size limit of its own.
  router.post('/graphql', async (ctx, next) => {
    try {
      (ctx.request as { body?: unknown }).body = await jsonBody(ctx);
    } catch {
      return fail(ctx, 400, { code: 'BAD_REQUEST', message: 'invalid request body' });
    }
    await graphql(ctx, next);
  });

  app.use(router.routes());
  const handle = app.callback();
  const server = createServer((req, res) => void handle(req, res));
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(options.port, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [databaseUrl, secret, issuer, port = '0'] = process.argv.slice(2);
  if (!databaseUrl || !secret || !issuer)
    throw new Error('usage: sameWork.ts <database url> <jwt secret> <jwt issuer> <port>');
  const running = await startSameWork({ databaseUrl, secret, issuer, port: Number(port) });
  process.stdout.write(`ready ${new URL(running.url).port}\n`);
  process.once('SIGTERM', () => void running.close().then(() => process.exit(0)));
}
