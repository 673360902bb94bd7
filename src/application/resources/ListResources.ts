import type { ListQuery, Page } from '../../domain/shared/Page.js';
import type { ResourceRepository } from '../../domain/shared/ResourceRepository.js';

/** A page of a declared resource's rows, sorted, ties broken by id; filtered by reference fields when asked. */
export class ListResources<E, S extends string> {
  constructor(private readonly rows: ResourceRepository<E, S>) {}

  execute(query: Omit<ListQuery<S>, 'q'>): Promise<Page<E>> {
    const { page, perPage, sort, order, filters } = query;
    return this.rows.list(
      filters === undefined ? { page, perPage, sort, order } : { page, perPage, sort, order, filters },
    );
  }
}
