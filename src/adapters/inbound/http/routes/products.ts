import type Router from '@koa/router';
import type { RouterContext, RouterMiddleware } from '@koa/router';
import type { Product } from '../../../../domain/product/Product.js';
import { decodeFields } from '../../codecs/fields.js';
import { PRODUCT_SORT_FIELDS } from '../../../../domain/product/ProductRepository.js';
import { PRODUCT_PATHS, productId, type ProductUseCases } from '../../productUseCases.js';
import { decodeListQuery } from '../../codecs/listCodecs.js';
import { CreateProductBody, UpdateProductBody } from '../../codecs/productCodecs.js';
import { success } from '../envelope.js';
import { HttpProblem, methodNotAllowed } from '../HttpProblem.js';
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

/** An answer carrying one product carries its version as a strong entity tag: `ETag: "3"`. */
function withETag(ctx: RouterContext<RequestState>, product: Product): Record<string, string | number> {
  ctx.set('ETag', `"${product.version}"`);
  return presentProduct(product);
}

const malformedIfMatch = (): HttpProblem =>
  new HttpProblem(400, 'BAD_REQUEST', 'invalid If-Match header', {}, 'expected * or quoted versions, e.g. "3"');

/** One member of an `If-Match` list: an optionally weak, quoted version number. */
const ENTITY_TAG = /^(W\/)?"([0-9]+)"$/;

/**
 * The versions an `If-Match` header accepts (RFC 9110 §13.1.1): `undefined` when it is absent or
 * `*` (any current product; a missing one is 404 whatever the header). A weak tag, or one that is
 * not how this service writes a version (`"007"`), can never match under strong comparison, so it
 * adds nothing. Anything but `*` or a list of quoted integers is 400 `BAD_REQUEST`.
 */
function ifMatchVersions(header: string | undefined): readonly number[] | undefined {
  if (header === undefined || header.trim() === '*') return undefined;
  const members = header.split(',').map((member) => member.trim()).filter((member) => member !== '');
  if (members.length === 0) throw malformedIfMatch();
  const versions: number[] = [];
  for (const member of members) {
    const tag = ENTITY_TAG.exec(member);
    if (!tag) throw malformedIfMatch();
    const version = Number(tag[2]);
    if (tag[1] === undefined && String(version) === tag[2]) versions.push(version);
  }
  return versions;
}

/**
 * `/search` is the search route (GET only), never an id: PUT or DELETE there is 405, decided
 * like any router fault, before the token is looked at.
 */
const notSearch: RouterMiddleware<RequestState> = async (ctx, next) => {
  if (ctx.params.id === 'search') throw methodNotAllowed(['HEAD', 'GET', 'OPTIONS']);
  await next();
};

/** PRODUCT_PATHS: the collection (list, create), `/search`, `/:id` (get, update, delete); token and policy on all. */
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
      const body = decodeFields(CreateProductBody, ctx.request.body);
      ctx.status = 201;
      ctx.body = success(withETag(ctx, await useCases.create.execute(body)));
    });

    // Registered before `/:id`, so `search` is never taken for an id.
    router.get(search, ...guard(search), async (ctx) => {
      const query = decodeListQuery(ctx.query, PRODUCT_SORT_FIELDS, { search: 'required' });
      const page = await useCases.search.execute({ ...query, q: query.q ?? '' });
      ctx.body = success(page.items.map(presentProduct), { meta: pageMeta(page) });
    });

    router.get(item, ...guard(item), async (ctx) => {
      ctx.body = success(withETag(ctx, await useCases.get.execute({ id: productId(ctx.params.id) })));
    });

    router.put(item, notSearch, ...guard(item), async (ctx) => {
      const id = productId(ctx.params.id);
      const changes = decodeFields(UpdateProductBody, ctx.request.body);
      const expectedVersions = ifMatchVersions(ctx.headers['if-match']);
      ctx.body = success(withETag(ctx, await useCases.update.execute({ id, changes, expectedVersions })));
    });

    router.delete(item, notSearch, ...guard(item), async (ctx) => {
      const id = productId(ctx.params.id);
      await useCases.remove.execute({ id, expectedVersions: ifMatchVersions(ctx.headers['if-match']) });
      ctx.status = 204;
    });
  };
}
