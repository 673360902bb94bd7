import type { ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import { lines, refFields, withArticle } from './fields.js';

const capitalized = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** What a list query narrows by: `q` on the search field, `filters` on the reference fields. */
function listQueryDoc(m: ResourceModel): string {
  const plural = m.names.pluralHuman.toLowerCase();
  const narrowing = [
    ...(m.search ? [`with \`q\`, only those whose ${m.search.name} contains it (case-insensitive)`] : []),
    ...(refFields(m).length > 0 ? ['with `filters`, only those whose reference fields equal the given ids'] : []),
  ];
  return `/** A page of ${plural}${narrowing.map((n) => `; ${n}`).join('')}. */`;
}

function listQueryMembers(m: ResourceModel): string[] {
  const refs = refFields(m);
  return [
    ...(m.search ? ['readonly q?: string;'] : []),
    ...(refs.length > 0
      ? [`readonly filters?: { ${refs.map((f) => `readonly ${f.name}?: string`).join('; ')} };`]
      : []),
  ];
}

/** The port's promise about references: a write naming no row is refused. */
function referencePromise(m: ResourceModel): string {
  const refs = refFields(m);
  if (refs.length === 0) return '';
  const names = refs.map((f) => `\`${f.name}\``).join(', ');
  return `\n * A write whose ${names} names no existing row is refused with a ValidationError on that field.`;
}

/** A resource with references lists a page per referenced row at once (its GraphQL relation field). */
function listByReference(m: ResourceModel): string {
  const refs = refFields(m);
  if (refs.length === 0) return '';
  const plural = m.names.pluralHuman.toLowerCase();
  const { pascal } = m.names;
  return `
  /**
   * For each of \`ids\`, the page of ${plural} whose \`field\` names it (every id gets a page, empty
   * when none names it), sorted and paged as \`list\` pages, in one read whatever their number.
   */
  listByReference(
    field: ${refs.map((f) => `'${f.name}'`).join(' | ')},
    ids: readonly string[],
    query: ${pascal}ListQuery,
  ): Promise<ReadonlyMap<string, Page<${pascal}>>>;`;
}

/** `src/domain/<snake>/<Pascal>Repository.ts`: the port, its sort fields and its list query. */
export function repositoryFile(m: ResourceModel): FileContents {
  const { pascal, camel, snake, human, pluralHuman } = m.names;
  const a = human.toLowerCase();
  const plural = pluralHuman.toLowerCase();
  const upper = snake.toUpperCase();
  const members = listQueryMembers(m);
  const contents = `import type { Page, PageRequest } from '../shared/Page.js';
import type { SortFieldOf } from '../shared/resource.js';
import { ${upper}, type ${pascal} } from './${pascal}.js';

/** The fields a list of ${plural} can be sorted by (JSON names; GraphQL takes them in camel case). */
export const ${upper}_SORT_FIELDS = ${upper}.sortFields;
export type ${pascal}SortField = SortFieldOf<typeof ${upper}.fields>;

${listQueryDoc(m)}
export interface ${pascal}ListQuery extends PageRequest<${pascal}SortField> {${members.length > 0 ? `\n  ${lines(members, 2)}\n` : ''}}

/**
 * Works out the next state of a stored ${a} from its current one. Synchronous and free of I/O:
 * it runs while the ${a} is locked. Returning \`current\` itself writes nothing; throwing writes
 * nothing and rejects the update with what was thrown.
 */
export type ${pascal}Change = (current: ${pascal}) => ${pascal};

/**
 * Where ${plural} live. Promises: \`update\` is an atomic read-modify-write — no other update or
 * delete of the same ${a} lands between the read \`change\` is given and the write of what it
 * returns, so concurrent updates never lose a write and never fail for having raced; lists are
 * sorted by the field, then by id, so pages never repeat or skip a row.${referencePromise(m)}
 */
export interface ${pascal}Repository {
  add(${camel}: ${pascal}): Promise<void>;
  findById(id: string): Promise<${pascal} | undefined>;
  /** Applies \`change\` to the stored ${a} and answers what is stored after it; \`undefined\` for an unknown id. */
  update(id: string, change: ${pascal}Change): Promise<${pascal} | undefined>;
  /**
   * \`true\` when ${withArticle(a)} was deleted. With \`onlyAtVersions\`, it is deleted only if its stored
   * version is one of them (checked in the same statement), else nothing is deleted. ${capitalized(withArticle(a))}
   * another resource still references is not deleted: ConflictError.
   */
  delete(id: string, onlyAtVersions?: readonly number[]): Promise<boolean>;
  list(query: ${pascal}ListQuery): Promise<Page<${pascal}>>;
  /** The ${plural} with these ids (an unknown id is left out), in one read whatever their number. */
  findByIds(ids: readonly string[]): Promise<readonly ${pascal}[]>;${listByReference(m)}
}
`;
  return { path: `src/domain/${snake}/${pascal}Repository.ts`, contents };
}
