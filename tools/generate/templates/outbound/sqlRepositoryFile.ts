import type { ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import { docBlock, importLines, upperOf } from './source.js';

/** `Sql<Pascal>Repository.ts`: the resource's table on the shared SQL core (ADR 0016). */
export function sqlRepositoryFile(m: ResourceModel): FileContents {
  const { snake, pascal, pluralHuman, pluralSnake } = m.names;
  const domain = `../../../domain/${snake}`;
  const imports = importLines([
    [`type { ${pascal}, ${pascal}Props }`, `${domain}/${pascal}.js`],
    [`type { ${pascal}Repository, ${pascal}SortField }`, `${domain}/${pascal}Repository.js`],
    [`{ ${upperOf(m.names)}_TABLE }`, `./schemas/${pascal}Schema.js`],
    ['type { Database }', './database.js'],
    ['{ SqlResourceRepository }', './SqlResourceRepository.js'],
  ]);
  const contents = `${imports}

${docBlock(`${pluralHuman} in SQLite or PostgreSQL: the \`${pluralSnake}\` table on the shared resource core.`)}
export class Sql${pascal}Repository extends SqlResourceRepository<${pascal}, ${pascal}Props, ${pascal}SortField> implements ${pascal}Repository {
  constructor(database: Database) {
    super(database, ${upperOf(m.names)}_TABLE);
  }
}
`;
  return { path: `src/adapters/outbound/mikroorm/Sql${pascal}Repository.ts`, contents };
}
