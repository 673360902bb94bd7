import {
  ConflictError,
  NotFoundError,
  NotUniqueError,
  PreconditionFailedError,
  type DomainError,
} from './DomainError.js';

/** The expected failures every declared resource has, named after it (`Purchase order not found`). */
export interface ResourceErrors {
  /** No row has this id (or the id is not one): 404. */
  notFound(id: string): DomainError;
  /** A conditional write named a version that is not the stored one: nothing was written (412). */
  versionMismatch(id: string): DomainError;
  /** Rows of another resource still name this row: it was not deleted (409). */
  stillReferenced(id: string): DomainError;
  /** Another row holds these fields' values (JSON names), which must be unique: nothing was written (409). */
  notUnique(fields: readonly string[]): DomainError;
}

/** The message of a field whose value another row of `human` (lower case, `book`) holds already. */
export const notUniqueMessage = (human: string): string => `must be unique: another ${human} has this value`;

/** `purchase_order` → `Purchase order`: the resource in messages. */
export const humanName = (name: string): string => {
  const words = name.split('_').join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** The errors of the resource called `name` (singular, snake case). */
export function resourceErrors(name: string): ResourceErrors {
  const human = humanName(name);
  return {
    notFound: (id) => new NotFoundError(human, id),
    versionMismatch: (id) =>
      new PreconditionFailedError(`${human.toLowerCase()} is not at the expected version; read it again`, `id: ${id}`),
    stillReferenced: (id) => new ConflictError(`${human} is still referenced`, `id: ${id}`),
    notUnique: (fields) =>
      new NotUniqueError(fields.map((field) => ({ field, message: notUniqueMessage(human.toLowerCase()) }))),
  };
}
