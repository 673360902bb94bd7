import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  changedFields,
  sameTable,
  tableChangeProblems,
  type StoredDefault,
  type TableChange,
} from '../../src/adapters/outbound/mikroorm/resourceTableChange.js';
import { tableSpecOf, type TableSpec } from '../../src/adapters/outbound/mikroorm/resourceTable.js';
import {
  declareResource,
  snakeCase,
  type FieldDeclaration,
  type ResourceDeclaration,
} from '../../src/domain/shared/resource.js';
import {
  declarationOfField,
  entityPath,
  fieldModelOfColumn,
  loadDeclaration,
  loadMigrations,
  modelOfDeclaration,
  tablesAfter,
} from './declarations.js';
import { camelOf, nestedListPaths, type FieldModel, type ResourceModel } from './model.js';
import { parseField, rawValue } from './parse.js';
import type { ProjectState } from './project.js';
import { BUILT_IN_FIELDS } from './reserved.js';
import { domainFiles } from './templates/domain/index.js';
import { declarationLine } from './templates/domain/entity.js';
import { sizeUnitsOf } from './templates/domain/fields.js';
import { policyEdit } from './templates/main/edits.js';
import { accessGrants } from './templates/outbound/migrationFile.js';
import { tableChangeMigrationFile } from './templates/outbound/tableChangeMigrationFile.js';
import type { ChangeSet, FileContents } from './writer.js';
import type { AccessChange } from '../../src/adapters/outbound/mikroorm/migrations/tableChangeMigration.js';

/** What `generate field` and `generate migration` need besides their arguments. */
export interface EvolveContext {
  readonly root: string;
  readonly project: ProjectState;
  /** The repository's formatter over a change set (the identity when absent). */
  readonly format?: (changes: ChangeSet) => Promise<ChangeSet>;
}

export type Plan =
  { ok: true; changes: ChangeSet; notes: string[]; dryRun: boolean } | { ok: false; problems: string[] };

interface EvolveArguments {
  positionals: string[];
  defaults: string[];
  remove: string[];
  dryRun: boolean;
  problems: string[];
}

/** Splits `--default f=v`, `--remove f` (each repeatable, also as `--option=value`) and `--dry-run` from the rest. */
function splitArguments(argv: readonly string[], allowRemove: boolean): EvolveArguments {
  const result: EvolveArguments = { positionals: [], defaults: [], remove: [], dryRun: false, problems: [] };
  const options = allowRemove
    ? '--default <field>=<value>, --remove <field>, --dry-run'
    : '--default <field>=<value>, --dry-run';
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    const option = /^--(default|remove)(?:=(.*))?$/s.exec(arg);
    if (arg === '--dry-run') result.dryRun = true;
    else if (option && (option[1] === 'default' || allowRemove)) {
      const value = option[2] ?? argv[i + 1];
      if (option[2] === undefined) i += 1;
      if (value === undefined || value === '' || (option[2] === undefined && value.startsWith('--')))
        result.problems.push(
          `--${option[1]} needs a value, e.g. ${option[1] === 'default' ? '--default status=draft' : '--remove notes'}`,
        );
      else (option[1] === 'default' ? result.defaults : result.remove).push(value);
    } else if (arg.startsWith('-'))
      result.problems.push(`unknown option "${arg}" (the options are ${options}, --help)`);
    else result.positionals.push(arg);
  }
  return result;
}

/** `--default f=v` read with the field's own rule, in the stored form a migration gives the rows; or why not. */
function readDefault(name: string, declaration: FieldDeclaration, text: string): StoredDefault | string[] {
  const reading = declaration.rule.read(rawValue(declaration, text));
  if ('problem' in reading) return [`--default ${name}=${text}: ${name} ${reading.problem}`];
  const value = reading.value;
  if (value instanceof Date) return value.toISOString();
  return value as StoredDefault;
}

/** A declared resource from a model's fields (its rules read defaults; its table spec is the migration's `after`). */
function declarationOfModel(m: ResourceModel): ResourceDeclaration {
  return declareResource({
    name: m.names.snake,
    plural: m.names.pluralSnake,
    fields: Object.fromEntries(m.fields.map((f) => [f.camel, declarationOfField(f)])),
    ...(m.search ? { search: m.search.camel } : {}),
    ...(m.owned ? { owned: true } : {}),
    ...(m.cached ? { cached: true } : {}),
  });
}

/**
 * The files of a resource that its fields shape: its entity, which holds the declaration. (Its
 * migrations are written once; its test file, its module-list entry and everything the shared
 * cores serve read the declaration.)
 */
function fieldShapedFiles(m: ResourceModel): FileContents[] {
  return domainFiles(m);
}

/**
 * A three-way merge (`git merge-file`): the change from `base` to `theirs` applied to `ours`,
 * which may have been edited by hand since `base` was generated; `undefined` when they conflict.
 */
export function mergeThreeWay(ours: string, base: string, theirs: string): string | undefined {
  if (ours === base) return theirs;
  const dir = mkdtempSync(join(tmpdir(), 'portico-merge-'));
  try {
    const [a, b, c] = ['ours', 'base', 'theirs'].map((name) => join(dir, name));
    writeFileSync(a as string, ours);
    writeFileSync(b as string, base);
    writeFileSync(c as string, theirs);
    const merged = spawnSync('git', ['merge-file', '-p', '--quiet', a as string, b as string, c as string], {
      encoding: 'utf8',
    });
    return merged.status === 0 ? merged.stdout : undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The span of the `fields: { … }` block of `declareResource({ … })` in an entity's source: its body's start and end. */
function fieldsBlock(source: string): { start: number; end: number } | undefined {
  const open = /declareResource\(\{[\s\S]*?\bfields:\s*\{/.exec(source);
  if (!open) return undefined;
  const start = open.index + open[0].length;
  let depth = 1;
  let quote: string | undefined;
  for (let i = start; i < source.length; i += 1) {
    const c = source[i] as string;
    if (quote) {
      if (c === '\\') i += 1;
      else if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"' || c === '`') quote = c;
    else if ('([{'.includes(c)) depth += 1;
    else if (')]}'.includes(c) && --depth === 0) return { start, end: i };
  }
  return undefined;
}

/**
 * The entity's source with declaration lines removed (by camel name) and added (before the block's
 * end) — the edit made when a three-way merge cannot place the change (the block edited by hand
 * around it); `undefined` when the block cannot be found.
 */
export function editDeclaration(
  source: string,
  remove: readonly string[],
  add: readonly FieldModel[],
): string | undefined {
  let text = source;
  for (const camel of remove) {
    const block = fieldsBlock(text);
    if (!block) return undefined;
    const body = text.slice(block.start, block.end);
    const line = new RegExp(`(^|\\n)[ \\t]*${camel}\\s*:`).exec(body);
    if (!line) return undefined;
    const from = block.start + line.index + (line[1] === '\n' ? 1 : 0);
    let depth = 0;
    let to = block.end;
    for (let i = from; i < block.end; i += 1) {
      const c = text[i] as string;
      if ('([{'.includes(c)) depth += 1;
      else if (')]}'.includes(c)) depth -= 1;
      else if (c === ',' && depth === 0) {
        to = text.indexOf('\n', i) + 1 || i + 1;
        break;
      }
    }
    text = text.slice(0, from) + text.slice(to);
  }
  if (add.length > 0) {
    const block = fieldsBlock(text);
    if (!block) return undefined;
    const before = text.slice(0, block.end).replace(/[ \t]*$/, '');
    const separator = /[,{]\s*$/.test(before) ? '' : ',';
    text = `${before.replace(/\s*$/, '')}${separator}\n${add.map(declarationLine).join('\n')}\n  ${text.slice(block.end)}`;
  }
  return withSizeUnits(text, add);
}

/** The entity's source importing the size units (`MB`…) the added file fields' lines name, where it does not yet. */
function withSizeUnits(source: string, add: readonly FieldModel[]): string | undefined {
  const units = sizeUnitsOf(add);
  if (units.length === 0) return source;
  const from = /import\s*\{([^}]*)\}\s*from\s*'\.\.\/shared\/resource\.js';/.exec(source);
  if (!from) return undefined;
  const names = from[1] ?? '';
  const missing = units.filter((unit) => !new RegExp(`\\b${unit}\\b`).test(names));
  if (missing.length === 0) return source;
  const start = from.index + from[0].indexOf('{') + 1;
  return `${source.slice(0, start)} ${missing.join(', ')},${source.slice(start)}`;
}

/** The text of a project file as the plan so far leaves it: what an earlier step changed, else what is on disk. */
export type Reader = (path: string) => string | undefined;

export const readText = (root: string, path: string): string | undefined =>
  existsSync(join(root, path)) ? readFileSync(join(root, path), 'utf8') : undefined;

/**
 * The migration file that applies `change` (and `access`) at `stamp`, named for what it does: the
 * change's own slug, or `slug` (`book_orders_ship_command`) when given.
 */
export function migrationChanges(stamp: string, change: TableChange, access: AccessChange = {}, slug?: string): Plan {
  return {
    ok: true,
    changes: { create: [tableChangeMigrationFile(stamp, change, access, slug)], modify: [] },
    notes: [],
    dryRun: false,
  };
}

/** Why a table cannot be changed: no migration creates it. */
const noTable = (plural: string): string =>
  `no migration creates the ${plural} table (a resource's first migration is written by \`generate resource\`)`;

export const POLICY = 'policy/policy.csv';

/**
 * The rules of the nested lists a change of references brings or takes away: policy.csv gets
 * them (as `generate resource` writes them) or loses them, and the migration grants or takes them
 * back on a database seeded before.
 */
function policyChanges(
  read: Reader,
  before: ResourceModel,
  after: ResourceModel,
): { files: FileContents[]; access: AccessChange } {
  const was = new Set(nestedListPaths(before));
  const now = new Set(nestedListPaths(after));
  const nested = (m: ResourceModel, paths: Set<string>) => accessGrants(m).filter((g) => paths.has(g.path));
  const grant = nested(after, new Set([...now].filter((p) => !was.has(p))));
  const revoke = nested(before, new Set([...was].filter((p) => !now.has(p))));
  const current = read(POLICY);
  if (current === undefined || grant.length + revoke.length === 0) return { files: [], access: {} };
  const gone = new Set(revoke.map((g) => g.path));
  const kept = current
    .split('\n')
    .filter((line) => {
      const [kind, , path] = line.split(',').map((cell) => cell.trim());
      return !(kind === 'p' && path !== undefined && gone.has(path));
    })
    .join('\n');
  const contents = grant.length > 0 ? policyEdit(after, kept) : kept;
  return {
    files: contents === current ? [] : [{ path: POLICY, contents }],
    access: { ...(grant.length > 0 ? { grant } : {}), ...(revoke.length > 0 ? { revoke } : {}) },
  };
}

/** Reads the `--default` values given for `fields` (by snake name) with their rules; problems for the others. */
function readDefaults(
  given: readonly string[],
  fields: ReadonlyMap<string, FieldDeclaration>,
  subject: (name: string) => string,
): { values: Record<string, StoredDefault>; problems: string[] } {
  const values: Record<string, StoredDefault> = {};
  const problems: string[] = [];
  for (const pair of given) {
    const eq = pair.indexOf('=');
    if (eq <= 0) {
      problems.push(`--default ${pair}: expected <field>=<value> (e.g. --default status=draft)`);
      continue;
    }
    const name = pair.slice(0, eq);
    const declaration = fields.get(name);
    if (!declaration) {
      problems.push(`--default ${pair}: ${subject(name)}`);
      continue;
    }
    const value = readDefault(name, declaration, pair.slice(eq + 1));
    if (Array.isArray(value)) problems.push(...value);
    else values[camelOf(name)] = value;
  }
  return { values, problems };
}

/** The `--default f=v` pairs by field name (the first for each; a malformed one is reported by `readDefaults`). */
function defaultsByField(pairs: readonly string[]): Map<string, string> {
  const byField = new Map<string, string>();
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq > 0 && !byField.has(pair.slice(0, eq))) byField.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return byField;
}

/** The `name:type` argument that declared `name`, made optional (`notes:text?`). */
const optionalForm = (fieldArgs: readonly string[], name: string): string =>
  `${fieldArgs.find((arg) => arg.startsWith(`${name}:`)) ?? name}?`;

/** Every declared resource of the project as the generator's model, by snake name (`user` is not declared). */
export async function declaredModels(root: string, resources: readonly string[]): Promise<Map<string, ResourceModel>> {
  const models = new Map<string, ResourceModel>();
  for (const snake of resources) {
    const declaration = await loadDeclaration(root, snake);
    if (declaration) models.set(snake, modelOfDeclaration(declaration));
  }
  return models;
}

/**
 * Names a relation would take that a field already has: on `resource`, each `ref` field's relation
 * (`customer_id` → `customer`, src/adapters/inbound/resources.ts: relationsOf); on each resource it
 * refers to, the list of its rows (`Customer.invoices`); and on `resource` itself, the list of each
 * resource that refers to it. GraphQL would declare the field twice and the service would not start.
 */
export function relationClashes(resource: ResourceModel, others: ReadonlyMap<string, ResourceModel>): string[] {
  const problems: string[] = [];
  const has = (m: ResourceModel, camel: string) => m.fields.find((f) => f.camel === camel);
  for (const f of resource.fields) {
    if (!f.ref) continue;
    const relation = f.camel.replace(/Id$/, '');
    const clash = has(resource, relation);
    if (clash)
      problems.push(
        `field "${clash.name}": GraphQL serves the relation of ${f.name} as ${resource.names.pascal}.${relation}; name the field otherwise`,
      );
    const parent = others.get(f.ref.snake);
    const list = parent && has(parent, resource.names.pluralCamel);
    if (list)
      problems.push(
        `${f.ref.snake} has a field ${list.name}, the name GraphQL gives its list of ${resource.names.pluralHuman.toLowerCase()} (${f.ref.pascal}.${resource.names.pluralCamel}); name one of them otherwise`,
      );
  }
  for (const child of others.values()) {
    if (child.names.snake === resource.names.snake) continue;
    if (!child.fields.some((f) => f.ref?.snake === resource.names.snake)) continue;
    const clash = has(resource, child.names.pluralCamel);
    if (clash)
      problems.push(
        `field "${clash.name}": GraphQL serves the ${child.names.pluralHuman.toLowerCase()} that refer to a ${resource.names.human.toLowerCase()} as ${resource.names.pascal}.${child.names.pluralCamel}; name the field otherwise`,
      );
  }
  return problems;
}

/** The resource named, declared, or why not. */
export async function declaredResource(
  root: string,
  project: ProjectState,
  name: string | undefined,
): Promise<ResourceDeclaration | string> {
  if (name === undefined) return 'missing the resource: field <resource> <field>... (see --help)';
  if (!project.resources.includes(name))
    return `there is no ${name} resource (the resources are ${project.resources.join(', ')})`;
  const declaration = await loadDeclaration(root, name);
  return (
    declaration ??
    `${name} is not declared with declareResource in ${entityPath(name)}, so the generator does not change its fields`
  );
}

/**
 * `field <resource> <field>... [--default <field>=<value>]... [--remove <field>]... [--dry-run]`:
 * the declaration edited (merged three ways, so hand edits of the entity stay) and a migration that
 * changes the table with its rows kept (a new file named by its time; nothing lists it).
 */
export async function planField(argv: readonly string[], context: EvolveContext): Promise<Plan> {
  const { root, project } = context;
  const args = splitArguments(argv, true);
  const [, name, ...fieldArgs] = args.positionals;
  const declaration = await declaredResource(root, project, name);
  if (typeof declaration === 'string') return { ok: false, problems: [declaration, ...args.problems] };
  const snake = declaration.name;
  const before = modelOfDeclaration(declaration);
  const problems = [...args.problems];
  if (fieldArgs.length === 0 && args.remove.length === 0)
    problems.push(`nothing to change: give fields to add (name:type) or --remove <field>`);

  const removed = new Set<string>();
  for (const field of args.remove) {
    const existing = before.fields.find((f) => f.name === field);
    if (BUILT_IN_FIELDS.includes(field)) problems.push(`--remove ${field}: every resource keeps it`);
    else if (!existing) problems.push(`--remove ${field}: ${snake} has no field ${field}`);
    else if (before.search?.name === field)
      problems.push(
        `--remove ${field}: it is the field ${snake} searches (--search); searching would have nothing to search`,
      );
    else removed.add(field);
  }
  const added: FieldModel[] = [];
  const given = defaultsByField(args.defaults);
  for (const written of fieldArgs) {
    const fieldName = written.includes(':') ? written.slice(0, written.indexOf(':')) : written;
    // `--default f=v` is `=v` written in the field: the field's default for new rows and the rows there alike.
    const synonym = given.get(fieldName);
    const own = written.includes('=') ? written.slice(written.indexOf('=') + 1) : undefined;
    if (synonym !== undefined && own !== undefined && synonym !== own) {
      problems.push(`field "${fieldName}": two defaults (=${own} and --default ${fieldName}=${synonym}); give one`);
      continue;
    }
    const arg = synonym !== undefined && own === undefined ? `${written}=${synonym}` : written;
    if (added.some((f) => f.name === fieldName)) {
      problems.push(`field "${fieldName}": declared twice`);
      continue;
    }
    if (before.fields.some((f) => f.name === fieldName)) {
      problems.push(
        `field "${fieldName}": ${snake} has it already${removed.has(fieldName) ? ' (remove it and add it back in two steps)' : ''}`,
      );
      continue;
    }
    const parsed = parseField(arg, snake, project);
    // A default given as --default is refused as that option.
    const asOption = (p: string) =>
      arg === written
        ? p
        : p.replace(
            `field "${fieldName}": the default ${JSON.stringify(synonym)} `,
            `--default ${fieldName}=${synonym}: ${fieldName} `,
          );
    if (parsed.value === undefined) problems.push(...parsed.problems.map(asOption));
    else added.push(parsed.value);
  }
  if (removed.size > 0 && removed.size === before.fields.length && added.length === 0)
    problems.push(`--remove: ${snake} would have no field left`);

  const defaults = readDefaults(
    args.defaults.filter(
      (pair) =>
        !fieldArgs.some(
          (arg) =>
            given.has(pair.slice(0, pair.indexOf('='))) && arg.startsWith(`${pair.slice(0, pair.indexOf('='))}:`),
        ),
    ),
    new Map(added.map((f) => [f.name, declarationOfField(f)])),
    (field) => `${field} is not a field this command adds`,
  );
  problems.push(...defaults.problems);
  // The rows stored before a field with a default get it (its column's default fills them).
  for (const f of added)
    if (
      !f.optional &&
      f.defaultValue === undefined &&
      defaults.values[f.camel] === undefined &&
      !defaults.problems.some((p) => p.includes(` ${f.name}=`)) &&
      !problems.some((p) => p.startsWith(`field "${f.name}"`))
    )
      problems.push(
        `field "${f.name}": a new required field needs a value for the rows stored before it: --default ${f.name}=<value> (or make it optional: ${optionalForm(fieldArgs, f.name)})`,
      );
  if (problems.length > 0) return { ok: false, problems };

  const migrations = await loadMigrations(root);
  const after: ResourceModel = { ...before, fields: [...before.fields.filter((f) => !removed.has(f.name)), ...added] };
  const clashes = relationClashes(after, await declaredModels(root, project.resources));
  if (clashes.length > 0) return { ok: false, problems: clashes };
  const table = tablesAfter(migrations).get(declaration.plural);
  if (!table) return { ok: false, problems: [noTable(declaration.plural)] };
  const change: TableChange = {
    before: table,
    after: tableSpecOf(declarationOfModel(after)),
    ...(Object.keys(defaults.values).length > 0 ? { defaults: defaults.values } : {}),
  };
  const refused = tableChangeProblems(change);
  if (refused.length > 0)
    return {
      ok: false,
      problems: refused.map((p) => `${p} — the declaration was edited by hand since the last migration`),
    };

  const evolved = await evolution(context, before, after, change, project.migrationStamp, {
    removed: [...removed].map(camelOf),
    added,
  });
  return evolved.ok ? { ...evolved, dryRun: args.dryRun } : evolved;
}

/**
 * Everything a change of a resource's fields writes besides its declaration: the entity brought
 * from what `was` rendered to what `now` renders (merged three ways), the nested routes' rules in
 * policy.csv for references that come or go, and the migration that changes the table as `change`
 * says (a file of its own, which the database finds: no list names it). `declarationEdit` is
 * the line edit of the entity when a merge cannot place the change (`generate field`); without it
 * the entity is already as it should be (edited by hand: `generate migration`). `read` gives the
 * project's files as earlier steps of the same command left them (the disk's by default).
 */
async function evolution(
  context: EvolveContext,
  was: ResourceModel,
  now: ResourceModel,
  change: TableChange,
  stamp: string,
  declarationEdit?: { removed: readonly string[]; added: readonly FieldModel[] },
  read: Reader = (path) => readText(context.root, path),
): Promise<Plan> {
  const files = await reshapedFiles(context, was, now, declarationEdit);
  if (!files.ok) return files;
  const policy = policyChanges(read, was, now);
  const format = context.format ?? (async (changes: ChangeSet) => changes);
  const changes = await format({ create: [tableChangeMigrationFile(stamp, change, policy.access)], modify: [] });
  return {
    ok: true,
    changes: { create: changes.create, modify: [...files.changes.modify, ...policy.files] },
    notes: [],
    dryRun: false,
  };
}

/**
 * The files `before`'s fields shaped, brought to what `after`'s would be: each file the generator
 * would now write differently gets the difference merged into its current text (three ways, so
 * hand edits stay); where a hand edit is in the way, the entity's declaration is edited line by
 * line, and any other file is named as a problem.
 */
async function reshapedFiles(
  context: EvolveContext,
  before: ResourceModel,
  after: ResourceModel,
  declarationEdit?: { removed: readonly string[]; added: readonly FieldModel[] },
): Promise<Plan> {
  const format = context.format ?? (async (changes: ChangeSet) => changes);
  const old = new Map(fieldShapedFiles(before).map((f) => [f.path, f.contents]));
  const differing = fieldShapedFiles(after).filter((f) => old.get(f.path) !== f.contents);
  const [formattedOld, formattedNew] = await Promise.all([
    format({ create: differing.map((f) => ({ path: f.path, contents: old.get(f.path) ?? '' })), modify: [] }),
    format({ create: differing, modify: [] }),
  ]);
  const problems: string[] = [];
  const modify: FileContents[] = [];
  formattedNew.create.forEach((file, i) => {
    const current = readText(context.root, file.path);
    if (current === undefined) return; // removed by its owner: nothing to bring up to date
    const base = formattedOld.create[i]?.contents ?? '';
    const merged =
      mergeThreeWay(current, base, file.contents) ??
      (file.path === entityPath(after.names.snake) && declarationEdit
        ? editDeclaration(current, declarationEdit.removed, declarationEdit.added)
        : undefined);
    if (merged === undefined)
      problems.push(
        `${file.path}: edited by hand where this change falls, so it cannot be brought up to date (nothing was written); make the change there by hand, or restore it`,
      );
    else if (merged !== current) modify.push({ path: file.path, contents: merged });
  });
  if (problems.length > 0) return { ok: false, problems };
  const formatted = await format({ create: [], modify });
  return { ok: true, changes: formatted, notes: [], dryRun: false };
}

/**
 * `migration [--default [<resource>.]<field>=<value>]... [--dry-run]`: for every declared resource
 * whose declaration (edited by hand) no longer matches what the migrations so far make, a migration
 * that changes its table with the rows kept; with nothing to do, says so and writes nothing.
 */
export async function planMigration(argv: readonly string[], context: EvolveContext): Promise<Plan> {
  const { root, project } = context;
  const args = splitArguments(argv, false);
  const problems = [...args.problems];
  if (args.positionals.length > 1)
    problems.push(`migration takes no arguments besides its options (got ${args.positionals.slice(1).join(' ')})`);
  const pending: { snake: string; declaration: ResourceDeclaration; before: TableSpec }[] = [];
  const migrations = await loadMigrations(root);
  const tables = tablesAfter(migrations);
  for (const snake of project.resources) {
    const declaration = await loadDeclaration(root, snake);
    if (!declaration) continue;
    const before = tables.get(declaration.plural);
    if (!before) problems.push(`${snake}: ${noTable(declaration.plural)}`);
    else if (!sameTable(before, tableSpecOf(declaration))) pending.push({ snake, declaration, before });
  }
  if (problems.length > 0) return { ok: false, problems };
  if (pending.length === 0) {
    for (const pair of args.defaults) problems.push(`--default ${pair}: no table changes, so no default is needed`);
    if (problems.length > 0) return { ok: false, problems };
    return {
      ok: true,
      changes: { create: [], modify: [] },
      notes: ['nothing to do: every table is as its declaration says (no migration written)'],
      dryRun: args.dryRun,
    };
  }
  const create: FileContents[] = [];
  // By path: policy.csv changes once per resource, each step on the text the one before left.
  const modify = new Map<string, FileContents>();
  const read: Reader = (path) => modify.get(path)?.contents ?? readText(root, path);
  const usedDefaults = new Set<string>();
  for (const { snake, declaration, before } of pending) {
    const mine = args.defaults.flatMap((pair) => {
      const qualified = /^([a-z][a-z0-9_]*)\.(.+)$/s.exec(pair);
      if (qualified) return qualified[1] === snake ? [(usedDefaults.add(pair), qualified[2] as string)] : [];
      return pending.length === 1 ? [(usedDefaults.add(pair), pair)] : [];
    });
    const fields = new Map(Object.entries(declaration.fields).map(([camel, f]) => [snakeCase(camel), f]));
    const defaults = readDefaults(mine, fields, (field) => `${snake} has no field ${field}`);
    problems.push(...defaults.problems);
    const change: TableChange = {
      before,
      after: tableSpecOf(declaration),
      ...(Object.keys(defaults.values).length > 0 ? { defaults: defaults.values } : {}),
    };
    if (defaults.problems.length > 0) continue;
    const refused = tableChangeProblems(change).map((p) => `${snake}: ${p}`);
    problems.push(...refused);
    if (refused.length > 0) continue;
    const now = modelOfDeclaration(declaration);
    // One stamp for the command: the slugs (one table each) tell its migrations apart.
    const planned = await evolution(
      context,
      modelBefore(now, change),
      now,
      change,
      project.migrationStamp,
      undefined,
      read,
    );
    if (!planned.ok) problems.push(...planned.problems);
    else {
      create.push(...planned.changes.create);
      for (const file of planned.changes.modify) modify.set(file.path, file);
    }
  }
  for (const pair of args.defaults)
    if (!usedDefaults.has(pair))
      problems.push(
        `--default ${pair}: ${pending.length > 1 ? `name the resource (<resource>.<field>=<value>): ${pending.map((p) => p.snake).join(', ')} change` : 'no such resource changes'}`,
      );
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, changes: { create, modify: [...modify.values()] }, notes: [], dryRun: args.dryRun };
}

/**
 * The model a resource had before `change` (its declaration edited by hand): `now` without the
 * fields the change adds, with the ones it removes (their bounds as the table knows them, the
 * types' defaults otherwise) — the base of the three-way merge that brings the files its fields
 * shape up to date.
 */
function modelBefore(now: ResourceModel, change: TableChange): ResourceModel {
  const { added, removed } = changedFields(change);
  const adds = new Set(added.map((c) => c.prop));
  return {
    ...now,
    fields: [
      ...now.fields.filter((f) => !adds.has(f.camel)),
      ...removed.flatMap((c) => (c.spec ? [fieldModelOfColumn(c.prop, c.spec)] : [])),
    ],
  };
}
