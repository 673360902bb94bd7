import type { ResourceDeclaration } from '../../domain/shared/resource.js';
import type { ResourceRepository } from '../../domain/shared/ResourceRepository.js';
import type { Clock } from '../ports/Clock.js';
import type { FileStorage } from '../ports/FileStorage.js';
import type { JobHandler } from '../ports/Jobs.js';
import {
  FILES_DELETE_JOB,
  FILES_PURGE_JOB,
  fileFieldsOf,
  fileOf,
  isUuid,
  keyParts,
  type FileHolder,
} from './FileKit.js';

/** How old an object no row names must be before `files.purge` removes it: a direct upload has a day to complete. */
export const ORPHAN_AFTER_MS = 24 * 60 * 60 * 1000;

/** A resource with `file` fields, as the purge reads it. */
export interface FileResource {
  readonly resource: Pick<ResourceDeclaration, 'name' | 'plural' | 'fields'>;
  readonly rows: Pick<ResourceRepository<FileHolder>, 'findById'>;
}

/**
 * `files.delete` `{key}`: removes one object (docs/files.md) once the change that dropped it
 * committed; nothing when it is gone already. The payload holds the key only, no secret.
 */
export function removeFileJob(storage: FileStorage): JobHandler {
  return async (payload) => {
    const key = payload.key;
    if (typeof key !== 'string' || key === '') throw new Error('files.delete: the payload has no key');
    await storage.remove(key);
  };
}

/**
 * `files.purge` (hourly by default): for every resource with `file` fields, removes each object
 * under `<plural>/` older than a day whose key no row names — uploads straight to storage never
 * completed, objects whose `files.delete` was lost, a file stored while its row was deleted. A row
 * names an object when the row of the key's id holds that very key in the key's field. Answers how
 * many objects it removed.
 */
export class PurgeOrphanFiles {
  constructor(
    private readonly deps: {
      readonly storage: FileStorage;
      readonly resources: readonly FileResource[];
      readonly clock: Clock;
    },
  ) {}

  async execute(): Promise<number> {
    const { storage, resources, clock } = this.deps;
    const before = clock.now().getTime() - ORPHAN_AFTER_MS;
    let removed = 0;
    for (const { resource, rows } of resources) {
      const fields = fileFieldsOf(resource);
      for await (const object of storage.list(`${resource.plural}/`)) {
        if (object.lastModified.getTime() > before) continue;
        const parts = keyParts(object.key);
        const field = parts ? fields.find((f) => f.name === parts.field) : undefined;
        const row = parts && field && isUuid(parts.id) ? await rows.findById(parts.id) : undefined;
        if (row && field && fileOf(row, field)?.key === object.key) continue;
        await storage.remove(object.key);
        removed += 1;
      }
    }
    return removed;
  }

  /** As the `files.purge` job's handler. */
  handler(): JobHandler {
    return async () => {
      await this.execute();
    };
  }
}

/** The jobs of the files feature by name: `files.delete` and `files.purge`. */
export function fileJobs(deps: ConstructorParameters<typeof PurgeOrphanFiles>[0]): Record<string, JobHandler> {
  return {
    [FILES_DELETE_JOB]: removeFileJob(deps.storage),
    [FILES_PURGE_JOB]: new PurgeOrphanFiles(deps).handler(),
  };
}
