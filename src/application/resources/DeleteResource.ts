import type { ResourceKit } from './ResourceKit.js';

/**
 * Deletes a row of a declared resource; its NotFoundError when unknown. With `expectedVersions` (an
 * `If-Match`) the delete is conditional, in one statement: a row at another version answers the
 * resource's version mismatch and stays. A row another resource still references stays: ConflictError.
 */
export class DeleteResource<E> {
  constructor(private readonly kit: ResourceKit<E>) {}

  async execute(input: { readonly id: string; readonly expectedVersions?: readonly number[] }): Promise<void> {
    const { rows, errors } = this.kit;
    if (await rows.delete(input.id, input.expectedVersions)) return;
    if (input.expectedVersions !== undefined && (await rows.findById(input.id))) {
      throw errors.versionMismatch(input.id);
    }
    throw errors.notFound(input.id);
  }
}
