import type { ResourceErrors } from '../../../domain/shared/resourceErrors.js';
import type { Knex } from '@mikro-orm/knex';
import type { DomainError } from '../../../domain/shared/DomainError.js';
import type {
  FieldDeclaration,
  FieldDeclarations,
  FieldType,
  PropsOf,
  ResourceDeclaration,
  SortFieldOf,
} from '../../../domain/shared/resource.js';
import { snakeCase } from '../../../domain/shared/resource.js';
import { unitsOf } from '../../../domain/shared/Decimal.js';

/** How a resource field is stored: by its field type (README: Add a resource). */
export type ColumnKind = FieldType;

/** A column's default, in the domain's form (`'draft'`, `'0.00'`, `false`, `3`, an RFC 3339 time, `'2026-01-31'`). */
export type StoredDefault = string | number | boolean;

/** One field's column. Its name is the field's name in snake case (`dueAt` → `due_at`). */
export interface Column {
  readonly kind: ColumnKind;
  /** Nullable; an optional sortable column sorts with nulls last in both directions. */
  readonly optional?: boolean;
  /** `string`: the longest value (default 200). */
  readonly length?: number;
  /** `enum`: the allowed values (the column is as wide as the longest). */
  readonly values?: readonly string[];
  /**
   * `decimal`: its digits in all and after the point. PostgreSQL stores `numeric(precision, scale)`;
   * SQLite a 64-bit integer count of the smallest unit (`12.50` at scale 2 is 1250), exact and sorted
   * numerically on both.
   */
  readonly precision?: number;
  readonly scale?: number;
  /** `ref`: the referenced table (its `id`) and the resource's name in messages (`must name an existing product`). */
  readonly references?: { readonly table: string; readonly target: string };
  /**
   * No two rows hold one value: a unique index, `uniqueIndexName`. An optional column may be null
   * in any number of rows (both engines count nulls as distinct).
   */
  readonly unique?: boolean;
  /** The field's default: what a row inserted without the column holds (the repository always names it). */
  readonly default?: StoredDefault;
}

/** The props every stored resource has besides its own fields. */
export interface StoredProps {
  readonly id: string;
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly ownerId?: string;
}

/** A resource's own fields (props minus id, version and the timestamps). */
export type FieldsOf<P> = Exclude<keyof P & string, keyof StoredProps>;

/**
 * A resource's table, which is all a migration needs: its name, its fields' columns (in order,
 * between `id` and `version`), the sortable fields (snake case; `created_at`/`updated_at` too),
 * each with a `(column, id)` index, and the search column. A migration states its own literal
 * copy, so that a later change of the resource cannot change what an old migration creates.
 */
export interface TableSpec {
  readonly table: string;
  readonly columns: Readonly<Record<string, Column>>;
  readonly sortable: readonly string[];
  /** The field (camel case) searched by `q`: case-insensitive "contains". */
  readonly search?: string;
  /**
   * Each row has its owner (`owner_id`, no foreign key: a user's deletion keeps their rows), and
   * every sort index has a twin led by `owner_id`, so one owner's page is one index range too.
   */
  readonly owned?: boolean;
}

/**
 * A resource's table as its repository sees it: the spec, typed by the resource's props, plus
 * its one row mapper (props ↔ aggregate) and the error for deleting a row still referenced.
 */
export interface ResourceTable<E, P extends StoredProps, F extends string> extends TableSpec {
  readonly columns: { readonly [K in FieldsOf<P>]: Column };
  readonly sortable: readonly F[];
  readonly search?: FieldsOf<P>;
  fromRow(props: P): E;
  toRow(entity: E): P;
  /** 409: the row cannot be deleted while other rows reference it. */
  stillReferenced(id: string): DomainError;
  /** 409: another row holds these fields' values (snake case), where a unique index forbids it. */
  notUnique?(fields: readonly string[]): DomainError;
}

/** `dueAt` → `due_at`: a field's column, spelled as the domain spells its JSON name. */
export { snakeCase };

/** One column of the table, with the props key it maps to. */
export interface ColumnOf {
  readonly prop: string;
  readonly name: string;
  readonly kind: ColumnKind | 'id' | 'version' | 'owner';
  readonly optional: boolean;
  readonly spec?: Column;
}

/** Every column in table order: id, the fields, owner_id (an owned resource), version, created_at, updated_at. */
export function columnsOf(spec: TableSpec): ColumnOf[] {
  return [
    { prop: 'id', name: 'id', kind: 'id', optional: false },
    ...Object.entries(spec.columns).map(([prop, column]) => ({
      prop,
      name: snakeCase(prop),
      kind: column.kind,
      optional: column.optional === true,
      spec: column,
    })),
    ...(spec.owned ? [{ prop: 'ownerId', name: 'owner_id', kind: 'owner', optional: false } as const] : []),
    { prop: 'version', name: 'version', kind: 'version', optional: false },
    { prop: 'createdAt', name: 'created_at', kind: 'datetime', optional: false },
    { prop: 'updatedAt', name: 'updated_at', kind: 'datetime', optional: false },
  ];
}

/** The sortable column named `field`, or an error naming the table (a declaration mistake, found at start). */
export function sortColumn(spec: TableSpec, field: string): ColumnOf {
  const column = columnsOf(spec).find((c) => c.name === field);
  if (!column || column.kind === 'text' || column.kind === 'file' || column.kind === 'id' || column.kind === 'owner')
    throw new Error(`${spec.table}: ${field} is not a sortable column`);
  return column;
}

/**
 * The index serving a sort: `(column, id)`; for an optional column, one per direction (nulls last
 * both ways). An owned table has each again led by `owner_id` (`(owner_id, created_at, id)`…), so
 * the page of one owner's rows is one range of an index as well.
 */
export function sortIndexes(spec: TableSpec, field: string): { name: string; columns: string }[] {
  const column = sortColumn(spec, field);
  const c = column.name;
  const indexes = column.optional
    ? [
        { name: `${spec.table}_${c}_nulls_last_asc_index`, columns: `(${c} is null), ${c}, id` },
        { name: `${spec.table}_${c}_nulls_last_desc_index`, columns: `(${c} is not null), ${c}, id` },
      ]
    : [{ name: `${spec.table}_${c}_id_index`, columns: `${c}, id` }];
  if (!spec.owned) return indexes;
  return [
    ...indexes,
    ...indexes.map((index) => ({
      name: index.name.replace(`${spec.table}_`, `${spec.table}_owner_`),
      columns: `owner_id, ${index.columns}`,
    })),
  ];
}

/**
 * The `order by` of a sort: `c, id`; for an optional column nulls last in both directions —
 * `(c is null), c, id` and `(c is not null) desc, c desc, id desc` — each the exact expression
 * list of one of its `sortIndexes`, so both engines walk the index instead of sorting.
 */
export function orderByOf(spec: TableSpec, field: string, descending: boolean): string {
  const column = sortColumn(spec, field);
  const c = column.name;
  if (!column.optional) return descending ? `${c} desc, id desc` : `${c}, id`;
  return descending ? `(${c} is not null) desc, ${c} desc, id desc` : `(${c} is null), ${c}, id`;
}

/**
 * Adds a field's column to `t` (nothing for id, version and the timestamps), with its default
 * (`defaultLiteral`, SQL, when given: the value for the rows already there); answers its builder.
 */
export function addColumn(
  t: Knex.CreateTableBuilder,
  column: ColumnOf,
  knex: Knex,
  defaultLiteral?: string,
): Knex.ColumnBuilder | undefined {
  const spec = column.spec;
  if (!spec) return undefined;
  const postgres = knex.client.dialect === 'postgresql';
  const c = column.name;
  const longest = Math.max(1, ...(spec.values ?? []).map((value) => value.length));
  const builder = {
    string: () => t.string(c, spec.length ?? 200),
    text: () => t.text(c),
    integer: () => t.integer(c),
    number: () => t.double(c),
    decimal: () => (postgres ? t.decimal(c, spec.precision ?? 15, spec.scale ?? 0) : t.bigInteger(c)),
    boolean: () => t.boolean(c),
    datetime: () => t.timestamp(c, { useTz: true, precision: 3 }),
    // PostgreSQL a `date`; SQLite the `YYYY-MM-DD` text, which sorts as the days do.
    date: () => (postgres ? t.date(c) : t.string(c, 10)),
    email: () => t.string(c, 254),
    uuid: () => t.string(c, 36),
    enum: () => t.string(c, longest),
    ref: () => t.string(c, 36),
    // The stored file as JSON text: `{"key","size","content_type","sha256","uploaded_at"}`.
    file: () => t.text(c),
  }[spec.kind]();
  const literal =
    defaultLiteral ?? (spec.default === undefined ? undefined : storedLiteral(column, spec.default, postgres));
  if (literal !== undefined) builder.defaultTo(knex.raw(literal));
  return column.optional ? builder.nullable() : builder.notNullable();
}

/** A value as a SQL literal in the column's stored form on this engine (a default, a backfill). */
export function storedLiteral(column: ColumnOf, value: StoredDefault, postgres: boolean): string {
  const text = (s: string) => `'${s.replace(/'/g, "''")}'`;
  switch (column.kind) {
    case 'integer':
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value))
        throw new Error(`${column.name}: not a number: ${value}`);
      return String(value);
    case 'boolean':
      if (typeof value !== 'boolean') throw new Error(`${column.name}: not a boolean: ${String(value)}`);
      return postgres ? String(value) : value ? '1' : '0';
    case 'decimal': {
      const units = unitsOf(String(value), column.spec?.scale ?? 0);
      if (units === undefined) throw new Error(`${column.name}: not a decimal: ${String(value)}`);
      return postgres ? text(String(value)) : units.toString();
    }
    case 'datetime': {
      const time = Date.parse(String(value));
      if (Number.isNaN(time)) throw new Error(`${column.name}: not a time: ${String(value)}`);
      // SQLite holds times as epoch milliseconds, as the ORM writes them.
      return postgres ? text(new Date(time).toISOString()) : String(time);
    }
    default:
      return text(String(value));
  }
}

/**
 * The statements that create a resource's table, one by one (SQLite runs one statement a query):
 * `id`, the fields, `version`, the timestamps; a foreign key (`on delete restrict`) and an index
 * per reference; the sort indexes of `sortIndexes`; and, on PostgreSQL, a trigram index for the
 * search column when the `pg_trgm` extension can be had (else search scans, as on SQLite).
 * A unique index per `unique` column (`uniqueIndexStatement`).
 * For products this is exactly what Migration0002Products creates.
 */
export function createResourceTable(knex: Knex, spec: TableSpec): string[] {
  const columns = columnsOf(spec);
  const postgres = knex.client.dialect === 'postgresql';
  const quoted = (name: string) => `"${name}"`;
  const statements = knex.schema
    .createTable(spec.table, (t) => {
      t.string('id', 36).primary();
      for (const column of columns) addColumn(t, column, knex);
      if (spec.owned) t.string('owner_id', 36).notNullable();
      t.integer('version').notNullable().defaultTo(1);
      t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable();
      t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable();
      for (const column of columns) {
        const target = column.spec?.references;
        if (!target) continue;
        t.foreign(column.name, `${spec.table}_${column.name}_foreign`)
          .references(`${target.table}.id`)
          .onDelete('RESTRICT');
        t.index([column.name], `${spec.table}_${column.name}_index`);
      }
      for (const field of spec.sortable) {
        const column = sortColumn(spec, field);
        if (!column.optional) t.index([column.name, 'id'], `${spec.table}_${column.name}_id_index`);
      }
    })
    .toSQL()
    .map((statement) => statement.sql);
  for (const field of spec.sortable) {
    // A required column's own `(column, id)` index is made with the table, above.
    const made = sortColumn(spec, field).optional ? 0 : 1;
    for (const index of sortIndexes(spec, field).slice(made)) {
      statements.push(`create index ${quoted(index.name)} on ${quoted(spec.table)} (${index.columns})`);
    }
  }
  for (const column of columns) if (column.spec?.unique) statements.push(uniqueIndexStatement(spec.table, column.name));
  if (postgres) statements.push(...searchIndexStatements(spec));
  return statements;
}

/** The unique index of a `unique` column: `<table>_<column>_unique`. */
export const uniqueIndexName = (table: string, column: string): string => `${table}_${column}_unique`;

/** The statement that makes a column's values unique (nulls apart), the same on both engines. */
export const uniqueIndexStatement = (table: string, column: string): string =>
  `create unique index "${uniqueIndexName(table, column)}" on "${table}" ("${column}")`;

/**
 * PostgreSQL's trigram index for the search column, when the `pg_trgm` extension can be had (else
 * search scans, as on SQLite); nothing for a table without search.
 */
export function searchIndexStatements(spec: TableSpec): string[] {
  if (!spec.search) return [];
  const c = snakeCase(spec.search);
  return [
    `do $$ begin
  create extension if not exists pg_trgm;
exception when others then
  raise notice 'pg_trgm is not available: ${spec.table} search will scan';
end $$;`,
    `do $$ begin
  if exists (select 1 from pg_extension where extname = 'pg_trgm') then
    execute 'create index ${searchIndexName(spec)} on ${spec.table} using gin (lower(${c}) gin_trgm_ops)';
  end if;
end $$;`,
  ];
}

/** The name of the search column's trigram index (PostgreSQL). */
export const searchIndexName = (spec: TableSpec): string =>
  spec.search ? `${spec.table}_${snakeCase(spec.search)}_trgm_index` : '';

/** A declared field's column: its kind, nullability, width, values or referenced table, and whether it is unique. */
export function columnOf(declaration: FieldDeclaration): Column {
  return {
    kind: declaration.type,
    ...(declaration.nullable ? { optional: true } : {}),
    ...(declaration.maxLength !== undefined ? { length: declaration.maxLength } : {}),
    ...(declaration.values ? { values: declaration.values } : {}),
    ...(declaration.precision !== undefined ? { precision: declaration.precision, scale: declaration.scale ?? 0 } : {}),
    ...(declaration.references
      ? {
          references: {
            table: declaration.references.plural,
            target: declaration.references.singular.replace(/_/g, ' '),
          },
        }
      : {}),
    ...(declaration.isUnique ? { unique: true } : {}),
    ...(declaration.defaultValue !== undefined && declaration.defaultValue !== null
      ? { default: storedDefaultOf(declaration.defaultValue) }
      : {}),
  };
}

/** A field's default in the form a table spec keeps it: an instant as RFC 3339 text, the rest as it is. */
export const storedDefaultOf = (value: unknown): StoredDefault =>
  value instanceof Date ? value.toISOString() : (value as StoredDefault);

/** A declared resource's table as a migration states it: its name, columns, sort keys and search field. */
export function tableSpecOf<F extends FieldDeclarations>(resource: ResourceDeclaration<F>): TableSpec {
  return {
    table: resource.plural,
    columns: Object.fromEntries(Object.entries(resource.fields).map(([key, f]) => [key, columnOf(f)])),
    sortable: resource.sortFields,
    ...(resource.search !== undefined ? { search: resource.search } : {}),
    ...(resource.owned ? { owned: true } : {}),
  };
}

/**
 * A declared resource's table as its repository sees it: the spec derived from the declaration,
 * rows read back as `Entity`, and the error for deleting a row still referenced.
 */
export function tableOf<F extends FieldDeclarations, E extends { toProps(): PropsOf<F> }>(
  Entity: { readonly declaration: ResourceDeclaration<F>; readonly errors: ResourceErrors } & (new (
    props: PropsOf<F>,
  ) => E),
  stillReferenced: (id: string) => DomainError = (id) => Entity.errors.stillReferenced(id),
): ResourceTable<E, PropsOf<F>, SortFieldOf<F>> {
  return {
    ...(tableSpecOf(Entity.declaration) as ResourceTable<E, PropsOf<F>, SortFieldOf<F>>),
    fromRow: (props) => new Entity(props),
    toRow: (entity) => entity.toProps(),
    stillReferenced,
    notUnique: (fields) => Entity.errors.notUnique(fields),
  };
}
