import type { DeleteResource } from '../resources/DeleteResource.js';
import { fileFieldsOf, fileOf, removeLater, type FileHolder, type FileKit } from './FileKit.js';

/**
 * Deletes a row of a resource with `file` fields, as `DeleteResource` does (the same answers), and
 * then its files: the keys its fields held are read first, and once the delete committed each
 * object is removed by a `files.delete` job. A file stored between that read and the delete, or
 * whose enqueue fails, is named by no row: `files.purge` removes it a day later.
 */
export class DeleteWithFiles<E extends FileHolder> {
  constructor(
    private readonly deps: Pick<FileKit<E>, 'resource' | 'rows' | 'jobs'> & { readonly remove: DeleteResource<E> },
  ) {}

  async execute(input: {
    readonly id: string;
    readonly expectedVersions?: readonly number[];
    readonly owner?: string;
  }): Promise<void> {
    const { resource, rows, jobs, remove } = this.deps;
    const row = await rows.findById(input.id, input.owner);
    const keys = row ? fileFieldsOf(resource).flatMap((field) => fileOf(row, field)?.key ?? []) : [];
    await remove.execute(input);
    await removeLater(jobs, keys);
  }
}
