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
import { SearchResources } from './SearchResources.js';
import { UpdateResource } from './UpdateResource.js';

/**
 * The generic use cases of a declared resource over one repository: what its module serves and
 * what the shared test suites drive (`search` only with a search field, `listByReference` only
 * with a `ref` field).
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
  return {
    create: new CreateResource({ entity: entity as never, rows, ids, clock }),
    get: new GetResource(kit),
    list: new ListResources(rows),
    ...(entity.declaration.search ? { search: new SearchResources(rows) } : {}),
    update: new UpdateResource({ ...kit, clock }),
    remove: new DeleteResource(kit),
    getMany: new GetMany(rows),
    ...(hasReference ? { listByReference: new ListByReference(rows) } : {}),
  };
}
