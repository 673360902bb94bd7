import type { ResourceKit } from './ResourceKit.js';

/**
 * Deletes a row of a declared resource; its NotFoundError when unknown. With `expectedVersions` (an
 * `If-Match`) the delete is conditional, in one statement: a row at another version answers the
 * resource's version mismatch and stays. A row another resource still references stays: ConflictError.
 * With `owner`, only that owner's row: another's is not found, as an unknown id is.
 */
export class DeleteResource<E> {
  constructor(private readonly kit: ResourceKit<E>) {}

  async execute(input: {
    readonly id: string;
    readonly expectedVersions?: readonly number[];
    /** Only this owner's row (a caller whose rule reaches only their own rows). */
    readonly owner?: string;
  }): Promise<void> {
    const { rows, errors } = this.kit;
    if (await rows.delete(input.id, input.expectedVersions, input.owner)) return;
    if (input.expectedVersions !== undefined && (await rows.findById(input.id, input.owner))) {
      throw errors.versionMismatch(input.id);
    }
    throw errors.notFound(input.id);
  }
}
