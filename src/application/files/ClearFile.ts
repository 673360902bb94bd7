import type { StoredFile } from '../../domain/shared/files.js';
import { fileField, fileOf, removeLater, type FileHolder, type FileKit } from './FileKit.js';

/**
 * Empties a row's `file` field (docs/files.md), by the resource's own change (the version bumped),
 * as one atomic read-modify-write; an empty field stays as it is (nothing written). The row must
 * exist (with `owner`, be that owner's; else the resource's NotFoundError) and be at one of
 * `expectedVersions` when given. Once the change committed, the object is removed by a
 * `files.delete` job (if that enqueue fails, `files.purge` removes it a day later).
 */
export class ClearFile<E extends FileHolder> {
  constructor(private readonly kit: Pick<FileKit<E>, 'resource' | 'rows' | 'errors' | 'jobs' | 'clock'>) {}

  async execute(input: {
    readonly id: string;
    readonly field: string;
    readonly expectedVersions?: readonly number[];
    readonly owner?: string;
  }): Promise<E> {
    const { rows, errors, jobs, clock } = this.kit;
    const field = fileField(this.kit, input.field);
    let cleared: StoredFile | null = null;
    const changed = await rows.update(
      input.id,
      (row) => {
        row.requireVersion(input.expectedVersions);
        cleared = fileOf(row, field);
        return cleared === null ? row : row.apply({ [field.key]: null }, clock.now());
      },
      input.owner,
    );
    if (!changed) throw errors.notFound(input.id);
    const old = cleared as StoredFile | null;
    if (old !== null) await removeLater(jobs, [old.key]);
    return changed;
  }
}
