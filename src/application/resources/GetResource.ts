import type { ResourceKit } from './ResourceKit.js';

/**
 * One row of a declared resource by id; the resource's NotFoundError when unknown — and, with
 * `owner`, when it belongs to anyone else.
 */
export class GetResource<E> {
  constructor(private readonly kit: ResourceKit<E>) {}

  async execute(input: { readonly id: string; readonly owner?: string }): Promise<E> {
    const found = await this.kit.rows.findById(input.id, input.owner);
    if (!found) throw this.kit.errors.notFound(input.id);
    return found;
  }
}
