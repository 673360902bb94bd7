import { ValidationError, type FieldViolation } from '../../domain/shared/DomainError.js';
import { OWNER_ID, READ_ONLY } from '../../domain/shared/resource.js';
import type { ResourceRepository } from '../../domain/shared/ResourceRepository.js';
import type { Clock } from '../ports/Clock.js';
import type { IdGenerator } from '../ports/IdGenerator.js';

/** How a declared resource makes a new row: its entity class's `create` (given its owner when owned). */
export interface Creates<E, I> {
  readonly declaration?: { readonly owned: boolean };
  create(input: I & { readonly id: string; readonly ownerId?: string }, now: Date): E;
}

/**
 * Creates a row of a declared resource; a ValidationError lists every field that breaks its rule
 * (or a reference that names no row), and nothing is stored. An owned resource's row belongs to
 * `owner` (the caller); an `ownerId` in the input (a client's body) naming anyone else is refused
 * as read-only.
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

  async execute(input: I & { readonly owner?: string }): Promise<E> {
    const { entity, rows, ids, clock } = this.deps;
    const { owner, ownerId: claimed, ...values } = input as I & { owner?: string; ownerId?: unknown };
    const owned = entity.declaration?.owned === true;
    const refused: FieldViolation[] =
      owned && claimed !== undefined && claimed !== owner ? [{ field: OWNER_ID, message: READ_ONLY }] : [];
    let created: E;
    try {
      created = entity.create(
        { ...(values as I), id: ids.newId(), ...(owned && owner !== undefined ? { ownerId: owner } : {}) },
        clock.now(),
      );
    } catch (error) {
      if (error instanceof ValidationError && refused.length > 0)
        throw new ValidationError([...error.fields, ...refused]);
      throw error;
    }
    if (refused.length > 0) throw new ValidationError(refused);
    await rows.add(created);
    return created;
  }
}
