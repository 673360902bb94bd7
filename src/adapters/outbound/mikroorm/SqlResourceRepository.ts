import { ForeignKeyConstraintViolationException } from '@mikro-orm/core';
import { formatUnits, unitsOf } from '../../../domain/shared/Decimal.js';
import type { StoredFile } from '../../../domain/shared/files.js';
import {
  NotUniqueError,
  ValidationError,
  type DomainError,
  type FieldViolation,
} from '../../../domain/shared/DomainError.js';
import { notUniqueMessage } from '../../../domain/shared/resourceErrors.js';
import { offsetOf, type ListQuery, type Page } from '../../../domain/shared/Page.js';
import type { Database } from './database.js';
import { guarded, uniqueViolationOf } from './errors.js';
import type { SqlExecutor, SqlParam, SqlStatements } from './sqlExecutor.js';
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

/**
 * From this offset on, PostgreSQL's planner may sort the whole table for a page rather than walk
 * the sort index, so there the walk is enforced (`readAllWalkingIndex`, a transaction of its
 * own); a shallower page is one prepared statement, which the planner answers from the index.
 */
const DEEP_OFFSET = 1000;

/** The column of a list's rows that carries the list's total (a name no declared column can take). */
const TOTAL = 'list_total_';

/**
 * Runs `read` on PostgreSQL with `enable_sort` off for its transaction alone (`set local`): with
 * default costs the planner prefers sorting the whole table for a deep `offset`, which grows with
 * the table; walking the (sort column, id) index costs the offset plus the page.
 */
function walkingIndex<T>(sql: SqlExecutor, read: (tx: SqlStatements) => Promise<T>): Promise<T> {
  return sql.transaction(async (tx) => {
    await tx.run('set local enable_sort = off');
    return read(tx);
  });
}

/** SQLite's and PostgreSQL's (23503) "a foreign key does not hold", by the drivers' codes (or the ORM's class). */
function isForeignKeyViolation(error: unknown): boolean {
  if (error instanceof ForeignKeyConstraintViolationException) return true;
  if (typeof error !== 'object' || error === null) return false;
  const code = 'code' in error ? String((error as { code: unknown }).code) : '';
  // SQLite (libsql) reports a row an `on delete restrict` key still points at as a trigger's refusal.
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === 'SQLITE_CONSTRAINT_TRIGGER';
}

/**
 * A column as a select reads it: by its name, but a PostgreSQL `date` as its text (`to_char`, whatever
 * the session's DateStyle) — the driver would make a Date of it at local midnight, whose day depends
 * on the process's time zone. (The conversion is this statement's own, never a process-wide type parser.)
 */
function selected(column: ColumnOf, postgres: boolean): string {
  return postgres && column.kind === 'date' ? `to_char(${column.name}, 'YYYY-MM-DD') as ${column.name}` : column.name;
}

/** A driver value as the props hold it. */
function fromDriver(column: ColumnOf, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (column.kind) {
    case 'decimal':
      return decimalFromDriver(value, column.spec?.scale ?? 0);
    case 'datetime':
      return new Date(value as Date | number | string);
    case 'date':
      return String(value);
    case 'boolean':
      return value === true || value === 1 || value === '1' || value === 't';
    case 'integer':
    case 'number':
    case 'version':
      return Number(value);
    case 'file':
      return fileFromDriver(value);
    default:
      return value;
  }
}

/** A stored file as its column holds it: JSON text (`{"key","size","content_type","sha256","uploaded_at"}`). */
export function fileToColumn(file: StoredFile): string {
  return JSON.stringify({
    key: file.key,
    size: file.size,
    content_type: file.contentType,
    sha256: file.sha256,
    uploaded_at: file.uploadedAt.toISOString(),
  });
}

/** A file column's JSON (text, or the object a `jsonb` column gives) read back into a stored file. */
export function fileFromDriver(value: unknown): StoredFile {
  const json = (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>;
  return {
    key: String(json.key),
    size: Number(json.size),
    contentType: String(json.content_type),
    sha256: String(json.sha256),
    uploadedAt: new Date(String(json.uploaded_at)),
  };
}

/**
 * A decimal as the driver gives it: PostgreSQL's `numeric` as text, SQLite's count of the smallest
 * unit as a number (exact: a decimal has at most 15 digits) — either way the canonical text.
 */
export function decimalFromDriver(value: unknown, scale: number): string {
  if (typeof value === 'number' || typeof value === 'bigint') return formatUnits(value, scale);
  const units = unitsOf(String(value), scale);
  if (units === undefined) throw new Error(`not a decimal of scale ${scale}: ${String(value)}`);
  return formatUnits(units, scale);
}

/**
 * A props value as a statement binds it (the executor converts dates and booleans for SQLite); a
 * decimal is bound as its text on PostgreSQL and as its count of the smallest unit on SQLite.
 */
function toParam(column: ColumnOf, value: unknown, sqlite: boolean): SqlParam {
  if (value === undefined || value === null) return null;
  if (column.kind === 'file') return fileToColumn(value as StoredFile);
  if (column.kind === 'decimal' && sqlite) {
    const units = unitsOf(value as string, column.spec?.scale ?? 0);
    if (units === undefined) throw new Error(`${column.name}: not a decimal of its scale: ${String(value)}`);
    return Number(units);
  }
  return value as SqlParam;
}

/**
 * The repository of any resource stored by one table (see ADR 0016), declared by its
 * `ResourceTable`: prepared fast reads by id, a row-locked read-modify-write update (ADR 0013),
 * a conditional delete, and lists paged as a count plus a deferred join over the sort index.
 * Every call maps "unreachable"/"storage full" to 503 (`guarded`), a foreign key that does not
 * hold on write to a ValidationError on the reference field, a unique index's refusal of a write
 * (a `unique` field's, or any index added by hand) to the table's "not unique" error (409) naming
 * the fields its columns are, and a delete of a row still referenced to the table's "still
 * referenced" error.
 */
export class SqlResourceRepository<E, P extends StoredProps, F extends string> {
  private readonly columns: ColumnOf[];
  /** The columns as a select reads them (a PostgreSQL `date` as its `YYYY-MM-DD` text: see `selected`). */
  private readonly selectList: string;
  /** The columns by name: what an insert writes, and what a select of already-selected rows reads. */
  private readonly columnList: string;
  private readonly selectOne: string;
  /** The read of an update: on PostgreSQL it takes the row's write lock (ADR 0013). */
  private readonly lockOne: string;
  /** The same reads of one owner's row (an owned table), another owner's answered as no row. */
  private readonly selectOwn: string;
  private readonly lockOwn: string;
  private readonly insertOne: string;
  private readonly updateOne: string;
  /** Columns an update writes: all but id and created_at. */
  private readonly updated: ColumnOf[];
  private readonly references: ColumnOf[];
  private readonly searchColumn: string | undefined;
  private readonly orderBy: ReadonlyMap<string, { readonly asc: string; readonly desc: string }>;

  private readonly sql: SqlExecutor;

  constructor(
    private readonly database: Database,
    private readonly table: ResourceTable<E, P, F>,
  ) {
    this.sql = database.sql;
    this.columns = columnsOf(table);
    // Every sortable field's `order by`, worked out (and checked) once.
    this.orderBy = new Map(
      table.sortable.map((field) => [
        field,
        { asc: orderByOf(table, field, false), desc: orderByOf(table, field, true) },
      ]),
    );
    const t = table.table;
    const postgres = database.sql.dialect === 'postgresql';
    this.selectList = this.columns.map((c) => selected(c, postgres)).join(', ');
    this.columnList = this.columns.map((c) => c.name).join(', ');
    this.selectOne = `select ${this.selectList} from ${t} where id = ?`;
    // PostgreSQL: the row lock; SQLite has none, and its transaction holds the write lock already.
    this.lockOne = database.sql.dialect === 'postgresql' ? `${this.selectOne} for update` : this.selectOne;
    this.selectOwn = `${this.selectOne} and owner_id = ?`;
    this.lockOwn = database.sql.dialect === 'postgresql' ? `${this.selectOwn} for update` : this.selectOwn;
    this.insertOne = `insert into ${t} (${this.columnList}) values (${this.columns.map(() => '?').join(', ')})`;
    this.updated = this.columns.filter((c) => c.name !== 'id' && c.name !== 'created_at');
    this.updateOne = `update ${t} set ${this.updated.map((c) => `${c.name} = ?`).join(', ')} where id = ?`;
    this.references = this.columns.filter((c) => c.kind === 'ref');
    this.searchColumn = table.search === undefined ? undefined : snakeCase(table.search);
  }

  private fromRaw(row: RawRow): E {
    const props: Record<string, unknown> = {};
    for (const column of this.columns) props[column.prop] = fromDriver(column, row[column.name]);
    return this.table.fromRow(props as unknown as P);
  }

  private values(entity: E, columns: readonly ColumnOf[]): SqlParam[] {
    const props = this.table.toRow(entity) as unknown as Record<string, unknown>;
    const sqlite = this.sql.dialect !== 'postgresql';
    return columns.map((c) => toParam(c, props[c.prop], sqlite));
  }

  add(entity: E): Promise<void> {
    return guarded(this.database.orm, async () => {
      try {
        await this.sql.run(this.insertOne, this.values(entity, this.columns));
      } catch (error) {
        throw await this.refused(error, entity);
      }
    });
  }

  /** `owner` as a statement's parameters: none without one; on a table that is not owned, a programming error. */
  private ownerParams(owner: string | undefined): string[] {
    if (owner === undefined) return [];
    if (!this.table.owned) throw new Error(`${this.table.table}: rows have no owner`);
    return [owner];
  }

  /** The hot read: one prepared statement, no entity hydration (it is mapped to the domain anyway). */
  findById(id: string, owner?: string): Promise<E | undefined> {
    return guarded(this.database.orm, async () => {
      const mine = this.ownerParams(owner);
      const row = await this.sql.one<RawRow>(mine.length > 0 ? this.selectOwn : this.selectOne, [id, ...mine]);
      return row ? this.fromRaw(row) : undefined;
    });
  }

  /**
   * The rows with these ids (an unknown id is left out), in one statement whatever their number:
   * the ids go as one JSON array parameter, so the statement's text never changes.
   */
  findByIds(ids: readonly string[], owner?: string): Promise<E[]> {
    return guarded(this.database.orm, async () => {
      if (ids.length === 0) return [];
      const mine = this.ownerParams(owner);
      const rows = await this.sql.all<RawRow>(
        `select ${this.selectList} from ${this.table.table} where id in ${this.jsonList()}${mine.length > 0 ? ' and owner_id = ?' : ''}`,
        [JSON.stringify([...new Set(ids)]), ...mine],
      );
      return rows.map((row) => this.fromRaw(row));
    });
  }

  /** `(…)` reading a JSON array of texts given as one parameter, in the engine's own function. */
  private jsonList(): string {
    return this.sql.dialect === 'postgresql'
      ? '(select jsonb_array_elements_text(?::jsonb))'
      : '(select value from json_each(?))';
  }

  /**
   * For each of `ids`, the page of rows whose reference `field` (snake case) names it — every id
   * gets a page, empty when nothing names it — sorted and paged as `list` pages, searched and
   * filtered by the rest of `query`. Two statements whatever the number of ids: the counts, then
   * every page at once, numbered per id by a window function in the list's own order.
   */
  listByReference(field: string, ids: readonly string[], query: ListQuery<F>): Promise<Map<string, Page<E>>> {
    return guarded(this.database.orm, async () => {
      const column = this.references.find((c) => c.name === field);
      if (!column) throw new Error(`${this.table.table}: ${field} is not a reference`);
      const unique = [...new Set(ids)];
      const totals = new Map<string, number>();
      const items = new Map<string, E[]>(unique.map((id) => [id, []]));
      const pages = () =>
        new Map<string, Page<E>>(
          unique.map((id) => [
            id,
            { items: items.get(id) ?? [], total: totals.get(id) ?? 0, page: query.page, perPage: query.perPage },
          ]),
        );
      if (unique.length === 0) return pages();
      const postgres = this.sql.dialect === 'postgresql';
      const t = this.table.table;
      const c = column.name;
      const { where, params } = this.whereOf(query, postgres);
      const condition = `${where === '' ? 'where' : `${where} and`} ${c} in ${this.jsonList()}`;
      const conditionParams = [...params, JSON.stringify(unique)];
      const counts = await this.sql.all<{ parent: string; total: number | string }>(
        `select ${c} as parent, count(*) as total from ${t} ${condition} group by ${c}`,
        conditionParams,
      );
      const orderings = this.orderBy.get(query.sort);
      if (!orderings) throw new Error(`${query.sort} is not a sortable field of ${t}`);
      const orderBy = query.order === 'desc' ? orderings.desc : orderings.asc;
      const offset = offsetOf(query);
      const rows = counts.some((count) => Number(count.total) > offset)
        ? await this.sql.all<RawRow>(
            `select ${this.columnList} from (
  select ${this.selectList}, row_number() over (partition by ${c} order by ${orderBy}) as position
  from ${t} ${condition}
) ranked where position > ? and position <= ? order by ${c}, position`,
            [...conditionParams, offset, offset + query.perPage],
          )
        : [];
      for (const count of counts) totals.set(count.parent, Number(count.total));
      for (const row of rows) items.get(row[c] as string)?.push(this.fromRaw(row));
      return pages();
    });
  }

  /**
   * Applies `change` to the stored row and answers what is stored after it; `undefined` for an
   * unknown id. `change` runs while the row's write lock is held (ADR 0013).
   */
  update(id: string, change: (current: E) => E, owner?: string): Promise<E | undefined> {
    return guarded(this.database.orm, async () => {
      let next: E | undefined;
      const mine = this.ownerParams(owner);
      try {
        return await this.sql.transaction(async (tx) => {
          const row = await tx.one<RawRow>(mine.length > 0 ? this.lockOwn : this.lockOne, [id, ...mine]);
          if (row === undefined) return undefined;
          const current = this.fromRaw(row);
          next = change(current);
          if (next !== current) await tx.run(this.updateOne, [...this.values(next, this.updated), id]);
          return next;
        });
      } catch (error) {
        throw await this.refused(error, next);
      }
    });
  }

  /**
   * `true` when the row was deleted. With `onlyAtVersions`, only a row stored at one of them (in
   * the same statement), else nothing is deleted. A row other rows still reference is not deleted:
   * the table's "still referenced" error (409).
   */
  delete(id: string, onlyAtVersions?: readonly number[], owner?: string): Promise<boolean> {
    return guarded(this.database.orm, async () => {
      if (onlyAtVersions?.length === 0) return false;
      const versions =
        onlyAtVersions === undefined ? '' : ` and version in (${onlyAtVersions.map(() => '?').join(', ')})`;
      const mine = this.ownerParams(owner);
      try {
        return (
          (await this.sql.run(
            `delete from ${this.table.table} where id = ?${versions}${mine.length > 0 ? ' and owner_id = ?' : ''}`,
            [id, ...(onlyAtVersions ?? []), ...mine],
          )) > 0
        );
      } catch (error) {
        if (isForeignKeyViolation(error)) throw this.table.stillReferenced(id);
        throw error;
      }
    });
  }

  /**
   * What to throw for a failed write: for a unique index's refusal, the 409 naming its fields; for
   * a foreign key that does not hold, a ValidationError naming each reference field whose row does
   * not exist; anything else as it is.
   */
  private async refused(error: unknown, entity: E | undefined): Promise<unknown> {
    const unique = uniqueViolationOf(error);
    if (unique) return this.notUnique(unique);
    if (!isForeignKeyViolation(error) || entity === undefined || this.references.length === 0) return error;
    const props = this.table.toRow(entity) as unknown as Record<string, unknown>;
    const violations: FieldViolation[] = [];
    for (const column of this.references) {
      const value = props[column.prop];
      const target = column.spec?.references;
      if (typeof value !== 'string' || !target) continue;
      const found = await this.sql.one(`select id from ${target.table} where id = ?`, [value]);
      if (!found) violations.push({ field: column.name, message: `must name an existing ${target.target}` });
    }
    return violations.length > 0 ? new ValidationError(violations) : error;
  }

  /**
   * The 409 of a unique index's refusal, naming the fields (snake case) whose columns the driver's
   * report names — or, where it names only the index (one on an expression), the columns its
   * definition names. With none found it names no field, and is still a 409.
   */
  private async notUnique(violation: { readonly names: string; readonly index?: string }): Promise<DomainError> {
    let fields = this.columnsNamedIn(violation.names);
    if (fields.length === 0 && violation.index !== undefined) {
      const definition = await this.sql.one<{ definition: string | null }>(
        this.sql.dialect === 'postgresql'
          ? 'select indexdef as definition from pg_indexes where indexname = ?'
          : "select sql as definition from sqlite_master where type = 'index' and name = ?",
        [violation.index],
      );
      fields = this.columnsNamedIn(definition?.definition ?? '');
    }
    return (
      this.table.notUnique?.(fields) ??
      new NotUniqueError(fields.map((field) => ({ field, message: notUniqueMessage('row') })))
    );
  }

  /** The field columns `text` names as identifiers (`books.isbn`, `(isbn)`, `lower((isbn)::text)`), in table order. */
  private columnsNamedIn(text: string): string[] {
    return this.columns
      .filter((c) => c.spec !== undefined && new RegExp(`(^|[^A-Za-z0-9_])${c.name}([^A-Za-z0-9_]|$)`).test(text))
      .map((c) => c.name);
  }

  /** The `where` of a list and its parameters; filters only on reference columns, and the owner's rows. */
  private whereOf(query: ListQuery<F>, postgres: boolean): { where: string; params: string[] } {
    const conditions: string[] = [];
    const params: string[] = this.ownerParams(query.owner);
    // First, as the owner's sort indexes lead with it.
    if (params.length > 0) conditions.push('owner_id = ?');
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
   * The page as a "deferred join", with its total: the page's ids come from the sort index alone —
   * an index-only scan even deep into the list — and only those rows are read. A plain
   * `select * … offset n` sorts the whole table once n is large. On SQLite, and on PostgreSQL for a
   * page before DEEP_OFFSET or a filtered one, this is one prepared statement whose rows also carry
   * the total, counted by an uncorrelated subquery (run once); only a page with no rows — past the
   * end, or an empty list — asks for the count on its own. Past DEEP_OFFSET on PostgreSQL the count
   * comes first, then the ids are read with the index walk enforced (see `readAllWalkingIndex`).
   * Columns come from the table's declaration, never from input.
   */
  list(query: ListQuery<F>): Promise<Page<E>> {
    return guarded(this.database.orm, async () => {
      const postgres = this.sql.dialect === 'postgresql';
      const t = this.table.table;
      const { where, params } = this.whereOf(query, postgres);
      const countOf = `select count(*) as total from ${t} ${where}`;
      const counted = async (): Promise<number> =>
        Number((await this.sql.one<{ total: number | string }>(countOf, params))?.total ?? 0);
      const answer = (rows: RawRow[], total: number): Page<E> => ({
        items: rows.map((row) => this.fromRaw(row)),
        total,
        page: query.page,
        perPage: query.perPage,
      });
      const orderings = this.orderBy.get(query.sort);
      if (!orderings) throw new Error(`${query.sort} is not a sortable field of ${t}`);
      const orderBy = query.order === 'desc' ? orderings.desc : orderings.asc;
      const pageIds = `select id from ${t} ${where} order by ${orderBy} limit ? offset ?`;
      const pageParams = [...params, query.perPage, offsetOf(query)];
      const filtered = Object.keys(query.filters ?? {}).length > 0 || query.owner !== undefined;
      if (!postgres || filtered || offsetOf(query) < DEEP_OFFSET) {
        // One statement. `id in (page ids)` makes SQLite look each row up by key (a join would scan
        // the table); PostgreSQL walks the sort index by itself for a shallow page or a filtered one.
        const rows = await this.sql.all<RawRow>(
          `select ${this.selectList}, (${countOf}) as ${TOTAL} from ${t} where id in (${pageIds}) order by ${orderBy}`,
          [...params, ...pageParams],
        );
        return rows.length > 0 ? answer(rows, Number(rows[0]![TOTAL])) : answer([], await counted());
      }
      const total = await counted();
      if (total <= offsetOf(query)) return answer([], total);
      // Deep on PostgreSQL, two statements: the ids by walking the index (enforced), then those rows by primary key.
      const ids = (await walkingIndex(this.sql, (tx) => tx.all<{ id: string }>(pageIds, pageParams))).map((r) => r.id);
      const position = new Map(ids.map((id, index) => [id, index]));
      const rows = await this.sql.all<RawRow>(
        `select ${this.selectList} from ${t} where id in (${ids.map(() => '?').join(', ')})`,
        ids,
      );
      rows.sort((a, b) => (position.get(a.id as string) ?? 0) - (position.get(b.id as string) ?? 0));
      return answer(rows, total);
    });
  }
}
