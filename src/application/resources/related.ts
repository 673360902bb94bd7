import type { ListQuery, Page } from '../../domain/shared/Page.js';

/** Where a resource's rows can be read many at once (every declared resource's repository). */
export interface ManyReader<E> {
  findByIds(ids: readonly string[], owner?: string): Promise<readonly E[]>;
}

/** Where a resource with a reference can be listed for many referenced rows at once. */
export interface ReferenceLister<E, F extends string> {
  listByReference(field: string, ids: readonly string[], query: ListQuery<F>): Promise<ReadonlyMap<string, Page<E>>>;
}

/**
 * Many rows of a resource by id in one read, unknown ids left out: what a GraphQL relation field
 * (`Invoice.customer`) reads for a whole page of rows at once instead of one row at a time. With
 * `owner`, another owner's rows are left out too.
 */
export class GetMany<E> {
  constructor(private readonly rows: ManyReader<E>) {}

  execute(input: { readonly ids: readonly string[]; readonly owner?: string }): Promise<readonly E[]> {
    return this.rows.findByIds(input.ids, input.owner);
  }
}

/**
 * For each of many referenced rows, the page of a resource's rows whose reference `field` names it,
 * in one read: what `Customer.invoices` reads for a whole page of customers at once. With the
 * query's `owner`, each page holds (and counts) only that owner's rows.
 */
export class ListByReference<E, F extends string> {
  constructor(private readonly rows: ReferenceLister<E, F>) {}

  execute(input: {
    readonly field: string;
    readonly ids: readonly string[];
    readonly query: ListQuery<F>;
  }): Promise<ReadonlyMap<string, Page<E>>> {
    return this.rows.listByReference(input.field, input.ids, input.query);
  }
}
