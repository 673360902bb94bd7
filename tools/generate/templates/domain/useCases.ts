import type { ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import { refFields, withArticle, wrap } from './fields.js';

const useCasePath = (m: ResourceModel, name: string): string => `src/application/${m.names.snake}/${name}.ts`;

/** `Create<Pascal>`: a new resource at version 1, stored. */
export function createUseCaseFile(m: ResourceModel): FileContents {
  const { pascal, camel, snake, human, pluralCamel } = m.names;
  const contents = `import { ${pascal}, type ${pascal}Fields } from '../../domain/${snake}/${pascal}.js';
import type { ${pascal}Repository } from '../../domain/${snake}/${pascal}Repository.js';
import type { Clock } from '../ports/Clock.js';
import type { IdGenerator } from '../ports/IdGenerator.js';

/** Creates ${withArticle(human.toLowerCase())}; a ValidationError lists every field that breaks its rule, and nothing is stored. */
export class Create${pascal} {
  constructor(
    private readonly ${pluralCamel}: ${pascal}Repository,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  async execute(input: ${pascal}Fields): Promise<${pascal}> {
    const ${camel} = ${pascal}.create({ ...input, id: this.ids.newId() }, this.clock.now());
    await this.${pluralCamel}.add(${camel});
    return ${camel};
  }
}
`;
  return { path: useCasePath(m, `Create${pascal}`), contents };
}

/** `Get<Pascal>`: one resource by id. */
export function getUseCaseFile(m: ResourceModel): FileContents {
  const { pascal, camel, snake, human, pluralCamel } = m.names;
  const contents = `import type { ${pascal} } from '../../domain/${snake}/${pascal}.js';
import { ${pascal}NotFoundError } from '../../domain/${snake}/${pascal}Errors.js';
import type { ${pascal}Repository } from '../../domain/${snake}/${pascal}Repository.js';

/** One ${human.toLowerCase()} by id; ${pascal}NotFoundError when unknown. */
export class Get${pascal} {
  constructor(private readonly ${pluralCamel}: ${pascal}Repository) {}

  async execute(input: { readonly id: string }): Promise<${pascal}> {
    const ${camel} = await this.${pluralCamel}.findById(input.id);
    if (!${camel}) throw new ${pascal}NotFoundError(input.id);
    return ${camel};
  }
}
`;
  return { path: useCasePath(m, `Get${pascal}`), contents };
}

/** `List<PluralPascal>`: a page, sorted, filtered by the reference fields; never searched. */
export function listUseCaseFile(m: ResourceModel): FileContents {
  const { pascal, snake, pluralCamel, pluralPascal, pluralHuman } = m.names;
  const filtered = refFields(m).length > 0;
  const queryType = m.search ? `Omit<${pascal}ListQuery, 'q'>` : `${pascal}ListQuery`;
  const passed = [
    'page: query.page',
    'perPage: query.perPage',
    'sort: query.sort',
    'order: query.order',
    ...(filtered ? ['filters: query.filters'] : []),
  ];
  const listCall = wrap(`return this.${pluralCamel}.list({`, passed, '});', 4);
  const contents = `import type { ${pascal} } from '../../domain/${snake}/${pascal}.js';
import type { ${pascal}ListQuery, ${pascal}Repository } from '../../domain/${snake}/${pascal}Repository.js';
import type { Page } from '../../domain/shared/Page.js';

/** A page of ${pluralHuman.toLowerCase()}, sorted, ties broken by id${filtered ? '; `filters` narrow it by reference' : ''}. */
export class List${pluralPascal} {
  constructor(private readonly ${pluralCamel}: ${pascal}Repository) {}

  execute(query: ${queryType}): Promise<Page<${pascal}>> {
    ${listCall}
  }
}
`;
  return { path: useCasePath(m, `List${pluralPascal}`), contents };
}

/** `Search<PluralPascal>` (only with `--search`): a page of those whose search field contains `q`. */
export function searchUseCaseFile(m: ResourceModel & { search: NonNullable<ResourceModel['search']> }): FileContents {
  const { pascal, snake, pluralCamel, pluralPascal, pluralHuman } = m.names;
  const contents = `import type { ${pascal} } from '../../domain/${snake}/${pascal}.js';
import type { ${pascal}ListQuery, ${pascal}Repository } from '../../domain/${snake}/${pascal}Repository.js';
import type { Page } from '../../domain/shared/Page.js';

/** A page of the ${pluralHuman.toLowerCase()} whose ${m.search.name} contains \`q\`, case-insensitive. */
export class Search${pluralPascal} {
  constructor(private readonly ${pluralCamel}: ${pascal}Repository) {}

  execute(query: ${pascal}ListQuery & { readonly q: string }): Promise<Page<${pascal}>> {
    return this.${pluralCamel}.list(query);
  }
}
`;
  return { path: useCasePath(m, `Search${pluralPascal}`), contents };
}

/** `Update<Pascal>`: the partial, row-locked read-modify-write with an optional `If-Match`. */
export function updateUseCaseFile(m: ResourceModel): FileContents {
  const { pascal, snake, human, pluralCamel } = m.names;
  const a = human.toLowerCase();
  const contents = `import type { ${pascal}, ${pascal}Changes } from '../../domain/${snake}/${pascal}.js';
import { ${pascal}NotFoundError } from '../../domain/${snake}/${pascal}Errors.js';
import type { ${pascal}Repository } from '../../domain/${snake}/${pascal}Repository.js';
import type { Clock } from '../ports/Clock.js';

/**
 * Partial update: absent fields stay, present ones are validated and set, and the version is
 * bumped. The change is applied by the repository as one atomic read-modify-write, so concurrent
 * updates all succeed and each field keeps its last write. With \`expectedVersions\` (an \`If-Match\`)
 * the update is conditional: ${withArticle(a)} at another version answers ${pascal}VersionMismatchError and
 * is left as it is. An empty change returns the ${a} untouched (after the same check). A value
 * that breaks its field's rule is a ValidationError; ${pascal}NotFoundError when unknown.
 */
export class Update${pascal} {
  constructor(
    private readonly ${pluralCamel}: ${pascal}Repository,
    private readonly clock: Clock,
  ) {}

  async execute(input: {
    readonly id: string;
    readonly changes: ${pascal}Changes;
    /** The versions the caller accepts the ${a} to be at; absent: any. */
    readonly expectedVersions?: readonly number[];
  }): Promise<${pascal}> {
    const { id, changes, expectedVersions } = input;
    if (Object.values(changes).every((value) => value === undefined)) {
      const current = await this.${pluralCamel}.findById(id);
      if (!current) throw new ${pascal}NotFoundError(id);
      current.requireVersion(expectedVersions);
      return current;
    }
    const updated = await this.${pluralCamel}.update(id, (current) => {
      current.requireVersion(expectedVersions);
      // Read under the lock, so \`updatedAt\` grows with the version.
      return current.update(changes, this.clock.now());
    });
    if (!updated) throw new ${pascal}NotFoundError(id);
    return updated;
  }
}
`;
  return { path: useCasePath(m, `Update${pascal}`), contents };
}

/** `Delete<Pascal>`: unconditional, or conditional on the versions of an `If-Match`. */
export function deleteUseCaseFile(m: ResourceModel): FileContents {
  const { pascal, snake, human, pluralCamel } = m.names;
  const a = human.toLowerCase();
  const contents = `import { ${pascal}NotFoundError, ${pascal}VersionMismatchError } from '../../domain/${snake}/${pascal}Errors.js';
import type { ${pascal}Repository } from '../../domain/${snake}/${pascal}Repository.js';

/**
 * Deletes ${withArticle(a)}; ${pascal}NotFoundError when unknown. With \`expectedVersions\` (an \`If-Match\`)
 * the delete is conditional, in one statement: ${withArticle(a)} at another version answers
 * ${pascal}VersionMismatchError and stays. ${withArticle(a).replace(/^a/, 'A')} another resource still references stays: ConflictError.
 */
export class Delete${pascal} {
  constructor(private readonly ${pluralCamel}: ${pascal}Repository) {}

  async execute(input: { readonly id: string; readonly expectedVersions?: readonly number[] }): Promise<void> {
    if (await this.${pluralCamel}.delete(input.id, input.expectedVersions)) return;
    if (input.expectedVersions !== undefined && (await this.${pluralCamel}.findById(input.id))) {
      throw new ${pascal}VersionMismatchError(input.id);
    }
    throw new ${pascal}NotFoundError(input.id);
  }
}
`;
  return { path: useCasePath(m, `Delete${pascal}`), contents };
}
