import { ConflictError, NotFoundError } from '../shared/DomainError.js';

export class UserNotFoundError extends NotFoundError {
  constructor(id: string) {
    super('User', id);
  }
}

export class EmailAlreadyRegisteredError extends ConflictError {
  constructor() {
    super('email already registered');
  }
}
