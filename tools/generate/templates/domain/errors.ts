import type { ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';

/** `src/domain/<snake>/<Pascal>Errors.ts`: not found, and a conditional write at another version. */
export function errorsFile(m: ResourceModel): FileContents {
  const { pascal, snake, human } = m.names;
  const contents = `import { NotFoundError, PreconditionFailedError } from '../shared/DomainError.js';

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
`;
  return { path: `src/domain/${snake}/${pascal}Errors.ts`, contents };
}
