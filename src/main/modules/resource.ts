import { ContainerModule } from 'inversify';
import { resourceGraphQL } from '../../adapters/inbound/graphql/resourceGraphQL.js';
import { operationsOf } from '../../adapters/inbound/http/resourceOperations.js';
import { resourceRoutes } from '../../adapters/inbound/http/resourceRoutes.js';
import { fileOperationList } from '../../adapters/inbound/http/fileRoutes.js';
import {
  fileFieldsOf,
  inboundOf,
  type InboundResource,
  type ParentResource,
  type ParentsOf,
  type ResourceUseCases,
} from '../../adapters/inbound/resources.js';
import { tableOf } from '../../adapters/outbound/mikroorm/resourceTable.js';
import { SqlResourceRepository } from '../../adapters/outbound/mikroorm/SqlResourceRepository.js';
import { CachingResourceRepository } from '../../adapters/outbound/cache/CachingResourceRepository.js';
import { resourceUseCases } from '../../application/resources/resourceUseCases.js';
import { FileTypeInspector } from '../../adapters/outbound/files/FileTypeInspector.js';
import { fileUseCases } from '../../application/files/fileUseCases.js';
import type { FileLinks } from '../../application/files/FileLinks.js';
import type { FileStorage } from '../../application/ports/FileStorage.js';
import type { JobQueue } from '../../application/ports/Jobs.js';
import type {
  FieldDeclarations,
  FieldValues,
  ResourceEntity,
  ResourceEntityClass,
} from '../../domain/shared/resource.js';
import type { ResourceRepository } from '../../domain/shared/ResourceRepository.js';
import { token, TOKENS } from '../wiring/tokens.js';
import { bindBuilt, built, type Built } from './built.js';
import type { FeatureModule } from './FeatureModule.js';

type AnyEntity = ResourceEntity<FieldDeclarations> & FieldValues<FieldDeclarations>;
type AnyUseCases = ResourceUseCases<AnyEntity, FieldDeclarations>;

/** The tokens of a declared resource's module, by its plural (`products.Repository`…): what other modules name. */
export const resourceTokens = (plural: string) => ({
  Repository: token<ResourceRepository<AnyEntity>>(`${plural}.Repository`),
  UseCases: token<AnyUseCases>(`${plural}.UseCases`),
  Inbound: token<InboundResource<FieldDeclarations>>(`${plural}.Inbound`),
  Parents: token<ParentsOf<FieldDeclarations>>(`${plural}.Parents`),
});

/** The use cases both inbound adapters drive: the caller checks, and the shared cores over one repository. */
function useCasesOf(
  Entity: ResourceEntityClass<FieldDeclarations>,
  deps: Pick<AnyUseCases, 'authenticate' | 'policy' | 'links'> & Omit<Parameters<typeof resourceUseCases>[0], 'entity'>,
): AnyUseCases {
  const { authenticate, policy, links, ...cores } = deps;
  return {
    authenticate,
    policy,
    ...(links ? { links } : {}),
    ...resourceUseCases({ entity: Entity, ...cores }),
  } as unknown as AnyUseCases;
}

/** What the file flows of a resource with `file` fields need, beside the cores' (none for any other resource). */
interface FileDeps {
  readonly storage: FileStorage;
  readonly links: FileLinks;
  readonly jobs: JobQueue;
}

const FILE_NEEDS = { storage: TOKENS.FileStorage, links: TOKENS.FileLinks, jobs: TOKENS.JobQueue } as const;

/**
 * A resource's use cases with its file flows (docs/files.md) when it has `file` fields: `files`, and
 * the delete that removes the row's files too in place of the generic one.
 */
function withFiles(
  Entity: ResourceEntityClass<FieldDeclarations>,
  useCases: AnyUseCases,
  deps: Partial<FileDeps> & Pick<Parameters<typeof resourceUseCases>[0], 'rows' | 'ids' | 'clock'>,
): AnyUseCases {
  const { storage, links, jobs, rows, ids, clock } = deps;
  if (!storage || !links || !jobs) return useCases;
  const files = fileUseCases({
    resource: Entity.declaration,
    rows,
    errors: Entity.errors,
    storage,
    inspector: new FileTypeInspector(),
    jobs,
    clock,
    ids,
    links,
  });
  return files ? ({ ...useCases, files, remove: files.remove } as unknown as AnyUseCases) : useCases;
}

/** The resources a declared resource's `ref` fields name, from their modules' tokens. */
function parentsOf(Entity: ResourceEntityClass<FieldDeclarations>): Built<ParentsOf<FieldDeclarations>> {
  const refs = Object.entries(Entity.declaration.fields).flatMap(([key, field]) =>
    field.type === 'ref' && field.references ? [[key, resourceTokens(field.references.plural)] as const] : [],
  );
  const needs = Object.fromEntries(
    refs.flatMap(([key, tokens]) => [
      [`${key}:inbound`, tokens.Inbound],
      [`${key}:useCases`, tokens.UseCases],
    ]),
  );
  return built(needs, (deps: Record<string, unknown>) => {
    const parents: Record<string, ParentResource> = {};
    for (const [key] of refs) {
      parents[key] = {
        resource: deps[`${key}:inbound`] as InboundResource<FieldDeclarations>,
        useCases: deps[`${key}:useCases`] as AnyUseCases,
      };
    }
    return parents as ParentsOf<FieldDeclarations>;
  });
}

/**
 * The module of a declared resource, served by the shared cores: its SQL repository, the generic
 * use cases, its REST routes and GraphQL fragment (its migrations are files, found by the database).
 * A resource with behaviour of its own (a command) adds it beside; a plain one is this line in the
 * module list.
 */
export function resourceModule<F extends FieldDeclarations>(Entity: ResourceEntityClass<F>): FeatureModule {
  const entity = Entity as unknown as ResourceEntityClass<FieldDeclarations>;
  const { plural } = entity.declaration;
  const tokens = resourceTokens(plural);
  const inbound = inboundOf(entity);
  const parents = parentsOf(entity);
  const withParents = <T>(make: (useCases: AnyUseCases, parents: ParentsOf<FieldDeclarations>) => T): Built<T> =>
    built({ useCases: tokens.UseCases, parents: tokens.Parents }, ({ useCases, parents }) => make(useCases, parents));
  const hasFiles = fileFieldsOf(entity.declaration).length > 0;
  const ops = operationsOf(entity.declaration);
  return {
    name: plural,
    resource: entity,
    bindings: new ContainerModule(({ bind }) => {
      bindBuilt(
        bind(tokens.Inbound),
        built({}, () => inbound),
      );
      bindBuilt(
        bind(tokens.Repository),
        built(
          { database: TOKENS.Database, cache: TOKENS.Cache, fresh: TOKENS.FreshReads, config: TOKENS.Config },
          ({ database, cache, fresh, config }) => {
            const rows = new SqlResourceRepository(
              database,
              tableOf(entity as never),
            ) as never as ResourceRepository<AnyEntity>;
            if (!entity.declaration.cached) return rows;
            // Every write of the rows goes through this repository (REST, GraphQL, commands, file flows, jobs).
            return new CachingResourceRepository(rows, cache, {
              plural,
              ttlMs: config.cache.ttlMs,
              restore: (props) => entity.restore(props) as AnyEntity,
              fresh,
            });
          },
        ),
      );
      bindBuilt(
        bind(tokens.UseCases),
        built(
          {
            rows: tokens.Repository,
            authenticate: TOKENS.Authenticate,
            policy: TOKENS.AccessPolicy,
            ids: TOKENS.IdGenerator,
            clock: TOKENS.Clock,
            // Only a resource with `file` fields needs the storage (and it alone is given it).
            ...((hasFiles ? FILE_NEEDS : {}) as Partial<typeof FILE_NEEDS>),
          },
          ({ storage, jobs, ...deps }: Parameters<typeof useCasesOf>[1] & Partial<FileDeps>) =>
            withFiles(entity, useCasesOf(entity, deps), { storage, jobs, ...deps }),
        ),
      );
      bindBuilt(bind(tokens.Parents), parents);
    }),
    rest: {
      always: false,
      operations: [...Object.values(ops), ...fileOperationList(entity.declaration, ops.get)],
      routes: built(
        { useCases: tokens.UseCases, parents: tokens.Parents, metrics: TOKENS.Metrics },
        ({ useCases, parents, metrics }) =>
          resourceRoutes(
            inbound,
            useCases,
            parents,
            metrics ? (r, f, bytes) => metrics.fileUploaded(r, f, bytes) : undefined,
          ),
      ),
    },
    graphql: withParents((useCases, parents) => resourceGraphQL(inbound, useCases, parents)),
  };
}
