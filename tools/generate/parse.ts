import { parseSize, typesProblem } from '../../src/domain/shared/files.js';
import { declarationOfField } from './declarations.js';
import {
  DEFAULT_BOUNDS,
  FIELD_FLAGS,
  FIELD_TYPES,
  graphqlRootFieldsOf,
  graphqlTypesOf,
  INT32_MAX,
  INT32_MIN,
  camelOf,
  namesOf,
  pluralOf,
  singularOf,
  SNAKE_CASE,
  type Bounds,
  type FieldModel,
  type FieldType,
  type ResourceModel,
  type ResourceNames,
} from './model.js';
import type { ProjectState } from './project.js';
import {
  BUILT_IN_FIELDS,
  ENTITY_MEMBERS,
  GRAPHQL_ROOT_FIELDS,
  GRAPHQL_TYPES,
  JAVASCRIPT_GLOBALS,
  reservedIn,
  ROUTE_WORDS,
} from './reserved.js';

export type ParseResult = { ok: true; model: ResourceModel; dryRun: boolean } | { ok: false; problems: string[] };

/** Names and field names stay short enough that table, column and index names fit PostgreSQL's 63 bytes. */
export const MAX_NAME_LENGTH = 40;

/** An enum value: lower snake case; upper-cased it is the GraphQL enum value (`in_progress` → `IN_PROGRESS`). */
const ENUM_VALUE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
/** Words GraphQL does not allow as an enum value (upper-cased values must still be valid there). */
const GRAPHQL_VALUES = new Set(['true', 'false', 'null']);
const FIELD = /^([a-z]+)(?:\((.*)\))?(\?)?$/s;
const NUMBER = String.raw`-?\d+(?:\.\d+)?`;
const RANGE = new RegExp(`^(>)?(${NUMBER})?\\.\\.(<)?(${NUMBER})?$`);
const ONE_SIDED = new RegExp(`^([><])(${NUMBER})$`);
const BOUNDS_SYNTAX = 'bounds are MIN..MAX, MIN.., ..MAX, >MIN or <MAX (e.g. 1..80, ..2000, >0, 0..<1)';

/** The longest a string or text may be: the column of a `string` is varchar(200). */
const MAX_LENGTH: Partial<Record<FieldType, number>> = { string: 200, text: 10000 };

const isFieldType = (type: string): type is FieldType => (FIELD_TYPES as readonly string[]).includes(type);

const list = (languages: string[]): string => languages.join(', ');

/**
 * The forms a name takes, each described for a message; forms spelled like an earlier one are left out.
 * `sql` says whether the form becomes a SQL identifier.
 */
function forms(entries: [form: string, word: string, sql: boolean][]): [string, string, boolean][] {
  const seen = new Set<string>();
  return entries.filter(([, word]) => (seen.has(word) ? false : (seen.add(word), true)));
}

function reservedProblems(subject: string, entries: [form: string, word: string, sql: boolean][]): string[] {
  return forms(entries).flatMap(([form, word, sql]) => {
    const languages = reservedIn(word, sql);
    if (languages.length === 0) return [];
    const what = form === '' ? `"${word}"` : `its ${form} "${word}"`;
    return [`${subject}: ${what} is a reserved word (${list(languages)})`];
  });
}

/** Who holds `word` in the project: a resource (by its name or plural) or a route word. */
function holderOf(word: string, project: ProjectState): string | undefined {
  const resource = project.resources.find((r) => r === word || pluralOf(r) === word);
  if (resource !== undefined) return `the ${resource} resource`;
  if (!project.routeWords.includes(word)) return undefined;
  const route = ROUTE_WORDS.find((r) => r === word || pluralOf(r) === word);
  return route === undefined ? 'a route' : `the ${route} route`;
}

function nameProblems(name: string, project: ProjectState): string[] {
  const subject = `name "${name}"`;
  if (!SNAKE_CASE.test(name)) {
    return [`${subject}: must be lower snake case, each word starting with a letter (e.g. purchase_order)`];
  }
  const problems: string[] = [];
  if (name.length > MAX_NAME_LENGTH) problems.push(`${subject}: at most ${MAX_NAME_LENGTH} characters`);
  const names = namesOf(name);
  const plural = names.pluralSnake;
  const holder = holderOf(name, project);
  const pluralHolder = holderOf(plural, project);
  if (holder !== undefined) problems.push(`${subject}: already taken by ${holder}`);
  else if (pluralHolder !== undefined)
    problems.push(`${subject}: its plural "${plural}" is already taken by ${pluralHolder}`);
  if (plural === name) {
    const singular = singularOf(name);
    problems.push(
      singular === name
        ? `${subject}: its plural is the same word, so one ${name} and the list would share names; pick another`
        : `${subject}: is plural; give the singular (${singular})`,
    );
  }
  problems.push(
    ...reservedProblems(subject, [
      ['', name, true],
      ['camel-case form', names.camel, false],
      ['plural', plural, true],
      ['plural in camel case', names.pluralCamel, false],
    ]),
  );
  for (const pascal of new Set([names.pascal, names.pluralPascal])) {
    if (JAVASCRIPT_GLOBALS.has(pascal))
      problems.push(`${subject}: its class name "${pascal}" would shadow the JavaScript built-in`);
  }
  if (holder === undefined && pluralHolder === undefined) problems.push(...graphqlClashes(subject, names, project));
  return problems;
}

/** GraphQL type and root field names the new resource would declare twice. */
function graphqlClashes(subject: string, names: ResourceNames, project: ProjectState): string[] {
  const owners = new Map<string, string>();
  for (const type of GRAPHQL_TYPES) owners.set(type, 'the shared schema');
  for (const field of GRAPHQL_ROOT_FIELDS) owners.set(field, 'the shared schema');
  for (const resource of project.resources) {
    const theirs = namesOf(resource);
    for (const declared of [...graphqlTypesOf(theirs), ...graphqlRootFieldsOf(theirs)]) {
      owners.set(declared, `the ${resource} resource`);
    }
  }
  const problems: string[] = [];
  for (const type of graphqlTypesOf(names)) {
    const owner = owners.get(type);
    if (owner !== undefined) problems.push(`${subject}: its GraphQL type "${type}" is already declared by ${owner}`);
  }
  for (const field of new Set(graphqlRootFieldsOf(names))) {
    const owner = owners.get(field);
    if (owner !== undefined) problems.push(`${subject}: its GraphQL field "${field}" is already declared by ${owner}`);
  }
  return problems;
}

export type Parsed<T> = { value: T; problems: [] } | { value?: undefined; problems: string[] };
const fail = (...problems: string[]): { problems: string[] } => ({ problems });

/** Bounds written after a type (`1..80`, `..2000`, `>0`, `0..<1`), checked against the type, defaults filled in. */
function parseBounds(type: FieldType, raw: string | undefined): Parsed<Bounds> {
  const defaults = DEFAULT_BOUNDS[type] ?? {};
  if (raw === undefined) return { value: { ...defaults }, problems: [] };
  const written = `${type}(${raw})`;
  let minText: string | undefined;
  let maxText: string | undefined;
  let minExclusive = false;
  let maxExclusive = false;
  const range = RANGE.exec(raw);
  const oneSided = ONE_SIDED.exec(raw);
  if (range) {
    [, , minText, , maxText] = range;
    minExclusive = range[1] === '>';
    maxExclusive = range[3] === '<';
    if ((minExclusive && minText === undefined) || (maxExclusive && maxText === undefined))
      return fail(`${written}: ${BOUNDS_SYNTAX}`);
    if (minText === undefined && maxText === undefined) return fail(`${written}: ${BOUNDS_SYNTAX}`);
  } else if (oneSided) {
    if (oneSided[1] === '>') [minText, minExclusive] = [oneSided[2], true];
    else [maxText, maxExclusive] = [oneSided[2], true];
  } else {
    return fail(`${written}: ${BOUNDS_SYNTAX}`);
  }
  const min = minText === undefined ? undefined : Number(minText);
  const max = maxText === undefined ? undefined : Number(maxText);
  const given = [min, max].filter((n): n is number => n !== undefined);
  if (min !== undefined && max !== undefined && min > max)
    return fail(`${written}: min ${min} is greater than max ${max}`);

  if (type === 'string' || type === 'text') {
    if (minExclusive || maxExclusive)
      return fail(`${written}: lengths are inclusive, without > or < (e.g. ${type}(1..80))`);
    if (given.some((n) => !Number.isInteger(n) || n < 0))
      return fail(`${written}: lengths are whole numbers of characters, 0 or more`);
    const longest = MAX_LENGTH[type] ?? 0;
    if (max !== undefined && max > longest) {
      return fail(
        `${written}: a ${type} is at most ${longest} characters${type === 'string' ? ' (use text for longer)' : ''}`,
      );
    }
    if (max === 0) return fail(`${written}: the longest must be at least 1 character`);
    const bounds = { min: min ?? defaults.min, max: max ?? defaults.max };
    if ((bounds.min ?? 0) > (bounds.max ?? 0))
      return fail(`${written}: min ${bounds.min} is greater than max ${bounds.max}`);
    return { value: bounds, problems: [] };
  }
  if (type === 'integer') {
    if (given.some((n) => !Number.isInteger(n))) return fail(`${written}: integer bounds are whole numbers`);
    if (given.some((n) => n < INT32_MIN || n > INT32_MAX)) return fail(`${written}: outside the signed 32-bit range`);
    // Integers have no exclusive bound: `>0` is `1..`, `..<10` is `..9`.
    const bounds = {
      min: min === undefined ? defaults.min : minExclusive ? min + 1 : min,
      max: max === undefined ? defaults.max : maxExclusive ? max - 1 : max,
    };
    if ((bounds.min ?? 0) > (bounds.max ?? 0)) return fail(`${written}: no integer is in the range`);
    return { value: bounds, problems: [] };
  }
  if (type === 'number') {
    if (min !== undefined && max !== undefined && min === max && (minExclusive || maxExclusive)) {
      return fail(`${written}: no number is in the range`);
    }
    const bounds: Bounds = {};
    if (min !== undefined) Object.assign(bounds, { min }, minExclusive ? { minExclusive } : {});
    if (max !== undefined) Object.assign(bounds, { max }, maxExclusive ? { maxExclusive } : {});
    return { value: bounds, problems: [] };
  }
  return fail(`${type} takes no bounds`);
}

const DECIMAL_DIGITS = /^(\d+),(\d+)$/;
/** As src/domain/shared/Decimal.ts: a decimal's smallest unit must stay an exact JavaScript number. */
const DECIMAL_MAX_PRECISION = 15;

/** `12,2` or `12,2)(>0` (the type's digits, then its bounds): precision, scale and value bounds. */
function parseDecimal(raw: string | undefined): Parsed<{ precision: number; scale: number; bounds: Bounds }> {
  const usage = 'decimal needs its digits, e.g. decimal(12,2) for money (12 digits, 2 after the point)';
  if (raw === undefined) return fail(usage);
  const [digits = '', boundsText, ...rest] = raw.split(')(');
  const match = DECIMAL_DIGITS.exec(digits.replace(/\s/g, ''));
  if (!match || rest.length > 0) return fail(`decimal(${raw}): ${usage}, then bounds if any: decimal(12,2)(>0)`);
  const [precision, scale] = [Number(match[1]), Number(match[2])];
  const written = `decimal(${precision},${scale})`;
  if (precision < 1 || precision > DECIMAL_MAX_PRECISION)
    return fail(`${written}: the precision is 1 to ${DECIMAL_MAX_PRECISION} digits (both engines store it exactly)`);
  if (scale > precision) return fail(`${written}: the scale (digits after the point) is at most the precision`);
  const bounds = parseBounds('number', boundsText);
  if (bounds.value === undefined) return fail(...bounds.problems.map((p) => p.replace(/^number\(/, `${written}(`)));
  const problems: string[] = [];
  for (const text of boundsText?.match(new RegExp(NUMBER, 'g')) ?? []) {
    const [integer = '', fraction = ''] = text.replace('-', '').split('.');
    if (fraction.length > scale)
      problems.push(`${written}(${boundsText}): the bound ${text} has more than ${scale} digits after the point`);
    if (integer.replace(/^0+/, '').length > precision - scale)
      problems.push(
        `${written}(${boundsText}): the bound ${text} has more than ${precision - scale} digits before the point`,
      );
  }
  return problems.length > 0 ? { problems } : { value: { precision, scale, bounds: bounds.value }, problems: [] };
}

const FILE_USAGE = 'file needs its types and largest size, e.g. file(image/png|image/jpeg,5MB)';

/** `image/png|image/jpeg,5MB`: a file's media types (or ranges, `image/*`) and its largest size (KB, MB, GB). */
function parseFile(raw: string | undefined): Parsed<{ types: string[]; maxBytes: number }> {
  if (raw === undefined) return fail(FILE_USAGE);
  const comma = raw.lastIndexOf(',');
  if (comma < 0) return fail(`file(${raw}): ${FILE_USAGE}`);
  const typesText = raw.slice(0, comma).trim();
  const sizeText = raw.slice(comma + 1).trim();
  const types = typesText === '' ? [] : typesText.split('|').map((t) => t.trim());
  const problems: string[] = [];
  const wrong = typesProblem(types);
  if (wrong !== undefined)
    problems.push(`file(${raw}): ${wrong}; list media types or ranges separated by | (image/png|image/*)`);
  const duplicate = types.find((t, i) => types.indexOf(t) !== i);
  if (duplicate !== undefined) problems.push(`file(${raw}): the type ${duplicate} is listed twice`);
  const maxBytes = parseSize(sizeText);
  if (maxBytes === undefined)
    problems.push(`file(${raw}): the largest size "${sizeText}" must be a whole number of KB, MB or GB (e.g. 5MB)`);
  return problems.length > 0 || maxBytes === undefined ? { problems } : { value: { types, maxBytes }, problems: [] };
}

function parseEnumValues(raw: string | undefined): Parsed<string[]> {
  if (raw === undefined) return fail('enum needs its values, e.g. enum(draft|sent|paid)');
  const values = raw === '' ? [] : raw.split('|');
  if (values.length === 0) return fail('enum(): needs at least one value');
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const value of values) {
    if (!ENUM_VALUE.test(value)) {
      problems.push(
        `enum value "${value}" must be lower snake case (it becomes ${value.toUpperCase() || '""'} in GraphQL)`,
      );
    } else if (GRAPHQL_VALUES.has(value)) {
      problems.push(`enum value "${value}" is a reserved word (GraphQL)`);
    }
    if (seen.has(value)) problems.push(`enum value "${value}" is listed twice`);
    seen.add(value);
  }
  return problems.length > 0 ? { problems } : { value: values, problems: [] };
}

function parseRef(
  field: string,
  resource: string,
  raw: string | undefined,
  project: ProjectState,
): Parsed<ResourceNames> {
  const problems: string[] = [];
  if (!field.endsWith('_id')) problems.push(`a ref field's name ends in _id (e.g. ${field}_id)`);
  if (raw === undefined) return fail(...problems, 'ref needs the resource it refers to, e.g. ref(customer)');
  if (!SNAKE_CASE.test(raw)) problems.push(`ref(${raw}): not a resource name (lower snake case)`);
  else if (raw === resource) {
    problems.push(`ref(${raw}): a resource cannot refer to itself (a row would have to exist before it is created)`);
  } else if (raw === 'user') {
    // Users are the service's own accounts (auth, profile, admin), not built on the resource cores:
    // their repositories cannot guard a delete against references or name a missing one.
    problems.push(
      `ref(user): users are the service's accounts, not a generated resource; only generated resources can be referenced`,
    );
  } else if (!project.resources.includes(raw)) {
    const known = project.resources.length > 0 ? ` (the resources are ${project.resources.join(', ')})` : '';
    problems.push(`ref(${raw}): there is no ${raw} resource${known}`);
  }
  return problems.length > 0 ? { problems } : { value: namesOf(raw), problems: [] };
}

/**
 * `name:type(bounds)?+flag+flag=default` split into its typed part, its flags and its default's
 * text: the first `+` and the first `=` outside the parentheses start them (`number(>=0)` is bounds).
 */
function splitField(arg: string): { typed: string; flags: string[]; defaultText?: string } {
  let depth = 0;
  let plus: number | undefined;
  for (let i = 0; i < arg.length; i += 1) {
    const c = arg[i];
    if (c === '(') depth += 1;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0 && c === '+' && plus === undefined) plus = i;
    else if (depth === 0 && c === '=') {
      const head = arg.slice(0, i);
      return { ...splitFlags(head, plus), defaultText: arg.slice(i + 1) };
    }
  }
  return splitFlags(arg, plus);
}

const splitFlags = (head: string, plus: number | undefined): { typed: string; flags: string[] } =>
  plus === undefined
    ? { typed: head, flags: [] }
    : { typed: head.slice(0, plus), flags: head.slice(plus + 1).split('+') };

/** A command-line value as a client would send it for the field (numbers and booleans as JSON would carry them). */
export function rawValue(f: { type: string }, text: string): unknown {
  if ((f.type === 'integer' || f.type === 'number') && /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(text)) return Number(text);
  if (f.type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/** A default's text read with the field's own rule, in the domain's form (an instant as RFC 3339); or why not. */
export function readDefaultText(
  f: FieldModel,
  text: string,
): { value: string | number | boolean } | { problem: string } {
  const { defaultValue: _ignored, ...plain } = f;
  const reading = declarationOfField(plain).rule.read(rawValue(f, text));
  if ('problem' in reading) return reading;
  const value = reading.value;
  return { value: value instanceof Date ? value.toISOString() : (value as string | number | boolean) };
}

const FLAG_NAMES = FIELD_FLAGS.map((flag) => `+${flag}`).join(', ');

/**
 * One field argument, `name:type(bounds)?+flag+flag=default`, checked on its own (duplicates are
 * found by the caller): the type with its bounds, `?` for optional, then any of the flags
 * `+unique` and `+readonly`, then `=value` a default, read with the field's own rule.
 */
export function parseField(arg: string, resource: string, project: ProjectState): Parsed<FieldModel> {
  const { typed, flags, defaultText } = splitField(arg);
  const parsed = parseTyped(typed, resource, project);
  const name = typed.includes(':') ? typed.slice(0, typed.indexOf(':')) : typed;
  const subject = `field "${name}"`;
  const problems = [...parsed.problems];
  const seen = new Set<string>();
  for (const flag of flags) {
    if (!(FIELD_FLAGS as readonly string[]).includes(flag))
      problems.push(
        `${subject}: unknown flag "+${flag}" (the flags are ${FLAG_NAMES}, after the type and its ?: name:type?+unique)`,
      );
    else if (seen.has(flag)) problems.push(`${subject}: +${flag} given twice`);
    seen.add(flag);
  }
  if (parsed.value?.type === 'file') {
    const refused = [
      ...(seen.has('unique') ? ['be +unique'] : []),
      ...(seen.has('readonly') ? ['be marked +readonly (it is read-only already)'] : []),
      ...(defaultText !== undefined ? ['have a default (=value)'] : []),
    ];
    for (const what of refused)
      problems.push(`${subject}: a file field cannot ${what}: only an upload sets it, once its item exists`);
  }
  if (problems.length > 0 || parsed.value === undefined) return { problems };
  const f: FieldModel = {
    ...parsed.value,
    ...(seen.has('unique') ? { unique: true } : {}),
    ...(seen.has('readonly') ? { readonly: true } : {}),
  };
  if (defaultText !== undefined) {
    const read = readDefaultText(f, defaultText);
    if ('problem' in read) return fail(`${subject}: the default ${JSON.stringify(defaultText)} ${read.problem}`);
    f.defaultValue = read.value;
  }
  const refused = readonlyProblem(f, typed);
  return refused === undefined ? { value: f, problems: [] } : fail(refused);
}

/**
 * Why a `+readonly` field could never be created: required, with no default, no client may set it
 * and nothing else would (its commands change it later); `undefined` when it can be.
 */
export function readonlyProblem(f: FieldModel, written = `${f.name}:${f.type}`): string | undefined {
  if (!f.readonly || f.optional || f.defaultValue !== undefined) return undefined;
  return `field "${f.name}": a required +readonly field needs a default (${written}+readonly=<value>), or ? to start as null: no create could set it`;
}

/** The `name:type(bounds)?` part of a field argument, checked on its own. */
function parseTyped(arg: string, resource: string, project: ProjectState): Parsed<FieldModel> {
  const colon = arg.indexOf(':');
  if (colon < 0) return fail(`field "${arg}": expected name:type (e.g. title:string)`);
  const name = arg.slice(0, colon);
  const spec = arg.slice(colon + 1);
  const subject = `field "${name}"`;
  const problems: string[] = [];
  if (name === '') return fail(`field "${arg}": missing the name before the colon`);
  const camel = camelOf(name);
  if (!SNAKE_CASE.test(name)) {
    problems.push(`${subject}: must be lower snake case, each word starting with a letter (e.g. due_at)`);
  } else if (BUILT_IN_FIELDS.includes(name)) {
    problems.push(`${subject}: every resource has it already (id, created_at, updated_at and version are generated)`);
  } else {
    if (name.length > MAX_NAME_LENGTH) problems.push(`${subject}: at most ${MAX_NAME_LENGTH} characters`);
    problems.push(
      ...reservedProblems(subject, [
        ['', name, true],
        ['camel-case form', camel, false],
      ]),
    );
    if (ENTITY_MEMBERS.has(camel)) problems.push(`${subject}: "${camel}" is a member of the generated entity`);
  }
  const match = FIELD.exec(spec);
  if (!match) {
    return fail(
      ...problems,
      `${subject}: malformed type "${spec}" (expected type, type(...) and ? for optional, e.g. string(1..80)?)`,
    );
  }
  const [, type = '', argument, question] = match;
  if (!isFieldType(type))
    return fail(...problems, `${subject}: unknown type "${type}" (the types are ${FIELD_TYPES.join(', ')})`);
  const optional = question === '?';
  const at = (p: string[]) => p.map((problem) => `${subject}: ${problem}`);
  if (type === 'enum') {
    const values = parseEnumValues(argument);
    problems.push(...at(values.problems));
    if (problems.length > 0 || values.value === undefined) return { problems };
    return { value: { name, camel, type, optional, bounds: {}, values: values.value, sortable: true }, problems: [] };
  }
  if (type === 'ref') {
    const ref = parseRef(name, resource, argument, project);
    problems.push(...at(ref.problems));
    if (problems.length > 0 || ref.value === undefined) return { problems };
    return { value: { name, camel, type, optional, bounds: {}, ref: ref.value, sortable: true }, problems: [] };
  }
  if (type === 'file') {
    if (!optional)
      problems.push(
        `${subject}: a file field must be optional (${name}:file(...)?): a file is uploaded once its item exists`,
      );
    const file = parseFile(argument);
    problems.push(...at(file.problems));
    if (problems.length > 0 || file.value === undefined) return { problems };
    return { value: { name, camel, type, optional, bounds: {}, ...file.value, sortable: false }, problems: [] };
  }
  if (type === 'decimal') {
    const decimal = parseDecimal(argument);
    problems.push(...at(decimal.problems));
    if (problems.length > 0 || decimal.value === undefined) return { problems };
    const { precision, scale, bounds } = decimal.value;
    return { value: { name, camel, type, optional, bounds, precision, scale, sortable: true }, problems: [] };
  }
  const bounds = parseBounds(type, argument);
  problems.push(...at(bounds.problems));
  if (problems.length > 0 || bounds.value === undefined) return { problems };
  return { value: { name, camel, type, optional, bounds: bounds.value, sortable: type !== 'text' }, problems: [] };
}

interface Arguments {
  positionals: string[];
  search: string[];
  dryRun: boolean;
  owned: boolean;
  cached: boolean;
  problems: string[];
}

function splitArguments(argv: string[]): Arguments {
  const result: Arguments = { positionals: [], search: [], dryRun: false, owned: false, cached: false, problems: [] };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    if (arg === '--dry-run') result.dryRun = true;
    else if (arg === '--owned') result.owned = true;
    else if (arg === '--cached') result.cached = true;
    else if (arg === '--search') {
      const value = argv[i + 1];
      if (value === undefined || value.startsWith('-'))
        result.problems.push('--search needs a field name, e.g. --search title');
      else {
        result.search.push(value);
        i += 1;
      }
    } else if (arg.startsWith('--search=')) result.search.push(arg.slice('--search='.length));
    else if (arg.startsWith('-'))
      result.problems.push(
        `unknown option "${arg}" (the options are --search <field>, --owned, --cached, --dry-run, --help)`,
      );
    else result.positionals.push(arg);
  }
  if (result.search.length > 1) result.problems.push('--search given twice: one field can be searched');
  return result;
}

/**
 * Reads `resource <name> <field>... [--search <field>] [--owned] [--cached] [--dry-run]` (README: Add a resource) into the model
 * of the resource to generate, or every problem with it, one line each.
 */
export function parseCommand(argv: string[], project: ProjectState): ParseResult {
  const args = splitArguments(argv);
  const [command, name, ...fieldArgs] = args.positionals;
  if (command !== 'resource') {
    const what = command === undefined ? 'missing the command' : `unknown command "${command}"`;
    return { ok: false, problems: [`${what}: use resource <name> <field>... (see --help)`, ...args.problems] };
  }
  const problems: string[] = [];
  if (name === undefined) problems.push('missing the resource name: resource <name> <field>...');
  else problems.push(...nameProblems(name, project));
  if (name !== undefined && fieldArgs.length === 0)
    problems.push('no fields: give at least one as name:type (e.g. title:string)');

  const fields: FieldModel[] = [];
  const counts = new Map<string, number>();
  for (const arg of fieldArgs) {
    const fieldName = arg.includes(':') ? arg.slice(0, arg.indexOf(':')) : arg;
    counts.set(fieldName, (counts.get(fieldName) ?? 0) + 1);
    if (counts.get(fieldName) === 2) problems.push(`field "${fieldName}": declared twice`);
    if ((counts.get(fieldName) ?? 0) > 1) continue;
    const field = parseField(arg, name ?? '', project);
    if (field.value !== undefined) fields.push(field.value);
    else problems.push(...field.problems);
  }

  let search: FieldModel | undefined;
  const [searchName] = args.search;
  if (searchName !== undefined) {
    const declared = fieldArgs.some((arg) => arg.split(':')[0] === searchName);
    search = fields.find((f) => f.name === searchName);
    if (!declared) problems.push(`--search ${searchName}: there is no field ${searchName}`);
    else if (search !== undefined && search.type !== 'string') {
      problems.push(`--search ${searchName}: only a string field can be searched (${searchName} is ${search.type})`);
    }
  }
  problems.push(...args.problems);
  if (problems.length > 0 || name === undefined) return { ok: false, problems };
  const model: ResourceModel = { names: namesOf(name), fields, migrationStamp: project.migrationStamp };
  if (search !== undefined) model.search = search;
  if (args.owned) model.owned = true;
  if (args.cached) model.cached = true;
  return { ok: true, model, dryRun: args.dryRun };
}
