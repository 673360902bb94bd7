import {
  NotUniqueError,
  ValidationError,
  type DomainError,
  type FieldViolation,
} from '../../../domain/shared/DomainError.js';
import { notUniqueMessage } from '../../../domain/shared/resourceErrors.js';
import { unitsOf } from '../../../domain/shared/Decimal.js';
import type { ListQuery, Page } from '../../../domain/shared/Page.js';
import { snakeCase, type FieldDeclarations, type ResourceDeclaration } from '../../../domain/shared/resource.js';
import { pageOf, type Comparable } from './sorting.js';

/** The props every stored resource has. */
interface StoredProps {
  readonly id: string;
  readonly version: number;
  /** An owned resource's rows: their owner. */
  readonly ownerId?: string;
}

/** What a reference field points at: the referenced resource's repository, and its name in messages. */
export interface MemoryReference {
  readonly repository: { has(id: string): boolean; guardDeletes(isReferenced: (id: string) => boolean): void };
  /** `must name an existing <target>`. */
  readonly target: string;
}

/** A resource as the memory core needs it: the one row mapper, the search field, references, the 409. */
export interface MemoryResource<E, P extends StoredProps> {
  fromRow(props: P): E;
  toRow(entity: E): P;
  /** A declared resource's declaration: its search field, and its field types (a decimal sorts by value). */
  readonly declaration?: { readonly fields: FieldDeclarations; readonly search?: string };
  /** The field `q` searches (case-insensitive "contains"), for a resource with no declaration. */
  readonly search?: keyof P & string;
  /** Reference fields (camel case, e.g. `customerId`); the list filters on them by their snake name. */
  readonly references?: { readonly [K in keyof P & string]?: MemoryReference };
  /** 409: the row cannot be deleted while other rows reference it. */
  stillReferenced(id: string): DomainError;
  /** 409: another row holds these `unique` fields' values (snake case). */
  notUnique?(fields: readonly string[]): DomainError;
}

/** `customer_id` → `customerId`. */
const camelCase = (name: string): string => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/**
 * Any resource in a Map, with the SQL core's behaviour (see ADR 0016): an atomic update (nothing
 * is awaited between the read and the write), a conditional delete, lists searched, filtered and
 * sorted like SQL (nulls last, ties by id), and references kept as foreign keys keep them: a
 * write naming a row that does not exist is a ValidationError on that field, and a row still
 * referenced cannot be deleted — and `unique` fields kept as unique indexes keep them: a write
 * giving one another row's value (not null) is refused, 409 naming the field.
 */
export class InMemoryResourceRepository<E, P extends StoredProps, F extends string> {
  private readonly rows = new Map<string, P>();
  private readonly referrers: ((id: string) => boolean)[] = [];
  private readonly references: [string, MemoryReference][];
  /** The declared `unique` fields (camel case). */
  private readonly unique: string[];

  constructor(private readonly resource: MemoryResource<E, P>) {
    this.unique = Object.entries(resource.declaration?.fields ?? {})
      .filter(([, field]) => field.isUnique)
      .map(([key]) => key);
    this.references = Object.entries(resource.references ?? {}).filter(
      (entry): entry is [string, MemoryReference] => entry[1] !== undefined,
    );
    for (const [prop, reference] of this.references) {
      reference.repository.guardDeletes((id) => [...this.rows.values()].some((row) => this.valueOf(row, prop) === id));
    }
  }

  /** Whether a row with this id is stored (a referencing repository's foreign key check). */
  has(id: string): boolean {
    return this.rows.has(id);
  }

  /** Refuses deletes of rows `isReferenced` says another repository still points at. */
  guardDeletes(isReferenced: (id: string) => boolean): void {
    this.referrers.push(isReferenced);
  }

  private valueOf(row: P, prop: string): unknown {
    return (row as unknown as Record<string, unknown>)[prop];
  }

  /** Throws the ValidationError a foreign key would cause, naming every reference that names nothing. */
  private checkReferences(row: P): void {
    const violations: FieldViolation[] = [];
    for (const [prop, reference] of this.references) {
      const value = this.valueOf(row, prop);
      if (typeof value === 'string' && !reference.repository.has(value)) {
        violations.push({
          field: snakeCase(prop),
          message: `must name an existing ${reference.target}`,
        });
      }
    }
    if (violations.length > 0) throw new ValidationError(violations);
  }

  /** Throws the 409 a unique index would cause, naming every `unique` field whose value another row holds. */
  private checkUnique(row: P): void {
    const key = (value: unknown): unknown => (value instanceof Date ? value.getTime() : value);
    const taken = this.unique.filter((prop) => {
      const value = key(this.valueOf(row, prop));
      if (value === null || value === undefined) return false;
      for (const other of this.rows.values())
        if (other.id !== row.id && key(this.valueOf(other, prop)) === value) return true;
      return false;
    });
    if (taken.length === 0) return;
    const fields = taken.map(snakeCase);
    throw (
      this.resource.notUnique?.(fields) ??
      new NotUniqueError(fields.map((field) => ({ field, message: notUniqueMessage('row') })))
    );
  }

  async add(entity: E): Promise<void> {
    const row = this.resource.toRow(entity);
    this.checkReferences(row);
    this.checkUnique(row);
    this.rows.set(row.id, row);
  }

  /** The stored row with this id, unless `owner` is given and it belongs to someone else. */
  private stored(id: string, owner: string | undefined): P | undefined {
    const row = this.rows.get(id);
    return row && (owner === undefined || row.ownerId === owner) ? row : undefined;
  }

  async findById(id: string, owner?: string): Promise<E | undefined> {
    const row = this.stored(id, owner);
    return row ? this.resource.fromRow(row) : undefined;
  }

  /** Atomic because nothing is awaited between the read and the write. */
  async update(id: string, change: (current: E) => E, owner?: string): Promise<E | undefined> {
    const stored = this.stored(id, owner);
    if (!stored) return undefined;
    const current = this.resource.fromRow(stored);
    const next = change(current);
    if (next !== current) {
      const row = this.resource.toRow(next);
      this.checkReferences(row);
      this.checkUnique(row);
      this.rows.set(id, row);
    }
    return next;
  }

  async delete(id: string, onlyAtVersions?: readonly number[], owner?: string): Promise<boolean> {
    const stored = this.stored(id, owner);
    if (!stored || (onlyAtVersions !== undefined && !onlyAtVersions.includes(stored.version))) return false;
    if (this.referrers.some((isReferenced) => isReferenced(id))) throw this.resource.stillReferenced(id);
    return this.rows.delete(id);
  }

  /** The rows with these ids (an unknown id is left out). */
  async findByIds(ids: readonly string[], owner?: string): Promise<E[]> {
    return [...new Set(ids)].flatMap((id) => {
      const row = this.stored(id, owner);
      return row ? [this.resource.fromRow(row)] : [];
    });
  }

  /** For each of `ids`, the page of rows whose reference `field` (snake case) names it; every id gets a page. */
  async listByReference(field: string, ids: readonly string[], query: ListQuery<F>): Promise<Map<string, Page<E>>> {
    const pages = new Map<string, Page<E>>();
    for (const id of new Set(ids))
      pages.set(id, await this.list({ ...query, filters: { ...query.filters, [field]: id } }));
    return pages;
  }

  async list(query: ListQuery<F>): Promise<Page<E>> {
    const needle = query.q?.toLowerCase();
    const search = this.resource.declaration?.search ?? this.resource.search;
    const filters = Object.entries(query.filters ?? {}).map(([field, id]) => {
      const prop = camelCase(field);
      if (!this.references.some(([reference]) => reference === prop)) throw new Error(`${field} is not a filter`);
      return [prop, id] as const;
    });
    const matching = [...this.rows.values()].filter((row) => {
      if (query.owner !== undefined && row.ownerId !== query.owner) return false;
      if (needle && search !== undefined) {
        const value = this.valueOf(row, search);
        if (typeof value !== 'string' || !value.toLowerCase().includes(needle)) return false;
      }
      return filters.every(([prop, id]) => this.valueOf(row, prop) === id);
    });
    const prop = camelCase(query.sort);
    const declared = this.resource.declaration?.fields[prop];
    const scale = declared?.type === 'decimal' ? (declared.scale ?? 0) : undefined;
    // A decimal sorts by its value (as its count of the smallest unit: exact), not by its text.
    const field = (row: P): Comparable => {
      const value = (this.valueOf(row, prop) ?? null) as Comparable;
      return scale === undefined || typeof value !== 'string' ? value : Number(unitsOf(value, scale));
    };
    return pageOf(matching, query, { [query.sort]: field } as Record<F, (row: P) => Comparable>, (row) =>
      this.resource.fromRow(row),
    );
  }
}

/** A declared resource's entity class, as the memory core reads and writes its rows. */
export interface MemoryEntityClass {
  readonly declaration: Pick<ResourceDeclaration, 'plural' | 'fields' | 'search'>;
  readonly errors: { stillReferenced(id: string): DomainError; notUnique?(fields: readonly string[]): DomainError };
  restore(props: never): unknown;
}

/**
 * The rows of a declared resource in memory, beside the repositories of the resources its `ref`
 * fields name (by their plural: `{ customers }`), whose rows its writes must name.
 */
export function memoryRepositoryOf<E extends { toProps(): P }, P extends StoredProps, F extends string = string>(
  Entity: MemoryEntityClass,
  parents: Readonly<Record<string, InMemoryResourceRepository<unknown, StoredProps, string>>> = {},
): InMemoryResourceRepository<E, P, F> {
  const references: Record<string, MemoryReference> = {};
  for (const [key, field] of Object.entries(Entity.declaration.fields)) {
    if (field.type !== 'ref' || !field.references) continue;
    const repository = parents[field.references.plural];
    if (!repository)
      throw new Error(`${Entity.declaration.plural}: no repository given for ${field.references.plural}`);
    references[key] = { repository, target: field.references.singular.replace(/_/g, ' ') };
  }
  return new InMemoryResourceRepository<E, P, F>({
    fromRow: (props) => Entity.restore(props as never) as E,
    toRow: (entity) => entity.toProps(),
    declaration: Entity.declaration,
    references: references as MemoryResource<E, P>['references'],
    stillReferenced: (id) => Entity.errors.stillReferenced(id),
    notUnique: (fields) =>
      Entity.errors.notUnique?.(fields) ??
      new NotUniqueError(fields.map((field) => ({ field, message: notUniqueMessage('row') }))),
  });
}
