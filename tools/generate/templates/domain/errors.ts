import type { ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';

/** `src/domain/<snake>/<Pascal>Errors.ts`: not found, a conditional write at another version, a delete of a row still referenced. */
export function errorsFile(m: ResourceModel): FileContents {
  const { pascal, snake, human } = m.names;
  const contents = `import { ConflictError, NotFoundError, PreconditionFailedError } from '../shared/DomainError.js';

export class ${pascal}NotFoundError extends NotFoundError {
  constructor(id: string) {
    super('${human}', id);
  }
}

/** A conditional write named a version of the ${human.toLowerCase()} that is not the stored one: nothing was written. */
export class ${pascal}VersionMismatchError extends PreconditionFailedError {
  constructor(id: string) {
    super('${human.toLowerCase()} is not at the expected version; read it again', \`id: \${id}\`);
  }
}

/** Rows of another resource still name this ${human.toLowerCase()}: it was not deleted. */
export class ${pascal}StillReferencedError extends ConflictError {
  constructor(id: string) {
    super('${human} is still referenced', \`id: \${id}\`);
  }
}
`;
  return { path: `src/domain/${snake}/${pascal}Errors.ts`, contents };
}
