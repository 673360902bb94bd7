import { ConflictError, NotFoundError } from '../shared/DomainError.js';

export class ProductNotFoundError extends NotFoundError {
  constructor(id: string) {
    super('Product', id);
  }
}

/** The product changed since it was read: the write would have overwritten someone else's. */
export class ProductVersionConflictError extends ConflictError {
  constructor(id: string) {
    super('product was changed by another request; read it again and retry', `id: ${id}`);
  }
}
