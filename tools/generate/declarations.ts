import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { migrationFileNames } from '../../src/adapters/outbound/mikroorm/migrationFiles.js';
import { changedFields, type TableChange } from '../../src/adapters/outbound/mikroorm/resourceTableChange.js';
import { storedDefaultOf, type Column, type TableSpec } from '../../src/adapters/outbound/mikroorm/resourceTable.js';
import type { Range } from '../../src/domain/shared/fieldRules.js';
import {
  field as fields,
  GB,
  snakeCase,
  type FieldDeclaration,
  type FieldDeclarations,
  type ResourceDeclaration,
} from '../../src/domain/shared/resource.js';
import { DEFAULT_BOUNDS, namesOf, type Bounds, type FieldModel, type ResourceModel } from './model.js';
import { DOMAIN_DIR, MIGRATIONS_DIR } from './project.js';

/**
 * What `generate field` and `generate migration` read back from a project: the resources'
 * declarations (the domain's field lists) and what the migrations so far make of each table.
 */

const isDeclaration = (value: unknown): value is ResourceDeclaration =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as ResourceDeclaration).name === 'string' &&
  typeof (value as ResourceDeclaration).plural === 'string' &&
  typeof (value as ResourceDeclaration).fields === 'object' &&
  Array.isArray((value as ResourceDeclaration).sortFields);

/** The path of a resource's entity, which holds its declaration: `src/domain/<snake>/<Pascal>.ts`. */
export const entityPath = (snake: string): string => `${DOMAIN_DIR}/${snake}/${namesOf(snake).pascal}.ts`;

/** The declaration `src/domain/<snake>/<Pascal>.ts` exports, or `undefined` (a resource not declared, like `user`). */
export async function loadDeclaration(root: string, snake: string): Promise<ResourceDeclaration | undefined> {
  const path = join(root, entityPath(snake));
  if (!existsSync(path)) return undefined;
  const module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  return Object.values(module).find((value) => isDeclaration(value) && value.name === snake) as
    ResourceDeclaration | undefined;
}

/** A decimal's or number's bounds, as the model keeps them (numbers; the exclusive flags only when set). */
function boundsOfRange(range: Range<number | string>): Bounds {
  return {
    ...(range.min !== undefined ? { min: Number(range.min) } : {}),
    ...(range.minExclusive ? { minExclusive: true } : {}),
    ...(range.max !== undefined ? { max: Number(range.max) } : {}),
    ...(range.maxExclusive ? { maxExclusive: true } : {}),
  };
}

/** A declared field as the generator's model: the same facts `name:type` would have given. */
export function fieldModelOf(camel: string, declaration: FieldDeclaration): FieldModel {
  const facts = declaration.rule.facts;
  const bounds: Bounds =
    facts.kind === 'text'
      ? { min: facts.length.min, max: facts.length.max }
      : facts.kind === 'integer'
        ? { min: facts.range.min, max: facts.range.max }
        : facts.kind === 'number' || facts.kind === 'decimal'
          ? boundsOfRange(facts.range)
          : {};
  return {
    name: snakeCase(camel),
    camel,
    type: declaration.type,
    optional: declaration.nullable,
    bounds,
    ...(declaration.values ? { values: [...declaration.values] } : {}),
    ...(declaration.precision !== undefined ? { precision: declaration.precision, scale: declaration.scale ?? 0 } : {}),
    ...(declaration.references ? { ref: namesOf(declaration.references.singular) } : {}),
    ...(declaration.types ? { types: [...declaration.types] } : {}),
    ...(declaration.maxBytes !== undefined ? { maxBytes: declaration.maxBytes } : {}),
    sortable: declaration.sortable,
    ...flagsOf(declaration),
  };
}

/** A declared field's flags and default as the model keeps them (each only when set). */
function flagsOf(declaration: FieldDeclaration): Pick<FieldModel, 'unique' | 'readonly' | 'defaultValue'> {
  const value = declaration.defaultValue as unknown;
  return {
    ...(declaration.isUnique ? { unique: true } : {}),
    // A file field is read-only by its kind, never by a flag.
    ...(declaration.isReadonly && declaration.type !== 'file' ? { readonly: true } : {}),
    ...(value !== undefined && value !== null ? { defaultValue: storedDefaultOf(value) } : {}),
  };
}

/**
 * A field as a table states it (a column of a migration's spec): its type, optionality, width,
 * values, digits and reference; bounds the table does not keep are the type's defaults.
 */
export function fieldModelOfColumn(camel: string, column: Column): FieldModel {
  const bounds: Bounds = { ...(DEFAULT_BOUNDS[column.kind] ?? {}) };
  if (column.kind === 'string') bounds.max = column.length ?? 200;
  return {
    name: snakeCase(camel),
    camel,
    type: column.kind,
    optional: column.optional === true,
    bounds,
    ...(column.values ? { values: [...column.values] } : {}),
    ...(column.precision !== undefined ? { precision: column.precision, scale: column.scale ?? 0 } : {}),
    ...(column.references ? { ref: namesOf(column.references.target.replace(/ /g, '_')) } : {}),
    sortable: column.kind !== 'text' && column.kind !== 'file',
    ...(column.unique ? { unique: true } : {}),
    ...(column.default !== undefined ? { defaultValue: column.default } : {}),
  };
}

/** A declared resource as the generator's model (its create migration's stamp is not known here: empty). */
export function modelOfDeclaration<F extends FieldDeclarations>(declaration: ResourceDeclaration<F>): ResourceModel {
  const fieldModels = Object.entries(declaration.fields as FieldDeclarations).map(([camel, f]) =>
    fieldModelOf(camel, f),
  );
  const search = fieldModels.find((f) => f.camel === declaration.search);
  return {
    names: namesOf(declaration.name),
    fields: fieldModels,
    migrationStamp: '',
    ...(search ? { search } : {}),
    ...(declaration.owned ? { owned: true } : {}),
    ...(declaration.cached ? { cached: true } : {}),
  };
}

/** A model's field as the domain declares it (what its declaration line says), to read values with its rule. */
export function declarationOfField(f: FieldModel): FieldDeclaration {
  const range = {
    ...(f.bounds.min !== undefined ? { min: f.bounds.min } : {}),
    ...(f.bounds.minExclusive ? { minExclusive: true } : {}),
    ...(f.bounds.max !== undefined ? { max: f.bounds.max } : {}),
    ...(f.bounds.maxExclusive ? { maxExclusive: true } : {}),
  };
  const declared: FieldDeclaration = {
    string: () => fields.string(f.bounds.min, f.bounds.max),
    text: () => fields.text(f.bounds.min, f.bounds.max),
    integer: () => fields.integer(f.bounds.min, f.bounds.max),
    number: () => fields.number(range),
    decimal: () => fields.decimal(f.precision ?? 15, f.scale ?? 0, range),
    boolean: () => fields.boolean(),
    datetime: () => fields.datetime(),
    date: () => fields.date(),
    email: () => fields.email(),
    uuid: () => fields.uuid(),
    enum: () => fields.enum(f.values ?? []),
    ref: () => fields.ref(f.ref?.snake ?? '', f.ref?.pluralSnake ?? ''),
    // A table keeps no types or size (a migration's column): any type, up to a gigabyte, stands in.
    file: () => fields.file(f.types ?? ['application/octet-stream'], f.maxBytes ?? GB),
  }[f.type]();
  let flagged = f.optional ? declared.optional() : declared;
  if (f.unique) flagged = flagged.unique();
  if (f.readonly) flagged = flagged.readonly();
  if (f.defaultValue !== undefined)
    flagged = flagged.default(f.type === 'datetime' ? new Date(String(f.defaultValue)) : f.defaultValue);
  return flagged;
}

/** What a migration class says it makes: a table it creates, or a change of one. */
interface TableMigration {
  readonly creates?: TableSpec;
  readonly change?: TableChange;
}

/** One migration file: its name and what it says it does to resource tables. */
export interface MigrationRecord {
  readonly name: string;
  readonly creates: TableSpec[];
  readonly changes: TableChange[];
}

/**
 * Every migration of the project, in the order the database applies them (legacy ones by their
 * counter, then by time: src/adapters/outbound/mikroorm/migrationFiles.ts), with the tables each
 * creates and changes.
 */
export async function loadMigrations(root: string): Promise<MigrationRecord[]> {
  const dir = join(root, MIGRATIONS_DIR);
  const records: MigrationRecord[] = [];
  for (const { name } of migrationFileNames(dir, 'ts')) {
    const module = (await import(pathToFileURL(join(dir, `${name}.ts`)).href)) as Record<string, unknown>;
    const classes = Object.values(module).filter((value): value is TableMigration => typeof value === 'function');
    records.push({
      name,
      creates: classes.flatMap((c) => (c.creates ? [c.creates] : [])),
      changes: classes.flatMap((c) => (c.change ? [c.change] : [])),
    });
  }
  return records;
}

const TIMESTAMPS = ['created_at', 'updated_at'];

/**
 * `table` with what `change` does applied: the fields it adds added, the ones it removes removed,
 * the ones it restates restated, the search moved if it moves it — and every other column kept. A
 * change states the whole table before and after; applied as a difference, two changes made on two
 * branches (each not knowing the other's field) both count after a merge, as they do on the database.
 */
export function applyChange(table: TableSpec, change: TableChange): TableSpec {
  const { added, removed, kept } = changedFields(change);
  const columns: Record<string, Column> = { ...table.columns };
  for (const c of removed) delete columns[c.prop];
  for (const c of [...kept, ...added])
    if (c.spec && JSON.stringify(change.before.columns[c.prop]) !== JSON.stringify(c.spec)) columns[c.prop] = c.spec;
  const gone = new Set(removed.map((c) => c.name));
  const sortable = [
    ...table.sortable.filter((name) => !gone.has(name) && !TIMESTAMPS.includes(name)),
    ...added.filter((c) => change.after.sortable.includes(c.name)).map((c) => c.name),
    ...TIMESTAMPS.filter((name) => table.sortable.includes(name)),
  ];
  const search = change.before.search !== change.after.search ? change.after.search : table.search;
  return { table: table.table, columns, sortable, ...(search !== undefined ? { search } : {}) };
}

/** Each resource table as the migrations so far leave it (by table name), each change applied as a difference. */
export function tablesAfter(migrations: readonly MigrationRecord[]): Map<string, TableSpec> {
  const tables = new Map<string, TableSpec>();
  for (const migration of migrations) {
    for (const spec of migration.creates) tables.set(spec.table, spec);
    for (const change of migration.changes) {
      const current = tables.get(change.after.table);
      tables.set(change.after.table, current ? applyChange(current, change) : change.after);
    }
  }
  return tables;
}
