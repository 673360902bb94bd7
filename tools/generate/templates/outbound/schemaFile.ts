import type { ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import { docBlock, importLines, indented, lowerHuman, tableColumn, upperOf } from './source.js';

/**
 * `schemas/<Pascal>Schema.ts`: the resource's one table description — its columns, sorts and search,
 * from which the repository's statements and row mapping, the DDL, the indexes and the migration
 * derive — and the one row mapper.
 */
export function schemaFile(m: ResourceModel): FileContents {
  const { snake, pascal, camel, pluralSnake } = m.names;
  const upper = upperOf(m.names);
  const domain = `../../../../domain/${snake}`;
  const imports = importLines([
    [`{ ${pascal}, type ${pascal}Props }`, `${domain}/${pascal}.js`],
    [
      `{ ${[...(m.search ? [`${upper}_SEARCH_FIELD`] : []), `${upper}_SORT_FIELDS`].join(', ')}, type ${pascal}SortField }`,
      `${domain}/${pascal}Repository.js`,
    ],
    [`{ ${pascal}StillReferencedError }`, `${domain}/${pascal}Errors.js`],
    ['type { ResourceTable }', '../resourceTable.js'],
  ]);
  const search = m.search ? `\n  search: ${upper}_SEARCH_FIELD,` : '';
  const contents = `${imports}

${docBlock(`The \`${pluralSnake}\` table as its repository sees it, with the one ${lowerHuman(m.names)} mapper (props ↔ ${pascal}).`)}
export const ${upper}_TABLE: ResourceTable<${pascal}, ${pascal}Props, ${pascal}SortField> = {
  table: '${pluralSnake}',
  columns: {
    ${indented(m.fields.map(tableColumn), 4)}
  },
  sortable: ${upper}_SORT_FIELDS,${search}
  fromRow: (props) => ${pascal}.restore(props),
  toRow: (${camel}) => ${camel}.toProps(),
  stillReferenced: (id) => new ${pascal}StillReferencedError(id),
};
`;
  return { path: `src/adapters/outbound/mikroorm/schemas/${pascal}Schema.ts`, contents };
}
