import { Product } from '../../src/domain/product/Product.js';
import { resourceUnderTest } from '../support/resource/declared.js';
import { describeUniqueHttp } from '../support/resource/unique.js';
import type { ResourceWorld } from '../support/resource/world.js';

/**
 * A unique index added to a table by hand (products declare no unique field): its refusals answer
 * 409 naming the column's field, never 500, on both engines, through REST and GraphQL.
 */
const products = resourceUnderTest(Product);
const execute = (world: ResourceWorld, sql: string) => world.service.database.orm.em.getConnection().execute(sql);

describeUniqueHttp(
  products,
  products.fields.filter((field) => field.name === 'name'),
  {
    prepare: (world) => execute(world, 'create unique index products_name_by_hand on products (name)'),
    cleanUp: (world) => execute(world, 'drop index if exists products_name_by_hand'),
  },
);
