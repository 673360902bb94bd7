import { ContainerModule } from 'inversify';
import { resourceGraphQL } from '../../adapters/inbound/graphql/resourceGraphQL.js';
import { operationsOf } from '../../adapters/inbound/http/resourceOperations.js';
import { resourceRoutes } from '../../adapters/inbound/http/resourceRoutes.js';
import { PRODUCT_INBOUND, type ProductUseCases } from '../../adapters/inbound/productUseCases.js';
import { Migration0002Products } from '../../adapters/outbound/mikroorm/migrations/Migration0002Products.js';
import { SqlProductRepository } from '../../adapters/outbound/mikroorm/SqlProductRepository.js';
import { CreateProduct } from '../../application/product/CreateProduct.js';
import { DeleteProduct } from '../../application/product/DeleteProduct.js';
import { GetProduct } from '../../application/product/GetProduct.js';
import { ListProducts } from '../../application/product/ListProducts.js';
import { SearchProducts } from '../../application/product/SearchProducts.js';
import { UpdateProduct } from '../../application/product/UpdateProduct.js';
import { GetMany } from '../../application/shared/related.js';
import type { ProductRepository } from '../../domain/product/ProductRepository.js';
import { token, TOKENS } from '../tokens.js';
import { bindBuilt, built } from './built.js';
import type { FeatureModule } from './FeatureModule.js';

export const ProductTokens = {
  Repository: token<ProductRepository>('products.Repository'),
  UseCases: token<ProductUseCases>('products.UseCases'),
} as const;

/** The product resource: its repository, use cases, table, REST routes and GraphQL fragment. */
export const products: FeatureModule = {
  name: 'products',
  bindings: new ContainerModule(({ bind }) => {
    bindBuilt(
      bind(ProductTokens.Repository),
      built({ database: TOKENS.Database }, ({ database }): ProductRepository => new SqlProductRepository(database)),
    );
    bindBuilt(
      bind(ProductTokens.UseCases),
      built(
        {
          products: ProductTokens.Repository,
          authenticate: TOKENS.Authenticate,
          policy: TOKENS.AccessPolicy,
          ids: TOKENS.IdGenerator,
          clock: TOKENS.Clock,
        },
        ({ products, authenticate, policy, ids, clock }): ProductUseCases => ({
          authenticate,
          policy,
          create: new CreateProduct(products, ids, clock),
          get: new GetProduct(products),
          list: new ListProducts(products),
          search: new SearchProducts(products),
          update: new UpdateProduct(products, clock),
          remove: new DeleteProduct(products),
          getMany: new GetMany(products),
        }),
      ),
    );
  }),
  migrations: [{ name: 'Migration0002Products', class: Migration0002Products }],
  rest: {
    always: false,
    operations: Object.values(operationsOf(PRODUCT_INBOUND.declaration)),
    routes: built({ useCases: ProductTokens.UseCases }, ({ useCases }) => resourceRoutes(PRODUCT_INBOUND, useCases)),
  },
  graphql: built({ useCases: ProductTokens.UseCases }, ({ useCases }) => resourceGraphQL(PRODUCT_INBOUND, useCases)),
};
