import { ConflictError, NotFoundError, PreconditionFailedError } from '../shared/DomainError.js';

export class ProductNotFoundError extends NotFoundError {
  constructor(id: string) {
    super('Product', id);
  }
}

/** A conditional write named a version of the product that is not the stored one: nothing was written. */
export class ProductVersionMismatchError extends PreconditionFailedError {
  constructor(id: string) {
    super('product is not at the expected version; read it again', `id: ${id}`);
  }
}

/** Rows of another resource still name this product: it was not deleted. */
export class ProductStillReferencedError extends ConflictError {
  constructor(id: string) {
    super('Product is still referenced', `id: ${id}`);
  }
}
