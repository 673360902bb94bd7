import type Router from '@koa/router';
import type { Product } from '../../../../domain/product/Product.js';
import { PRODUCT_SORT_FIELDS } from '../../../../domain/product/ProductRepository.js';
import { CreateProductBody, UpdateProductBody } from '../../codecs/productCodecs.js';
import { PRODUCT_PATHS, productId, type ProductUseCases } from '../../productUseCases.js';
import { ifMatchVersions, notSearch, withETag } from '../conditional.js';
import { success } from '../envelope.js';
import { RestRoutes } from '../operations.js';
import { pageMeta } from '../presenters.js';
import { resourceOperations } from '../resourceOperations.js';
import type { RequestState } from '../state.js';

/** A product on the wire. */
export function presentProduct(product: Product): Record<string, string | number> {
  return {
    id: product.id,
    name: product.name,
    price: product.price,
    created_at: product.createdAt.toISOString(),
    updated_at: product.updatedAt.toISOString(),
  };
}

/** The product operations (docs/lists.md): the router and the API document both read them. */
export const PRODUCT_OPERATIONS = resourceOperations({
  human: { singular: 'product', plural: 'products' },
  pascal: { singular: 'Product', plural: 'Products' },
  paths: PRODUCT_PATHS,
  create: CreateProductBody,
  update: UpdateProductBody,
  sortFields: PRODUCT_SORT_FIELDS,
  search: true,
});

/**
 * PRODUCT_PATHS: the collection (list, create), `/search`, `/:id` (get, update, delete); token and
 * policy on all. An answer carrying one product carries its version (`ETag`); update and delete take `If-Match`.
 */
export function productRoutes(useCases: ProductUseCases): (router: Router<RequestState>) => void {
  const ops = PRODUCT_OPERATIONS;
  return (router) => {
    const api = new RestRoutes(router, useCases);

    api.on(ops.list, async (ctx, { query }) => {
      const page = await useCases.list.execute(query);
      ctx.body = success(page.items.map(presentProduct), { meta: pageMeta(page) });
    });

    api.on(ops.create, async (ctx, { body }) => {
      ctx.status = 201;
      ctx.body = success(withETag(ctx, await useCases.create.execute(body), presentProduct));
    });

    // Registered before `/:id`, so `search` is never taken for an id.
    api.on(ops.search, async (ctx, { query }) => {
      const page = await useCases.search.execute({ ...query, q: query.q ?? '' });
      ctx.body = success(page.items.map(presentProduct), { meta: pageMeta(page) });
    });

    api.on(ops.get, async (ctx) => {
      ctx.body = success(withETag(ctx, await useCases.get.execute({ id: productId(ctx.params.id) }), presentProduct));
    });

    api.on(
      ops.update,
      async (ctx, { body }) => {
        const id = productId(ctx.params.id);
        const expectedVersions = ifMatchVersions(ctx.headers['if-match']);
        ctx.body = success(
          withETag(ctx, await useCases.update.execute({ id, changes: body, expectedVersions }), presentProduct),
        );
      },
      notSearch,
    );

    api.on(
      ops.remove,
      async (ctx) => {
        const id = productId(ctx.params.id);
        await useCases.remove.execute({ id, expectedVersions: ifMatchVersions(ctx.headers['if-match']) });
        ctx.status = 204;
      },
      notSearch,
    );
  };
}
