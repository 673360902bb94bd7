import type { ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import { docBlock, importLines, lowerHuman, upperOf } from './source.js';

/** `Sql<Pascal>Repository.ts`: the resource's table (derived from its declaration) on the shared SQL core (ADR 0016). */
export function sqlRepositoryFile(m: ResourceModel): FileContents {
  const { snake, pascal, pluralHuman, pluralSnake } = m.names;
  const domain = `../../../domain/${snake}`;
  const imports = importLines([
    [`{ ${pascal}, type ${pascal}Props }`, `${domain}/${pascal}.js`],
    [`{ ${pascal}StillReferencedError }`, `${domain}/${pascal}Errors.js`],
    [`type { ${pascal}Repository, ${pascal}SortField }`, `${domain}/${pascal}Repository.js`],
    ['type { Database }', './database.js'],
    ['{ tableOf }', './resourceTable.js'],
    ['{ SqlResourceRepository }', './SqlResourceRepository.js'],
  ]);
  const contents = `${imports}

${docBlock(`The \`${pluralSnake}\` table as its repository sees it, derived from the ${lowerHuman(m.names)}'s declaration.`)}
export const ${upperOf(m.names)}_TABLE = tableOf(${pascal}, (id) => new ${pascal}StillReferencedError(id));

${docBlock(`${pluralHuman} in SQLite or PostgreSQL: the \`${pluralSnake}\` table on the shared resource core.`)}
export class Sql${pascal}Repository extends SqlResourceRepository<${pascal}, ${pascal}Props, ${pascal}SortField> implements ${pascal}Repository {
  constructor(database: Database) {
    super(database, ${upperOf(m.names)}_TABLE);
  }
}
`;
  return { path: `src/adapters/outbound/mikroorm/Sql${pascal}Repository.ts`, contents };
}
