import type { Clock } from '../ports/Clock.js';
import type { IdGenerator } from '../ports/IdGenerator.js';
import type { ResourceRepository } from '../../domain/shared/ResourceRepository.js';

/** How a declared resource makes a new row: its entity class's `create`. */
export interface Creates<E, I> {
  create(input: I & { readonly id: string }, now: Date): E;
}

/**
 * Creates a row of a declared resource; a ValidationError lists every field that breaks its rule
 * (or a reference that names no row), and nothing is stored.
 */
export class CreateResource<E, I> {
  constructor(
    private readonly deps: {
      readonly entity: Creates<E, I>;
      readonly rows: ResourceRepository<E>;
      readonly ids: IdGenerator;
      readonly clock: Clock;
    },
  ) {}

  async execute(input: I): Promise<E> {
    const { entity, rows, ids, clock } = this.deps;
    const created = entity.create({ ...input, id: ids.newId() }, clock.now());
    await rows.add(created);
    return created;
  }
}
