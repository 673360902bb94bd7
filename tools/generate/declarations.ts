import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TableChange } from '../../src/adapters/outbound/mikroorm/resourceTableChange.js';
import type { Column, TableSpec } from '../../src/adapters/outbound/mikroorm/resourceTable.js';
import type { Range } from '../../src/domain/shared/fieldRules.js';
import {
  field as fields,
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
    sortable: declaration.sortable,
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
    sortable: column.kind !== 'text',
  };
}

/** A declared resource as the generator's model (its create migration's number is not known here: 0). */
export function modelOfDeclaration<F extends FieldDeclarations>(declaration: ResourceDeclaration<F>): ResourceModel {
  const fieldModels = Object.entries(declaration.fields as FieldDeclarations).map(([camel, f]) =>
    fieldModelOf(camel, f),
  );
  const search = fieldModels.find((f) => f.camel === declaration.search);
  return {
    names: namesOf(declaration.name),
    fields: fieldModels,
    migrationNumber: 0,
    ...(search ? { search } : {}),
    ...(declaration.owned ? { owned: true } : {}),
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
    email: () => fields.email(),
    uuid: () => fields.uuid(),
    enum: () => fields.enum(f.values ?? []),
    ref: () => fields.ref(f.ref?.snake ?? '', f.ref?.pluralSnake ?? ''),
  }[f.type]();
  return f.optional ? declared.optional() : declared;
}

/** What a migration class says it makes: a table it creates, or a change of one. */
interface TableMigration {
  readonly creates?: TableSpec;
  readonly change?: TableChange;
}

const MIGRATION_FILE = /^Migration(\d{4})\w*\.ts$/;

/** One migration file: its number, name and what it says it does to resource tables. */
export interface MigrationRecord {
  readonly number: number;
  readonly name: string;
  readonly creates: TableSpec[];
  readonly changes: TableChange[];
}

/** Every migration of the project, in number order, with the tables it creates and changes. */
export async function loadMigrations(root: string): Promise<MigrationRecord[]> {
  const dir = join(root, MIGRATIONS_DIR);
  if (!existsSync(dir)) return [];
  const names = readdirSync(dir)
    .filter((name) => MIGRATION_FILE.test(name))
    .sort();
  const records: MigrationRecord[] = [];
  for (const file of names) {
    const module = (await import(pathToFileURL(join(dir, file)).href)) as Record<string, unknown>;
    const classes = Object.values(module).filter((value): value is TableMigration => typeof value === 'function');
    records.push({
      number: Number(MIGRATION_FILE.exec(file)?.[1]),
      name: file.replace(/\.ts$/, ''),
      creates: classes.flatMap((c) => (c.creates ? [c.creates] : [])),
      changes: classes.flatMap((c) => (c.change ? [c.change] : [])),
    });
  }
  return records;
}

/** Each resource table as the migrations so far leave it (by table name). */
export function tablesAfter(migrations: readonly MigrationRecord[]): Map<string, TableSpec> {
  const tables = new Map<string, TableSpec>();
  for (const migration of migrations) {
    for (const spec of migration.creates) tables.set(spec.table, spec);
    for (const change of migration.changes) tables.set(change.after.table, change.after);
  }
  return tables;
}
