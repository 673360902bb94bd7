import type { ResourceDeclaration } from '../../domain/shared/resource.js';
import type { ResourceErrors } from '../../domain/shared/resourceErrors.js';
import type { ResourceRepository } from '../../domain/shared/ResourceRepository.js';
import type { Clock } from '../ports/Clock.js';
import type { IdGenerator } from '../ports/IdGenerator.js';
import { CreateResource } from './CreateResource.js';
import { DeleteResource } from './DeleteResource.js';
import { GetResource } from './GetResource.js';
import { ListResources } from './ListResources.js';
import { GetMany, ListByReference } from './related.js';
import { RunCommand, type Commandable } from './RunCommand.js';
import { SearchResources } from './SearchResources.js';
import { UpdateResource } from './UpdateResource.js';

/**
 * The generic use cases of a declared resource over one repository: what its module serves and
 * what the shared test suites drive (`search` only with a search field, `listByReference` only
 * with a `ref` field, `commands` one per declared command, by verb).
 */
export function resourceUseCases(deps: {
  readonly entity: { readonly declaration: ResourceDeclaration; readonly errors: ResourceErrors };
  // The use cases only pass rows through, so any entity's repository serves.
  readonly rows: ResourceRepository<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  readonly ids: IdGenerator;
  readonly clock: Clock;
}) {
  const { entity, rows, ids, clock } = deps;
  const kit = { rows, errors: entity.errors };
  const hasReference = Object.values(entity.declaration.fields).some((field) => field.type === 'ref');
  const commands = commandsOf(entity, { ...kit, clock });
  return {
    create: new CreateResource({ entity: entity as never, rows, ids, clock }),
    get: new GetResource(kit),
    list: new ListResources(rows),
    ...(entity.declaration.search ? { search: new SearchResources(rows) } : {}),
    update: new UpdateResource({ ...kit, clock }),
    remove: new DeleteResource(kit),
    getMany: new GetMany(rows),
    ...(hasReference ? { listByReference: new ListByReference(rows) } : {}),
    ...(commands ? { commands } : {}),
  };
}

/** A RunCommand per declared command; refused (thrown) when the entity class has no method of a command's name. */
function commandsOf(
  entity: { readonly declaration: ResourceDeclaration; readonly prototype?: unknown },
  deps: Omit<ConstructorParameters<typeof RunCommand<Commandable>>[0], 'verb'>,
): Record<string, RunCommand<Commandable>> | undefined {
  const verbs = Object.keys(entity.declaration.commands ?? {});
  if (verbs.length === 0) return undefined;
  const methods = (entity.prototype ?? {}) as Record<string, unknown>;
  for (const verb of verbs)
    if (typeof methods[verb] !== 'function')
      throw new Error(
        `${entity.declaration.name} declares the command ${verb}, but its entity class has no method ${verb}`,
      );
  return Object.fromEntries(verbs.map((verb) => [verb, new RunCommand({ ...deps, verb })]));
}
