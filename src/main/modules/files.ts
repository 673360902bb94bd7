import { ContainerModule } from 'inversify';
import { fileFieldsOf } from '../../application/files/FileKit.js';
import { fileJobs, type FileResource } from '../../application/files/FileJobs.js';
import { token, TOKENS } from '../wiring/tokens.js';
import { built, type Built } from './built.js';
import type { FeatureModule } from './FeatureModule.js';
import { resourceTokens } from './resource.js';

export const FileTokens = {
  /** Every served resource with `file` fields, with its rows: what `files.purge` reads (bound by the composition root). */
  Resources: token<readonly FileResource[]>('files.Resources'),
} as const;

/** The resources with `file` fields among `modules`, each with its repository (by its module's token). */
export function fileResourcesOf(modules: readonly FeatureModule[]): Built<readonly FileResource[]> {
  const resources = modules.flatMap((module) =>
    module.resource && fileFieldsOf(module.resource.declaration).length > 0 ? [module.resource.declaration] : [],
  );
  const needs = Object.fromEntries(
    resources.map((resource) => [resource.plural, resourceTokens(resource.plural).Repository]),
  );
  return built(needs, (rows: Record<string, FileResource['rows']>) =>
    resources.map((resource) => ({ resource, rows: rows[resource.plural]! })),
  );
}

/**
 * Files (docs/files.md): the jobs that remove stored objects — `files.delete` `{key}`, enqueued once
 * the change that dropped an object committed, and `files.purge` (hourly by default), which removes
 * objects older than a day that no row names. Always served, so the built-in schedule always has its
 * handler; the routes and use cases are each resource's (src/main/modules/resource.ts).
 */
export const files: FeatureModule = {
  name: 'files',
  bindings: new ContainerModule(() => undefined),
  jobs: built(
    { storage: TOKENS.FileStorage, resources: FileTokens.Resources, clock: TOKENS.Clock },
    ({ storage, resources, clock }) => fileJobs({ storage, resources, clock }),
  ),
};
