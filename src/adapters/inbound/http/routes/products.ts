import type Router from '@koa/router';
import type { Product } from '../../../../domain/product/Product.js';
import { PRODUCT_SORT_FIELDS } from '../../../../domain/product/ProductRepository.js';
import { decodeBody } from '../../codecs/fields.js';
import { decodeListQuery } from '../../codecs/listCodecs.js';
import { CreateProductBody, UpdateProductBody } from '../../codecs/productCodecs.js';
import { PRODUCT_PATHS, productId, type ProductUseCases } from '../../productUseCases.js';
import { ifMatchVersions, notSearch, withETag } from '../conditional.js';
import { success } from '../envelope.js';
import { authenticate } from '../middleware/authenticate.js';
import { authorize } from '../middleware/authorize.js';
import { pageMeta } from '../presenters.js';
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

/**
 * PRODUCT_PATHS: the collection (list, create), `/search`, `/:id` (get, update, delete); token and
 * policy on all. An answer carrying one product carries its version (`ETag`); update and delete take `If-Match`.
 */
export function productRoutes(useCases: ProductUseCases): (router: Router<RequestState>) => void {
  const auth = authenticate(useCases.authenticate);
  const guard = (pattern: string) => [auth, authorize(useCases.policy, pattern)] as const;
  const { collection, search, item } = PRODUCT_PATHS;

  return (router) => {
    router.get(collection, ...guard(collection), async (ctx) => {
      const page = await useCases.list.execute(decodeListQuery(ctx.query, PRODUCT_SORT_FIELDS));
      ctx.body = success(page.items.map(presentProduct), { meta: pageMeta(page) });
    });

    router.post(collection, ...guard(collection), async (ctx) => {
      const body = decodeBody(CreateProductBody, ctx.request.body);
      ctx.status = 201;
      ctx.body = success(withETag(ctx, await useCases.create.execute(body), presentProduct));
    });

    // Registered before `/:id`, so `search` is never taken for an id.
    router.get(search, ...guard(search), async (ctx) => {
      const query = decodeListQuery(ctx.query, PRODUCT_SORT_FIELDS, { search: 'required' });
      const page = await useCases.search.execute({ ...query, q: query.q ?? '' });
      ctx.body = success(page.items.map(presentProduct), { meta: pageMeta(page) });
    });

    router.get(item, ...guard(item), async (ctx) => {
      ctx.body = success(withETag(ctx, await useCases.get.execute({ id: productId(ctx.params.id) }), presentProduct));
    });

    router.put(item, notSearch, ...guard(item), async (ctx) => {
      const id = productId(ctx.params.id);
      const changes = decodeBody(UpdateProductBody, ctx.request.body);
      const expectedVersions = ifMatchVersions(ctx.headers['if-match']);
      ctx.body = success(withETag(ctx, await useCases.update.execute({ id, changes, expectedVersions }), presentProduct));
    });

    router.delete(item, notSearch, ...guard(item), async (ctx) => {
      const id = productId(ctx.params.id);
      await useCases.remove.execute({ id, expectedVersions: ifMatchVersions(ctx.headers['if-match']) });
      ctx.status = 204;
    });
  };
}
