import type { Knex } from '@mikro-orm/knex';
import {
  addColumn,
  storedLiteral,
  columnsOf,
  createResourceTable,
  searchIndexName,
  searchIndexStatements,
  sortIndexes,
  uniqueIndexName,
  uniqueIndexStatement,
  type Column,
  type ColumnOf,
  type StoredDefault,
  type TableSpec,
} from './resourceTable.js';

/** A value a required field added later gives the rows stored before it, in the domain's form. */
export type { StoredDefault };
export { storedLiteral };

/**
 * A change of a resource's table from `before` to `after` (fields added and removed, a string
 * widened, the search column moved), as a migration states it: its own literal copies, so that
 * a later change of the resource cannot change what the migration does (ADR 0016).
 */
export interface TableChange {
  readonly before: TableSpec;
  readonly after: TableSpec;
  /**
   * By field (camel case): the value of each required field `after` adds, for the rows stored
   * before — in the domain's form (`'draft'`, `'0.00'`, `false`, `3`, an RFC 3339 time).
   */
  readonly defaults?: Readonly<Record<string, StoredDefault>>;
}

/** What a change does on one engine: its statements, and whether SQLite rebuilds the table. */
export interface TableChangeStatements {
  readonly statements: string[];
  /**
   * SQLite only: the table is rebuilt (copied into a new one), which must run with foreign keys
   * off, outside the migrator's transaction (see `tableChangeMigration`).
   */
  readonly rebuild: boolean;
}

const quoted = (name: string): string => `"${name}"`;

const fieldColumns = (spec: TableSpec): ColumnOf[] => columnsOf(spec).filter((c) => c.spec !== undefined);

const byName = (spec: TableSpec): Map<string, ColumnOf> => new Map(fieldColumns(spec).map((c) => [c.name, c]));

/** `string(80)`, `decimal(12,2)`, `ref(customers)`: a column's storage, as a message names it. */
function storage(column: Column): string {
  if (column.kind === 'decimal') return `decimal(${column.precision ?? 15},${column.scale ?? 0})`;
  if (column.kind === 'ref') return `ref(${column.references?.table ?? ''})`;
  return column.kind;
}

/** The width of a column stored as varchar whose width may change (string length, enum values). */
function width(column: Column): number | undefined {
  if (column.kind === 'string') return column.length ?? 200;
  if (column.kind === 'enum') return Math.max(1, ...(column.values ?? []).map((v) => v.length));
  return undefined;
}

/** The fields `after` adds and `before` had but `after` has not. */
export function changedFields(change: TableChange): { added: ColumnOf[]; removed: ColumnOf[]; kept: ColumnOf[] } {
  const before = byName(change.before);
  const after = byName(change.after);
  return {
    added: fieldColumns(change.after).filter((c) => !before.has(c.name)),
    removed: fieldColumns(change.before).filter((c) => !after.has(c.name)),
    kept: fieldColumns(change.after).filter((c) => before.has(c.name)),
  };
}

/**
 * The columns `after` makes unique that were not: kept ones that become `unique`, and added ones
 * (which a required field's default would give every stored row alike).
 */
export function madeUnique(change: TableChange): ColumnOf[] {
  const before = byName(change.before);
  return fieldColumns(change.after).filter((c) => c.spec?.unique === true && before.get(c.name)?.spec?.unique !== true);
}

/**
 * The query answering one value (`value`) that more than one stored row holds in `column`, with
 * how many hold it (`rows`); no row when the values are unique (nulls apart).
 */
export const duplicateQuery = (table: string, column: string): string =>
  `select ${quoted(column)} as value, count(*) as ${quoted('rows')} from ${quoted(table)} where ${quoted(column)} is not null group by ${quoted(column)} having count(*) > 1 limit 1`;

/**
 * Why no migration can turn `before` into `after` keeping the rows, one line per problem (empty when
 * one can): a kept field whose storage or optionality changed (remove it and add a new field
 * instead), and a required field added with no default for the rows stored before.
 */
export function tableChangeProblems(change: TableChange): string[] {
  const { before, after } = change;
  const problems: string[] = [];
  if (before.table !== after.table) problems.push(`${before.table}: cannot become ${after.table}`);
  if ((before.owned === true) !== (after.owned === true))
    problems.push(
      `${after.table}: it became ${after.owned ? 'owned' : 'not owned'}; the rows stored cannot be given owners by a migration — declare a new resource instead`,
    );
  const old = byName(before);
  const { added, kept } = changedFields(change);
  for (const column of kept) {
    const was = old.get(column.name)?.spec;
    const now = column.spec;
    if (!was || !now) continue;
    const subject = `${after.table}.${column.name}`;
    if (storage(was) !== storage(now))
      problems.push(
        `${subject}: its type changed (${storage(was)} → ${storage(now)}); the stored values cannot be converted by a migration — remove the field and add one under a new name`,
      );
    else if ((was.optional === true) !== (now.optional === true))
      problems.push(
        `${subject}: it became ${now.optional ? 'optional' : 'required'}; a migration only adds and removes fields — remove it and add one under a new name`,
      );
  }
  for (const column of added) {
    if (column.optional || backfillOf(change, column) !== undefined) continue;
    problems.push(
      `${after.table}.${column.name}: a new required field needs a value for the rows stored before it (--default ${column.name}=<value>)`,
    );
  }
  return problems;
}

/** What the rows stored before an added field get: the change's value for them, else the field's default. */
const backfillOf = (change: TableChange, column: ColumnOf): StoredDefault | undefined =>
  change.defaults?.[column.prop] ?? column.spec?.default;

/** Whether a kept column's default changed. */
const defaultChanged = (was: Column | undefined, now: Column | undefined): boolean => was?.default !== now?.default;

/**
 * The statements that add `column` in place (`alter table … add column`), `value` set on the rows
 * there; the column keeps the field's default (PostgreSQL sets it after the backfill when they differ).
 */
function addInPlace(knex: Knex, table: string, column: ColumnOf, value: StoredDefault | undefined, postgres: boolean) {
  const literal = value === undefined ? undefined : storedLiteral(column, value, postgres);
  const [add = ''] = knex.schema
    .alterTable(table, (t) => void addColumn(t, column, knex, literal))
    .toSQL()
    .map((s) => s.sql);
  const target = column.spec?.references;
  const statements: string[] = [];
  if (!target) statements.push(add);
  else if (postgres)
    statements.push(
      add,
      `alter table ${quoted(table)} add constraint ${quoted(`${table}_${column.name}_foreign`)} foreign key (${quoted(column.name)}) references ${quoted(target.table)} ("id") on delete restrict`,
    );
  // SQLite adds a reference only with its column (and only a nullable one: see `rebuilds`).
  else statements.push(`${add} references ${quoted(target.table)} ("id") on delete restrict`);
  if (target)
    statements.push(
      `create index ${quoted(`${table}_${column.name}_index`)} on ${quoted(table)} (${quoted(column.name)})`,
    );
  // PostgreSQL: the backfill served the rows already there; the column keeps the field's default, if any.
  const declared = column.spec?.default;
  if (literal !== undefined && postgres && value !== declared)
    statements.push(
      declared === undefined
        ? `alter table ${quoted(table)} alter column ${quoted(column.name)} drop default`
        : `alter table ${quoted(table)} alter column ${quoted(column.name)} set default ${storedLiteral(column, declared, true)}`,
    );
  return statements;
}

const sortIndexStatements = (spec: TableSpec, column: ColumnOf): string[] =>
  spec.sortable.includes(column.name)
    ? sortIndexes(spec, column.name).map(
        (index) => `create index ${quoted(index.name)} on ${quoted(spec.table)} (${index.columns})`,
      )
    : [];

/**
 * SQLite cannot drop a column in a foreign key, add one with a reference that is not null, nor
 * change a column's default; a change doing any of these (or adding a column whose rows get
 * another value than its default) rebuilds the table.
 */
function rebuilds(change: TableChange): boolean {
  const { added, removed, kept } = changedFields(change);
  const old = byName(change.before);
  return (
    removed.some((c) => c.kind === 'ref') ||
    added.some((c) => c.kind === 'ref' && !c.optional) ||
    added.some((c) => c.spec?.default !== undefined && backfillOf(change, c) !== c.spec.default) ||
    kept.some((c) => defaultChanged(old.get(c.name)?.spec, c.spec))
  );
}

/**
 * SQLite's table rebuild (https://sqlite.org/lang_altertable.html#otheralter): the new table made
 * under another name, the rows copied (an added field takes its default, or null), the old table
 * dropped, the new one renamed, its indexes made. Run with foreign keys off, then checked.
 */
function rebuild(knex: Knex, change: TableChange): string[] {
  const { after } = change;
  const staging = `${after.table}__rebuild`;
  const [create = '', ...indexes] = createResourceTable(knex, after);
  const before = byName(change.before);
  const columns = columnsOf(after);
  const values = columns.map((c) => {
    if (!c.spec || before.has(c.name)) return quoted(c.name);
    const value = backfillOf(change, c);
    return value === undefined ? 'null' : storedLiteral(c, value, false);
  });
  return [
    create.replace(/^create table `[^`]+`/, `create table ${quoted(staging)}`),
    `insert into ${quoted(staging)} (${columns.map((c) => quoted(c.name)).join(', ')}) select ${values.join(', ')} from ${quoted(after.table)}`,
    `drop table ${quoted(after.table)}`,
    `alter table ${quoted(staging)} rename to ${quoted(after.table)}`,
    ...indexes,
  ];
}

/**
 * The statements that change a resource's table from `before` to `after` with its rows kept, on the
 * engine of `knex`: removed fields dropped (with their indexes), widened columns widened
 * (PostgreSQL; SQLite does not bound a varchar), added fields added — a required one given its
 * default on the rows there — with their foreign keys and sort indexes, the unique indexes of
 * fields made unique created and those of fields no longer unique dropped, and the search index
 * moved. (A SQLite rebuild makes every index of `after`, the unique ones too.)
 * Throws what {@link tableChangeProblems} finds.
 */
export function changeResourceTable(knex: Knex, change: TableChange): TableChangeStatements {
  const problems = tableChangeProblems(change);
  if (problems.length > 0) throw new Error(problems.join('; '));
  const postgres = knex.client.dialect === 'postgresql';
  const { before, after } = change;
  const table = after.table;
  if (!postgres && rebuilds(change)) return { statements: rebuild(knex, change), rebuild: true };

  const { added, removed, kept } = changedFields(change);
  const statements: string[] = [];
  const searchMoved = before.search !== after.search;
  if (postgres && searchMoved && before.search)
    statements.push(`drop index if exists ${quoted(searchIndexName(before))}`);
  for (const column of removed) {
    // PostgreSQL drops a column's indexes and foreign key with it; SQLite refuses while an index names it.
    if (!postgres) {
      for (const index of before.sortable.includes(column.name) ? sortIndexes(before, column.name) : [])
        statements.push(`drop index if exists ${quoted(index.name)}`);
      if (column.spec?.unique) statements.push(`drop index if exists ${quoted(uniqueIndexName(table, column.name))}`);
    }
    statements.push(`alter table ${quoted(table)} drop column ${quoted(column.name)}`);
  }
  const old = byName(before);
  for (const column of kept) {
    const was = old.get(column.name)?.spec;
    const wide = column.spec ? width(column.spec) : undefined;
    if (postgres && was && wide !== undefined && width(was) !== wide)
      statements.push(`alter table ${quoted(table)} alter column ${quoted(column.name)} type varchar(${wide})`);
    if (was?.unique === true && column.spec?.unique !== true)
      statements.push(`drop index if exists ${quoted(uniqueIndexName(table, column.name))}`);
    // SQLite rebuilds the table for a changed default (see `rebuilds`).
    const declared = column.spec?.default;
    if (postgres && defaultChanged(was, column.spec))
      statements.push(
        `alter table ${quoted(table)} alter column ${quoted(column.name)} ${declared === undefined ? 'drop default' : `set default ${storedLiteral(column, declared, true)}`}`,
      );
  }
  for (const column of added) {
    statements.push(...addInPlace(knex, table, column, backfillOf(change, column), postgres));
    statements.push(...sortIndexStatements(after, column));
  }
  for (const column of madeUnique(change)) statements.push(uniqueIndexStatement(table, column.name));
  if (postgres && searchMoved) statements.push(...searchIndexStatements(after));
  return { statements, rebuild: false };
}

/**
 * Whether two specs make the same table: the same columns by name (in any order) with the same
 * storage, optionality, width, default and uniqueness, the same sort keys and the same search column. Facts
 * that make no difference to the table (enum values within the width, bounds) do not count.
 */
export function sameTable(a: TableSpec, b: TableSpec): boolean {
  const shape = (spec: TableSpec) =>
    JSON.stringify({
      table: spec.table,
      columns: fieldColumns(spec)
        .map((c) =>
          c.spec
            ? [
                c.name,
                storage(c.spec),
                c.optional,
                width(c.spec) ?? null,
                c.spec.default ?? null,
                c.spec.unique === true,
              ]
            : [c.name],
        )
        .sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
      sortable: [...spec.sortable].sort(),
      search: spec.search ?? null,
      owned: spec.owned === true,
    });
  return shape(a) === shape(b);
}
