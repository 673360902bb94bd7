import type { ResourceErrors } from '../../domain/shared/resourceErrors.js';
import type { ResourceRepository } from '../../domain/shared/ResourceRepository.js';

/** What every generic use case of a declared resource works with: its rows, and its errors. */
export interface ResourceKit<E, S extends string = string> {
  readonly rows: ResourceRepository<E, S>;
  readonly errors: ResourceErrors;
}
