import type { ResourceKit } from './ResourceKit.js';

/** One row of a declared resource by id; the resource's NotFoundError when unknown. */
export class GetResource<E> {
  constructor(private readonly kit: ResourceKit<E>) {}

  async execute(input: { readonly id: string }): Promise<E> {
    const found = await this.kit.rows.findById(input.id);
    if (!found) throw this.kit.errors.notFound(input.id);
    return found;
  }
}
