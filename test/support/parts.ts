import type { MikroORM } from '@mikro-orm/core';
import type { AbstractSqlConnection } from '@mikro-orm/knex';
import type { Database } from '../../src/adapters/outbound/mikroorm/database.js';
import type { MemoryReference } from '../../src/adapters/outbound/memory/InMemoryResourceRepository.js';
import { InMemoryResourceRepository } from '../../src/adapters/outbound/memory/InMemoryResourceRepository.js';
import { createResourceTable, type ResourceTable } from '../../src/adapters/outbound/mikroorm/resourceTable.js';
import { SqlResourceRepository } from '../../src/adapters/outbound/mikroorm/SqlResourceRepository.js';
import { ConflictError } from '../../src/domain/shared/DomainError.js';

/**
 * A test-only resource with the field types products lack — optional fields, integer, boolean,
 * datetime, enum, e-mail, text — and a reference to products, to run the generic repository
 * contract on. It lives here, not in src: no service serves it.
 */
export interface PartProps {
  readonly id: string;
  readonly label: string;
  readonly notes: string | null;
  readonly quantity: number | null;
  readonly weight: number | null;
  readonly active: boolean | null;
  readonly dueAt: Date | null;
  readonly grade: 'high' | 'low' | 'mid' | null;
  readonly contact: string | null;
  readonly productId: string;
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export const PART_SORT_FIELDS = [
  'label',
  'quantity',
  'weight',
  'active',
  'due_at',
  'grade',
  'contact',
  'created_at',
  'updated_at',
] as const;
export type PartSortField = (typeof PART_SORT_FIELDS)[number];

/** The test aggregate: immutable, every change bumps the version. */
export class Part {
  private constructor(private readonly props: PartProps) {}

  static restore(props: PartProps): Part {
    return new Part(props);
  }

  get id(): string {
    return this.props.id;
  }
  get version(): number {
    return this.props.version;
  }

  update(changes: Partial<Omit<PartProps, 'id' | 'version' | 'createdAt' | 'updatedAt'>>, now: Date): Part {
    return new Part({ ...this.props, ...changes, version: this.props.version + 1, updatedAt: now });
  }

  toProps(): PartProps {
    return { ...this.props };
  }
}

export const PART_TABLE: ResourceTable<Part, PartProps, PartSortField> = {
  table: 'test_parts',
  columns: {
    label: { kind: 'string', length: 80 },
    notes: { kind: 'text', optional: true },
    quantity: { kind: 'integer', optional: true },
    weight: { kind: 'number', optional: true },
    active: { kind: 'boolean', optional: true },
    dueAt: { kind: 'datetime', optional: true },
    grade: { kind: 'enum', values: ['low', 'mid', 'high'], optional: true },
    contact: { kind: 'email', optional: true },
    productId: { kind: 'ref', references: { table: 'products', target: 'product' } },
  },
  sortable: PART_SORT_FIELDS,
  search: 'label',
  fromRow: (props) => Part.restore(props),
  toRow: (part) => part.toProps(),
  stillReferenced: (id) => new ConflictError('Part is still referenced', `id: ${id}`),
};

export class SqlPartRepository extends SqlResourceRepository<Part, PartProps, PartSortField> {
  constructor(database: Database) {
    super(database, PART_TABLE);
  }
}

export class InMemoryPartRepository extends InMemoryResourceRepository<Part, PartProps, PartSortField> {
  constructor(products: MemoryReference['repository']) {
    super({
      fromRow: (props) => Part.restore(props),
      toRow: (part) => part.toProps(),
      search: 'label',
      references: { productId: { repository: products, target: 'product' } },
      stillReferenced: (id) => new ConflictError('Part is still referenced', `id: ${id}`),
    });
  }
}

/** Creates `test_parts` (dropping a leftover one) the way a generated migration would. */
export async function createPartsTable(orm: MikroORM): Promise<void> {
  const knex = (orm.em.getConnection() as AbstractSqlConnection).getKnex();
  await dropPartsTable(orm);
  for (const statement of createResourceTable(knex, PART_TABLE)) await knex.raw(statement);
}

export async function dropPartsTable(orm: MikroORM): Promise<void> {
  await (orm.em.getConnection() as AbstractSqlConnection).getKnex().raw('drop table if exists test_parts');
}
