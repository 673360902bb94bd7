import type { ListQuery, Page } from '../../domain/shared/Page.js';
import type { ResourceRepository } from '../../domain/shared/ResourceRepository.js';

/**
 * A page of a declared resource's rows, sorted, ties broken by id; filtered by reference fields when
 * asked, and to one owner's rows with `owner`.
 */
export class ListResources<E, S extends string> {
  constructor(private readonly rows: ResourceRepository<E, S>) {}

  execute(query: Omit<ListQuery<S>, 'q'>): Promise<Page<E>> {
    const { page, perPage, sort, order, filters, owner } = query;
    return this.rows.list({
      page,
      perPage,
      sort,
      order,
      ...(filters === undefined ? {} : { filters }),
      ...(owner === undefined ? {} : { owner }),
    });
  }
}
