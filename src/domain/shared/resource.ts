import { commandProblems, wrongState, type CommandDeclarations } from './commands.js';
import { ValidationError, type DomainError, type FieldViolation } from './DomainError.js';
import {
  booleanRule,
  dateRule,
  datetimeRule,
  decimalRule,
  emailRule,
  enumRule,
  fileRule,
  guardFields,
  integerRule,
  numberRule,
  optional as optionalRule,
  stringRule,
  textRule,
  uuidRule,
  UPLOADED_ONLY,
  type FieldRule,
  type Range,
} from './fieldRules.js';
import { typesProblem, type StoredFile } from './files.js';
import { resourceErrors, type ResourceErrors } from './resourceErrors.js';

/** The field types of a resource (README: Add a resource). */
export type FieldType =
  | 'string'
  | 'text'
  | 'integer'
  | 'number'
  | 'decimal'
  | 'boolean'
  | 'datetime'
  | 'date'
  | 'email'
  | 'uuid'
  | 'enum'
  | 'ref'
  | 'file';

/**
 * One field of a resource, as its declaration states it: its type, the rule a value keeps, whether
 * it may be null, whether it is unique or read-only, its default for new rows, and (for `ref`) the
 * resource it names. Everything else about the field — its TypeScript type, codec, wire and GraphQL
 * form, column and indexes — is derived from this. `N`: may be null; `D`: has a default.
 */
export interface FieldDeclaration<T = unknown, N extends boolean = boolean, D extends boolean = boolean> {
  readonly type: FieldType;
  /** The rule a (non-null) value keeps. */
  readonly rule: FieldRule<T>;
  /** May be null: absent on create means null, `null` in an update clears it. */
  readonly nullable: N;
  /** Every field but `text` is a sort key (with an index). */
  readonly sortable: boolean;
  /** No two rows hold equal values (nulls excepted): a second one is a conflict naming the field. */
  readonly isUnique: boolean;
  /** Set only by the server: its default on create, then only by the resource's commands. */
  readonly isReadonly: boolean;
  /** What a create that leaves the field out stores (and rows stored before the field existed hold). */
  readonly defaultValue: D extends true ? T : undefined;
  /** `string`: its longest value, which is also its column's width. */
  readonly maxLength?: number;
  /** `decimal`: its digits in all, and after the point. */
  readonly precision?: number;
  readonly scale?: number;
  /** `enum`: its values, in the order declared. */
  readonly values?: readonly string[];
  /** `ref`: the resource it names (singular and plural, snake case). */
  readonly references?: { readonly singular: string; readonly plural: string };
  /** `file`: the media types it takes (`image/png`, or a range `image/*`), lower case. */
  readonly types?: readonly string[];
  /** `file`: its largest size in bytes. */
  readonly maxBytes?: number;
  /** The same field, nullable. */
  optional(): FieldDeclaration<T, true, D>;
  /** The same field, unique. */
  unique(): FieldDeclaration<T, N, D>;
  /** The same field, read-only. */
  readonly(): FieldDeclaration<T, N, D>;
  /** The same field with a default for new rows; refused (thrown) when the value breaks the field's rule. */
  default(value: T): FieldDeclaration<T, N, true>;
}

type Facts = Omit<
  FieldDeclaration,
  | 'rule'
  | 'nullable'
  | 'optional'
  | 'sortable'
  | 'isUnique'
  | 'isReadonly'
  | 'defaultValue'
  | 'unique'
  | 'readonly'
  | 'default'
>;
type Flags = { readonly nullable: boolean; readonly isUnique: boolean; readonly isReadonly: boolean };

function declared<T, N extends boolean = false, D extends boolean = false>(
  facts: Facts,
  rule: FieldRule<T>,
  flags: Flags = { nullable: false, isUnique: false, isReadonly: false },
  defaultValue?: T,
): FieldDeclaration<T, N, D> {
  const again = <N2 extends boolean, D2 extends boolean>(changed: Partial<Flags>, value = defaultValue) =>
    declared<T, N2, D2>(facts, rule, { ...flags, ...changed }, value);
  return {
    ...facts,
    rule,
    nullable: flags.nullable as N,
    sortable: facts.type !== 'text' && facts.type !== 'file',
    isUnique: flags.isUnique,
    isReadonly: flags.isReadonly,
    defaultValue: defaultValue as D extends true ? T : undefined,
    optional: () => again<true, D>({ nullable: true }),
    unique: () => again<N, D>({ isUnique: true }),
    readonly: () => again<N, D>({ isReadonly: true }),
    default: (value: T) => {
      const reading = rule.read(value);
      if ('problem' in reading) throw new Error(`the default ${JSON.stringify(value)} ${reading.problem}`);
      return again<N, true>({}, reading.value);
    },
  };
}

/** The field types' declarations, named as the generator's `name:type` syntax names them. */
export const field = {
  /** Trimmed, `min` to `max` characters (default 1 to 200), nothing invisible. */
  string: (min = 1, max = 200) => declared({ type: 'string', maxLength: max }, stringRule(min, max)),
  /** Trimmed, `min` to `max` characters (default 0 to 10,000); not a sort key. */
  text: (min = 0, max = 10_000) => declared({ type: 'text' }, textRule(min, max)),
  /** A whole number within `min`..`max` (default: the signed 32-bit range). */
  integer: (min?: number, max?: number) => declared({ type: 'integer' }, integerRule(min, max)),
  /** A finite double within the range (`{ min: 0, minExclusive: true }` is "greater than 0"). */
  number: (range: Range = {}) => declared({ type: 'number' }, numberRule(range)),
  /**
   * An exact decimal of `precision` digits, `scale` after the point (`decimal(12, 2)` for money),
   * within the range; its value is the canonical text (`"12.50"`), never a double.
   */
  decimal: (precision: number, scale: number, range: Range<number | string> = {}) =>
    declared({ type: 'decimal', precision, scale }, decimalRule(precision, scale, range)),
  boolean: () => declared({ type: 'boolean' }, booleanRule()),
  /** An instant; read from RFC 3339 with a zone, answered in UTC. */
  datetime: () => declared({ type: 'datetime' }, datetimeRule()),
  /** A calendar date, `YYYY-MM-DD` (a real day); its value is that text, sorted chronologically. */
  date: () => declared({ type: 'date' }, dateRule()),
  /** An e-mail address, normalized as users' e-mails are. */
  email: () => declared({ type: 'email' }, emailRule()),
  uuid: () => declared({ type: 'uuid' }, uuidRule()),
  /** One of the listed values; sorts alphabetically. */
  enum: <const V extends string>(values: readonly V[]) => declared<V>({ type: 'enum', values }, enumRule(values)),
  /** The id of an existing row of the resource named (`ref('customer', 'customers')`). */
  ref: (singular: string, plural: string) => declared({ type: 'ref', references: { singular, plural } }, uuidRule()),
  /**
   * A file (docs/files.md) of one of `types` (`['image/png', 'image/jpeg']`, or `['image/*']`) of at
   * most `maxBytes` (`5 * MB`), stored as an object, uploaded once the item exists: always declared
   * `.optional()`, never unique, and read-only in an item's body (only an upload sets it).
   */
  file: (types: readonly string[], maxBytes: number) => {
    const problem = typesProblem(types);
    if (problem !== undefined) throw new Error(problem);
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 1)
      throw new Error(`a file's largest size must be a positive whole number of bytes`);
    return declared<StoredFile>({ type: 'file', types, maxBytes }, fileRule(types, maxBytes), {
      nullable: false,
      isUnique: false,
      isReadonly: true,
    });
  },
};

/** Bytes in a kilobyte, megabyte and gigabyte (powers of 1,024), for a file field's largest size: `5 * MB`. */
export const KB = 1024;
export const MB = 1024 ** 2;
export const GB = 1024 ** 3;

/** A resource's fields under their TypeScript (camel-case) names, in the order they are stored and shown. */
export type FieldDeclarations = Readonly<Record<string, FieldDeclaration<any, boolean>>>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** `dueAt` → `due_at`, as a type. */
export type SnakeCase<S extends string> = S extends `${infer H}${infer T}`
  ? `${H extends Lowercase<H> ? H : `_${Lowercase<H>}`}${SnakeCase<T>}`
  : S;

/** `dueAt` → `due_at`: a field's JSON (and column) name. */
export const snakeCase = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

type ValueOfField<D> = D extends FieldDeclaration<infer T, infer N> ? (N extends true ? T | null : T) : never;
/** The fields a create may leave out: nullable ones (then null) and those with a default (then it). */
type NullableKeys<F> = {
  [K in keyof F]: F[K] extends FieldDeclaration<unknown, true> | FieldDeclaration<unknown, boolean, true> ? K : never;
}[keyof F];
type RequiredKeys<F> = Exclude<keyof F, NullableKeys<F>>;

/** Every field's value (`| null` where nullable). */
export type FieldValues<F extends FieldDeclarations> = { readonly [K in keyof F]: ValueOfField<F[K]> };
/** What a new row is given: every field, a nullable one may be left out (it is then null). */
export type CreateInput<F extends FieldDeclarations> = { readonly [K in RequiredKeys<F>]: ValueOfField<F[K]> } & {
  readonly [K in NullableKeys<F>]?: ValueOfField<F[K]>;
};
/** A partial change: an absent field stays as it is, `null` clears a nullable one. */
export type Changes<F extends FieldDeclarations> = Partial<FieldValues<F>>;

/** What every stored resource has besides its own fields. */
export interface StoredProps {
  readonly id: string;
  /** Bumped by every change; a conditional write names the version it expects (the REST `ETag`). */
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** An owned resource's rows only: the id of the user who created the row (set by the server, never changed). */
  readonly ownerId?: string;
}

/** A resource's whole stored state. */
export type PropsOf<F extends FieldDeclarations> = FieldValues<F> & StoredProps;

/** The JSON names a list of the resource sorts by: its sortable fields, then the timestamps. */
export type SortFieldOf<F extends FieldDeclarations> =
  | { [K in keyof F & string]: F[K]['type'] extends 'text' | 'file' ? never : SnakeCase<K> }[keyof F & string]
  | 'created_at'
  | 'updated_at';

/** A resource, declared once: its names and its fields. */
export interface ResourceDeclaration<F extends FieldDeclarations = FieldDeclarations> {
  /** Singular, snake case (`purchase_order`). */
  readonly name: string;
  /** Plural, snake case (`purchase_orders`): the table, and (in kebab case) the REST path. */
  readonly plural: string;
  readonly fields: F;
  /** The `string` field a list's `q` searches (case-insensitive "contains"), if any. */
  readonly search?: keyof F & string;
  /** The sort keys, by JSON name: each sortable field in order, then `created_at`, `updated_at`. */
  readonly sortFields: readonly SortFieldOf<F>[];
  /** Each field's rule under its JSON name (a nullable field's allows null). */
  readonly rules: Readonly<Record<string, FieldRule<unknown>>>;
  /**
   * Each row belongs to the user who created it (`ownerId`, JSON `owner_id`): set by the server
   * from the caller, answered, never taken from a client; an access rule of scope `own` reaches
   * only the caller's rows.
   */
  readonly owned: boolean;
  /**
   * A GET by id is answered through the shared cache (ADR 0042): kept `cache.ttl`, forgotten on
   * every instance by each update and delete; an owned row is answered only to its owner.
   */
  readonly cached: boolean;
  /** Its commands by verb (`ship`), each moving an enum field between listed states; the entity has a method of each name. */
  readonly commands?: CommandDeclarations<keyof F & string>;
}

/** The JSON name of an owned resource's owner. */
export const OWNER_ID = 'owner_id';

/**
 * Declares a resource: `declareResource({ name: 'product', plural: 'products', fields: {...}, search: 'name' })`.
 * Its `commands` (`{ ship: { field: 'status', from: ['paid'], to: 'shipped' } }`) are checked here:
 * each moves an enum field between states it lists.
 */
export function declareResource<const F extends FieldDeclarations>(spec: {
  readonly name: string;
  readonly plural: string;
  readonly fields: F;
  readonly search?: keyof F & string;
  /** Each row belongs to the user who created it (default false). */
  readonly owned?: boolean;
  /** A GET by id goes through the shared cache (default false). */
  readonly cached?: boolean;
  readonly commands?: CommandDeclarations<keyof F & string>;
}): ResourceDeclaration<F> {
  const entries = Object.entries(spec.fields);
  if (spec.search !== undefined && spec.fields[spec.search]?.type !== 'string') {
    throw new Error(`${spec.name}: the search field ${spec.search} is not a string field`);
  }
  if (spec.owned === true && 'ownerId' in spec.fields) {
    throw new Error(`${spec.name}: an owned resource has its owner_id already; no field may take that name`);
  }
  for (const [key, f] of entries) {
    if (f.type !== 'file') continue;
    if (!f.nullable)
      throw new Error(`${spec.name}: the file field ${key} must be optional (a file is uploaded once its item exists)`);
    if (f.isUnique || f.defaultValue !== undefined)
      throw new Error(`${spec.name}: the file field ${key} cannot be unique or have a default`);
  }
  const refused = commandProblems(spec.fields, spec.commands ?? {});
  if (refused.length > 0) throw new Error(`${spec.name}: ${refused.join('; ')}`);
  return {
    ...spec,
    owned: spec.owned === true,
    cached: spec.cached === true,
    sortFields: [
      ...entries.filter(([, f]) => f.sortable).map(([key]) => snakeCase(key)),
      'created_at',
      'updated_at',
    ] as SortFieldOf<F>[],
    rules: Object.fromEntries(entries.map(([key, f]) => [snakeCase(key), f.nullable ? optionalRule(f.rule) : f.rule])),
  };
}

/**
 * Throws one ValidationError listing every present value that breaks its field's rule (by JSON name),
 * and, given the values a read-only field must keep, every read-only field set to anything else.
 */
function guard(
  declaration: Pick<ResourceDeclaration, 'fields' | 'rules' | 'owned'>,
  values: Readonly<Record<string, unknown>>,
  kept?: Readonly<Record<string, unknown>>,
): void {
  const byJsonName: Record<string, unknown> = {};
  for (const key of Object.keys(declaration.fields)) byJsonName[snakeCase(key)] = values[key];
  try {
    guardFields(declaration.rules, byJsonName);
  } catch (error) {
    if (!(error instanceof ValidationError) || kept === undefined) throw error;
    // One entry per failing field: a value that breaks its rule is not reported read-only as well.
    const failing = new Set(error.fields.map((f) => f.field));
    const readonly = readonlyViolations(declaration, values, kept).filter((v) => !failing.has(v.field));
    throw new ValidationError([...error.fields, ...readonly]);
  }
  if (kept === undefined) return;
  const violations = readonlyViolations(declaration, values, kept);
  if (violations.length > 0) throw new ValidationError(violations);
}

/** The read-only fields `values` sets to anything but what they must keep (an owned resource's owner too). */
function readonlyViolations(
  declaration: Pick<ResourceDeclaration, 'fields' | 'owned'>,
  values: Readonly<Record<string, unknown>>,
  kept: Readonly<Record<string, unknown>>,
): FieldViolation[] {
  const violations = Object.entries(declaration.fields)
    .filter(([key, f]) => f.isReadonly && values[key] !== undefined && !sameValue(values[key], kept[key] ?? null))
    .map(([key, f]) => ({ field: snakeCase(key), message: f.type === 'file' ? UPLOADED_ONLY : READ_ONLY }));
  if (declaration.owned && values.ownerId !== undefined && values.ownerId !== kept.ownerId)
    violations.push({ field: OWNER_ID, message: READ_ONLY });
  return violations;
}

/** The message of a client's value for a field only the server sets. */
export const READ_ONLY = 'is read-only';

/** Equal stored values: instants by their time, files by their object, everything else as it is (text, numbers, decimals' text). */
const sameValue = (a: unknown, b: unknown): boolean =>
  a instanceof Date && b instanceof Date
    ? a.getTime() === b.getTime()
    : isFile(a) && isFile(b)
      ? a.key === b.key
      : a === b;

const isFile = (value: unknown): value is StoredFile => typeof value === 'object' && value !== null && 'key' in value;

/** What a create stores for each field: the value given, else the field's default, else null. */
function createdValues(fields: FieldDeclarations, values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(fields).map(([key, f]) => [key, values[key] === undefined ? (f.defaultValue ?? null) : values[key]]),
  );
}

/** What a read-only field must be on create: its default, else null. */
function createdDefaults(fields: FieldDeclarations): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).map(([key, f]) => [key, f.defaultValue ?? null]));
}

/** An owned resource's new row's owner; a row without one is a programming error, thrown. */
function ownerOf(declaration: Pick<ResourceDeclaration, 'name'>, ownerId: unknown): { ownerId: string } {
  if (typeof ownerId !== 'string' || ownerId === '')
    throw new Error(`${declaration.name}: an owned row needs its owner`);
  return { ownerId };
}

/** The instance side every entity of a declared resource has. */
export interface ResourceEntity<F extends FieldDeclarations> {
  readonly id: string;
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** An owned resource's row: the id of the user it belongs to (else undefined). */
  readonly ownerId: string | undefined;
  /**
   * Refuses (the resource's version-mismatch error) unless the entity is at one of `versions` (the
   * expectation of a conditional write); `undefined` expects nothing, an empty list nothing matches.
   */
  requireVersion(versions: readonly number[] | undefined): void;
  /**
   * Refuses (a ConflictError naming the current state) unless the entity is in a state the declared
   * command `verb` starts from: the first line of a command's method (`this.requireState('ship')`).
   */
  requireState(verb: string): void;
  /**
   * A client's partial change: absent fields stay, present ones are checked and set; the version is
   * bumped. A read-only field may only be sent back as it is.
   */
  update(changes: Changes<F>, now: Date): this;
  /**
   * The resource's own change (a command such as `ship`): like `update`, read-only fields included.
   * Call it from the entity's methods, never with a client's values.
   */
  apply(changes: Changes<F>, now: Date): this;
  toProps(): PropsOf<F>;
}

/** The class `entityOf` makes: constructed from stored props, with a getter per field. */
export interface ResourceEntityClass<F extends FieldDeclarations> {
  /** An entity from its stored props (`restore` reads better where it is read back from storage). */
  new (props: PropsOf<F>): ResourceEntity<F> & FieldValues<F>;
  readonly declaration: ResourceDeclaration<F>;
  /** The resource's expected failures (not found, version mismatch, still referenced), named after it. */
  readonly errors: ResourceErrors;
  /**
   * A new entity at version 1; refuses, listing every failing field, a value that breaks its field's
   * rule. An owned resource's row is given its owner (`ownerId`, the caller).
   */
  create<T>(
    this: new (props: PropsOf<F>) => T,
    input: CreateInput<F> & { readonly id: string; readonly ownerId?: string },
    now: Date,
  ): T;
  /** An entity read back from storage, at its stored version. */
  restore<T>(this: new (props: PropsOf<F>) => T, props: PropsOf<F>): T;
}

/**
 * The base class of a declared resource's entity: immutable, every change checked against the
 * fields' rules and bumping the version, with a getter per declared field. A resource's own
 * behaviour (a command such as "only a draft can be sent", declared in `commands`) goes in the subclass:
 * `class Invoice extends entityOf(INVOICE) { send(now) { this.requireState('send'); return this.apply({ status: 'sent' }, now); } }`.
 */
export function entityOf<F extends FieldDeclarations>(
  declaration: ResourceDeclaration<F>,
  errors: ResourceErrors = resourceErrors(declaration.name),
): ResourceEntityClass<F> {
  const keys = Object.keys(declaration.fields);
  const defaults = createdDefaults(declaration.fields);
  const versionMismatch = (id: string): DomainError => errors.versionMismatch(id);
  class Entity {
    static readonly declaration = declaration;
    static readonly errors = errors;

    constructor(private readonly props: PropsOf<F>) {}

    static create<T>(
      this: new (props: PropsOf<F>) => T,
      input: CreateInput<F> & { readonly id: string; readonly ownerId?: string },
      now: Date,
    ): T {
      const values = input as unknown as Record<string, unknown>;
      const owner = declaration.owned ? ownerOf(declaration, input.ownerId) : {};
      guard(declaration, values, { ...defaults, ...owner });
      const fields = createdValues(declaration.fields, values);
      return new this({ ...fields, ...owner, id: input.id, version: 1, createdAt: now, updatedAt: now } as PropsOf<F>);
    }

    static restore<T>(this: new (props: PropsOf<F>) => T, props: PropsOf<F>): T {
      return new this(props);
    }

    get id(): string {
      return this.props.id;
    }
    get version(): number {
      return this.props.version;
    }
    get createdAt(): Date {
      return this.props.createdAt;
    }
    get updatedAt(): Date {
      return this.props.updatedAt;
    }
    get ownerId(): string | undefined {
      return this.props.ownerId;
    }

    requireVersion(versions: readonly number[] | undefined): void {
      if (versions !== undefined && !versions.includes(this.props.version)) throw versionMismatch(this.props.id);
    }

    requireState(verb: string): void {
      const command = declaration.commands?.[verb];
      if (!command) throw new Error(`${declaration.name} declares no command ${verb}`);
      const current = (this.props as Record<string, unknown>)[command.field];
      if (!command.from.includes(current as string))
        throw wrongState(declaration.name, verb, command, current, this.id);
    }

    update(changes: Changes<F>, now: Date): this {
      return this.changed(changes, now, this.props);
    }

    apply(changes: Changes<F>, now: Date): this {
      return this.changed(changes, now, undefined);
    }

    /** The entity with `changes` set, checked (and read-only fields held to `kept`, when given). */
    private changed(changes: Changes<F>, now: Date, kept: Readonly<Record<string, unknown>> | undefined): this {
      const values = changes as Readonly<Record<string, unknown>>;
      guard(declaration, values, kept);
      const set = Object.fromEntries(keys.filter((key) => values[key] !== undefined).map((key) => [key, values[key]]));
      const Class = this.constructor as new (props: PropsOf<F>) => this;
      return new Class({ ...this.props, ...set, version: this.props.version + 1, updatedAt: now });
    }

    toProps(): PropsOf<F> {
      return { ...this.props };
    }
  }
  for (const key of keys) {
    Object.defineProperty(Entity.prototype, key, {
      get(this: { props: Record<string, unknown> }) {
        return this.props[key];
      },
      enumerable: false,
      configurable: false,
    });
  }
  return Entity as unknown as ResourceEntityClass<F>;
}
