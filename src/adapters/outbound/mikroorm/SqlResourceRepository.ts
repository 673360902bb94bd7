import { ForeignKeyConstraintViolationException, type MikroORM } from '@mikro-orm/core';
import type { AbstractSqlConnection, Knex } from '@mikro-orm/knex';
import { ValidationError, type FieldViolation } from '../../../domain/shared/DomainError.js';
import { offsetOf, type ListQuery, type Page } from '../../../domain/shared/Page.js';
import { guarded } from './errors.js';
import {
  isPostgres,
  preparedOn,
  readAll,
  readAllWalkingIndex,
  readOne,
  writeOne,
  type LibSqlConnection,
} from './fastRead.js';
import { globContainsAnyCase, likeContains } from './like.js';
import {
  columnsOf,
  orderByOf,
  snakeCase,
  type ColumnOf,
  type ResourceTable,
  type StoredProps,
} from './resourceTable.js';

/** A row as the driver returns it: timestamps are numbers on SQLite and Dates on PostgreSQL, booleans 0/1 on SQLite. */
type RawRow = Record<string, unknown>;
type Param = string | number | boolean | Date | null;

/** The part of a libsql connection (better-sqlite3's API: synchronous) an update uses. */
interface TransactionalConnection extends LibSqlConnection {
  readonly inTransaction: boolean;
  exec(sql: string): void;
}

/** The pool of the ORM's knex client: one connection on SQLite, several on PostgreSQL. */
interface PoolingClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<void>;
}

/**
 * From this offset on, PostgreSQL's planner may sort the whole table for a page rather than walk
 * the sort index, so there the walk is enforced (`readAllWalkingIndex`, a transaction of its
 * own); a shallower page is one prepared statement, which the planner answers from the index.
 */
const DEEP_OFFSET = 1000;

/** SQLite's and PostgreSQL's (23503) "a foreign key does not hold", however the driver words it. */
function isForeignKeyViolation(error: unknown): boolean {
  if (error instanceof ForeignKeyConstraintViolationException) return true;
  if (typeof error !== 'object' || error === null) return false;
  const code = 'code' in error ? String((error as { code: unknown }).code) : '';
  if (code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return true;
  return error instanceof Error && /FOREIGN KEY constraint failed/i.test(error.message);
}

/** A driver value as the props hold it. */
function fromDriver(column: ColumnOf, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (column.kind) {
    case 'datetime':
      return new Date(value as Date | number | string);
    case 'boolean':
      return value === true || value === 1 || value === '1' || value === 't';
    case 'integer':
    case 'number':
    case 'version':
      return Number(value);
    default:
      return value;
  }
}

/** A props value as the driver takes it: on SQLite, times as epoch milliseconds (as the ORM writes them) and booleans as 1/0. */
function toDriver(value: unknown, sqlite: boolean): Param {
  if (value === undefined || value === null) return null;
  if (sqlite && value instanceof Date) return value.getTime();
  if (sqlite && typeof value === 'boolean') return value ? 1 : 0;
  return value as Param;
}

/**
 * The repository of any resource stored by one table (see ADR 0016), declared by its
 * `ResourceTable`: prepared fast reads by id, a row-locked read-modify-write update (ADR 0013),
 * a conditional delete, and lists paged as a count plus a deferred join over the sort index.
 * Every call maps "unreachable"/"storage full" to 503 (`guarded`), a foreign key that does not
 * hold on write to a ValidationError on the reference field, and a delete of a row still
 * referenced to the table's "still referenced" error.
 */
export class SqlResourceRepository<E, P extends StoredProps, F extends string> {
  private readonly columns: ColumnOf[];
  private readonly selectList: string;
  private readonly selectOne: string;
  private readonly insertOne: string;
  private readonly updateOne: string;
  /** Columns an update writes: all but id and created_at. */
  private readonly updated: ColumnOf[];
  private readonly references: ColumnOf[];
  private readonly searchColumn: string | undefined;
  private readonly orderBy: ReadonlyMap<string, { readonly asc: string; readonly desc: string }>;

  constructor(
    protected readonly orm: MikroORM,
    private readonly table: ResourceTable<E, P, F>,
  ) {
    this.columns = columnsOf(table);
    // Every sortable field's `order by`, worked out (and checked) once.
    this.orderBy = new Map(
      table.sortable.map((field) => [
        field,
        { asc: orderByOf(table, field, false), desc: orderByOf(table, field, true) },
      ]),
    );
    const t = table.table;
    this.selectList = this.columns.map((c) => c.name).join(', ');
    this.selectOne = `select ${this.selectList} from ${t} where id = ?`;
    this.insertOne = `insert into ${t} (${this.selectList}) values (${this.columns.map(() => '?').join(', ')})`;
    this.updated = this.columns.filter((c) => c.name !== 'id' && c.name !== 'created_at');
    this.updateOne = `update ${t} set ${this.updated.map((c) => `${c.name} = ?`).join(', ')} where id = ?`;
    this.references = this.columns.filter((c) => c.kind === 'ref');
    this.searchColumn = table.search === undefined ? undefined : snakeCase(table.search);
  }

  private knex(): Knex {
    return (this.orm.em.getConnection() as AbstractSqlConnection).getKnex();
  }

  private fromRaw(row: RawRow): E {
    const props: Record<string, unknown> = {};
    for (const column of this.columns) props[column.prop] = fromDriver(column, row[column.name]);
    return this.table.fromRow(props as unknown as P);
  }

  private values(entity: E, columns: readonly ColumnOf[], sqlite: boolean): Param[] {
    const props = this.table.toRow(entity) as unknown as Record<string, unknown>;
    return columns.map((c) => toDriver(props[c.prop], sqlite));
  }

  add(entity: E): Promise<void> {
    return guarded(this.orm, async () => {
      try {
        await writeOne(this.orm, this.insertOne, this.values(entity, this.columns, !isPostgres(this.orm)));
      } catch (error) {
        throw await this.refused(error, entity);
      }
    });
  }

  /** The hot read: one prepared statement, no entity hydration (it is mapped to the domain anyway). */
  findById(id: string): Promise<E | undefined> {
    return guarded(this.orm, async () => {
      const row = await readOne<RawRow>(this.orm, this.selectOne, [id]);
      return row ? this.fromRaw(row) : undefined;
    });
  }

  /**
   * Applies `change` to the stored row and answers what is stored after it; `undefined` for an
   * unknown id. `change` runs while the row's write lock is held (ADR 0013).
   */
  update(id: string, change: (current: E) => E): Promise<E | undefined> {
    return guarded(this.orm, async () => {
      let next: E | undefined;
      try {
        const written = (n: E) => (next = n);
        return await (isPostgres(this.orm)
          ? this.updateOnPostgres(id, change, written)
          : this.updateOnSqlite(id, change, written));
      } catch (error) {
        throw await this.refused(error, next);
      }
    });
  }

  /**
   * `select … for update` takes the row lock; a concurrent update waits for the commit, then
   * reads the row as committed (read committed), so it applies its change on top.
   */
  private updateOnPostgres(id: string, change: (current: E) => E, written: (next: E) => void): Promise<E | undefined> {
    return this.knex().transaction(async (trx) => {
      const { rows } = (await trx.raw(`${this.selectOne} for update`, [id])) as { rows: RawRow[] };
      if (rows[0] === undefined) return undefined;
      const current = this.fromRaw(rows[0]);
      const next = change(current);
      if (next !== current) {
        written(next);
        await trx.raw(this.updateOne, [...this.values(next, this.updated, false), id]);
      }
      return next;
    });
  }

  /**
   * `begin immediate` takes the database's write lock before the read (a deferred `begin` would
   * read first and could fail with SQLITE_BUSY on upgrading, past any busy timeout, if another
   * process wrote in between); other processes wait up to the busy timeout. The driver is
   * synchronous and the pool has one connection, so within the process nothing interleaves.
   */
  private async updateOnSqlite(
    id: string,
    change: (current: E) => E,
    written: (next: E) => void,
  ): Promise<E | undefined> {
    const client = this.knex().client as PoolingClient;
    const connection = (await client.acquireConnection()) as TransactionalConnection;
    try {
      connection.exec('begin immediate');
      try {
        const row = preparedOn(connection, this.selectOne).get(id) as RawRow | undefined;
        const current = row ? this.fromRaw(row) : undefined;
        const next = current ? change(current) : undefined;
        if (next && next !== current) {
          written(next);
          preparedOn(connection, this.updateOne).run(...this.values(next, this.updated, true), id);
        }
        connection.exec('commit');
        return next;
      } catch (error) {
        if (connection.inTransaction) connection.exec('rollback');
        throw error;
      }
    } finally {
      await client.releaseConnection(connection);
    }
  }

  /**
   * `true` when the row was deleted. With `onlyAtVersions`, only a row stored at one of them (in
   * the same statement), else nothing is deleted. A row other rows still reference is not deleted:
   * the table's "still referenced" error (409).
   */
  delete(id: string, onlyAtVersions?: readonly number[]): Promise<boolean> {
    return guarded(this.orm, async () => {
      if (onlyAtVersions?.length === 0) return false;
      const query = this.knex()(this.table.table).where('id', id);
      if (onlyAtVersions !== undefined) void query.whereIn('version', [...onlyAtVersions]);
      try {
        return Number(await query.delete()) > 0;
      } catch (error) {
        if (isForeignKeyViolation(error)) throw this.table.stillReferenced(id);
        throw error;
      }
    });
  }

  /**
   * What to throw for a failed write: for a foreign key that does not hold, a ValidationError
   * naming each reference field whose row does not exist; anything else as it is.
   */
  private async refused(error: unknown, entity: E | undefined): Promise<unknown> {
    if (!isForeignKeyViolation(error) || entity === undefined || this.references.length === 0) return error;
    const props = this.table.toRow(entity) as unknown as Record<string, unknown>;
    const violations: FieldViolation[] = [];
    for (const column of this.references) {
      const value = props[column.prop];
      const target = column.spec?.references;
      if (typeof value !== 'string' || !target) continue;
      const found = await readOne(this.orm, `select id from ${target.table} where id = ?`, [value]);
      if (!found) violations.push({ field: column.name, message: `must name an existing ${target.target}` });
    }
    return violations.length > 0 ? new ValidationError(violations) : error;
  }

  /** The `where` of a list and its parameters; filters only on reference columns. */
  private whereOf(query: ListQuery<F>, postgres: boolean): { where: string; params: string[] } {
    const conditions: string[] = [];
    const params: string[] = [];
    if (query.q && this.searchColumn) {
      conditions.push(postgres ? `lower(${this.searchColumn}) like ? escape '!'` : `${this.searchColumn} glob ?`);
      params.push(postgres ? likeContains(query.q) : globContainsAnyCase(query.q));
    }
    for (const [field, id] of Object.entries(query.filters ?? {})) {
      const column = this.references.find((c) => c.name === field);
      if (!column) throw new Error(`${this.table.table}: ${field} is not a filter`);
      conditions.push(`${column.name} = ?`);
      params.push(id);
    }
    return { where: conditions.length > 0 ? `where ${conditions.join(' and ')}` : '', params };
  }

  /**
   * A count, then the page as a "deferred join": its ids come from the sort index alone — an
   * index-only scan even deep into the list — and only those rows are read. A plain
   * `select * … offset n` sorts the whole table once n is large. On SQLite both steps are one
   * prepared statement, and so on PostgreSQL for a page before DEEP_OFFSET or a filtered one; past
   * it the ids are read with the index walk enforced (see `readAllWalkingIndex`). Columns come from the table's
   * declaration, never from input.
   */
  list(query: ListQuery<F>): Promise<Page<E>> {
    return guarded(this.orm, async () => {
      const postgres = isPostgres(this.orm);
      const t = this.table.table;
      const { where, params } = this.whereOf(query, postgres);
      const counted = await readOne<{ total: number | string }>(
        this.orm,
        `select count(*) as total from ${t} ${where}`,
        params,
      );
      const total = Number(counted?.total ?? 0);
      const answer = (rows: RawRow[]): Page<E> => ({
        items: rows.map((row) => this.fromRaw(row)),
        total,
        page: query.page,
        perPage: query.perPage,
      });
      if (total <= offsetOf(query)) return answer([]);
      const orderings = this.orderBy.get(query.sort);
      if (!orderings) throw new Error(`${query.sort} is not a sortable field of ${t}`);
      const orderBy = query.order === 'desc' ? orderings.desc : orderings.asc;
      const pageIds = `select id from ${t} ${where} order by ${orderBy} limit ? offset ?`;
      const pageParams = [...params, query.perPage, offsetOf(query)];
      const filtered = Object.keys(query.filters ?? {}).length > 0;
      if (!postgres || filtered || offsetOf(query) < DEEP_OFFSET) {
        // One statement. `id in (page ids)` makes SQLite look each row up by key (a join would scan
        // the table); PostgreSQL walks the sort index by itself for a shallow page or a filtered one.
        return answer(
          await readAll<RawRow>(
            this.orm,
            `select ${this.selectList} from ${t} where id in (${pageIds}) order by ${orderBy}`,
            pageParams,
          ),
        );
      }
      // Deep on PostgreSQL, two statements: the ids by walking the index (enforced), then those rows by primary key.
      const ids = (await readAllWalkingIndex<{ id: string }>(this.orm, pageIds, pageParams)).map((r) => r.id);
      const position = new Map(ids.map((id, index) => [id, index]));
      const rows = await readAll<RawRow>(
        this.orm,
        `select ${this.selectList} from ${t} where id in (${ids.map(() => '?').join(', ')})`,
        ids,
      );
      rows.sort((a, b) => (position.get(a.id as string) ?? 0) - (position.get(b.id as string) ?? 0));
      return answer(rows);
    });
  }
}
