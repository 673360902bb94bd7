import type { ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import { docBlock, importLines, indented, lowerHuman, quoted, referencedResources, upperOf } from './source.js';

/**
 * `InMemory<Pascal>Repository.ts`: the resource in a Map on the shared memory core. A resource with
 * references takes the referenced resources' memory repositories, so that memory refuses what the
 * foreign keys refuse: a write naming a row that does not exist, and deleting a row still named.
 */
export function memoryRepositoryFile(m: ResourceModel): FileContents {
  const { snake, pascal, camel, pluralHuman } = m.names;
  const upper = upperOf(m.names);
  const domain = `../../../domain/${snake}`;
  const referenced = referencedResources(m);
  const imports = importLines([
    [`{ ${upper}, ${pascal}, type ${pascal}Props }`, `${domain}/${pascal}.js`],
    [`type { ${pascal}Repository, ${pascal}SortField }`, `${domain}/${pascal}Repository.js`],
    [`{ ${pascal}StillReferencedError }`, `${domain}/${pascal}Errors.js`],
    ['{ InMemoryResourceRepository }', './InMemoryResourceRepository.js'],
    ...referenced.map((r) => [`type { InMemory${r.pascal}Repository }`, `./InMemory${r.pascal}Repository.js`] as const),
  ]);
  const parameters = referenced.map((r) => `${r.pluralCamel}: InMemory${r.pascal}Repository`).join(', ');
  const references = m.fields.flatMap((field) =>
    field.ref
      ? [`${field.camel}: { repository: ${field.ref.pluralCamel}, target: ${quoted(lowerHuman(field.ref))} },`]
      : [],
  );
  const options = [
    `fromRow: (props) => ${pascal}.restore(props),`,
    `toRow: (${camel}) => ${camel}.toProps(),`,
    `declaration: ${upper},`,
    ...(references.length > 0 ? ['references: {', ...references.map((line) => `  ${line}`), '},'] : []),
    `stillReferenced: (id) => new ${pascal}StillReferencedError(id),`,
  ];
  const named = referenced.map((r) => r.pluralHuman.toLowerCase()).join(' or ');
  const doc = docBlock(
    `${pluralHuman} in a Map, with the same atomic updates and ordering as the SQL adapter.` +
      (referenced.length === 0
        ? ''
        : ` As the foreign keys do, it refuses writes naming ${named} that do not exist, and deleting those still named.`),
  );
  const contents = `${imports}

${doc}
export class InMemory${pascal}Repository extends InMemoryResourceRepository<${pascal}, ${pascal}Props, ${pascal}SortField> implements ${pascal}Repository {
  constructor(${parameters}) {
    super({
      ${indented(options, 6)}
    });
  }
}
`;
  return { path: `src/adapters/outbound/memory/InMemory${pascal}Repository.ts`, contents };
}
