import { declareResource, entityOf, field, MB } from '../../src/domain/shared/resource.js';

/**
 * A shop and its orders, each order owned by the user who placed it: the owned resource the shared
 * ownership suite runs over (test/resources/shopOrders.test.ts), with a search field and a
 * reference whose nested list (`GET /api/v1/shops/{id}/shop-orders`) and GraphQL list
 * (`Shop.shopOrders`) must hold only the caller's orders too; the shop has a file field, which the
 * suite's rows leave empty. Tests only: not served.
 */
export const SHOP = declareResource({
  name: 'shop',
  plural: 'shops',
  // A file field on the parent: the suite's rows are made without it, and its answers carry links.
  fields: { name: field.string(1, 80), logo: field.file(['image/png'], 1 * MB).optional() },
});
export const SHOP_ORDER = declareResource({
  name: 'shop_order',
  plural: 'shop_orders',
  fields: {
    shopId: field.ref('shop', 'shops'),
    title: field.string(1, 80),
    note: field.text().optional(),
  },
  search: 'title',
  owned: true,
});
export class Shop extends entityOf(SHOP) {}
export class ShopOrder extends entityOf(SHOP_ORDER) {}
