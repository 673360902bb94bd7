import type { ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import { docBlock, importLines, upperOf } from './source.js';

/** `MikroOrm<Pascal>Repository.ts`: the resource's table on the shared SQL core (ADR 0016). */
export function mikroOrmRepositoryFile(m: ResourceModel): FileContents {
  const { snake, pascal, pluralHuman, pluralSnake } = m.names;
  const domain = `../../../domain/${snake}`;
  const imports = importLines([
    ['type { MikroORM }', '@mikro-orm/core'],
    [`type { ${pascal}, ${pascal}Props }`, `${domain}/${pascal}.js`],
    [`type { ${pascal}Repository, ${pascal}SortField }`, `${domain}/${pascal}Repository.js`],
    [`{ ${upperOf(m.names)}_TABLE }`, `./schemas/${pascal}Schema.js`],
    ['{ SqlResourceRepository }', './SqlResourceRepository.js'],
  ]);
  const contents = `${imports}

${docBlock(`${pluralHuman} in SQLite or PostgreSQL: the \`${pluralSnake}\` table on the shared resource core.`)}
export class MikroOrm${pascal}Repository extends SqlResourceRepository<${pascal}, ${pascal}Props, ${pascal}SortField> implements ${pascal}Repository {
  constructor(orm: MikroORM) {
    super(orm, ${upperOf(m.names)}_TABLE);
  }
}
`;
  return { path: `src/adapters/outbound/mikroorm/MikroOrm${pascal}Repository.ts`, contents };
}
