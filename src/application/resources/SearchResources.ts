import type { ListQuery, Page } from '../../domain/shared/Page.js';
import type { ResourceRepository } from '../../domain/shared/ResourceRepository.js';

/**
 * A page of the rows whose search field contains `q`, case-insensitive (a resource declared with
 * `search`); with `owner`, only that owner's rows.
 */
export class SearchResources<E, S extends string> {
  constructor(private readonly rows: ResourceRepository<E, S>) {}

  execute(query: ListQuery<S> & { readonly q: string }): Promise<Page<E>> {
    return this.rows.list(query);
  }
}
