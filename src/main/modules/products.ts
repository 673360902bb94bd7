import { ContainerModule } from 'inversify';
import { productGraphQL } from '../../adapters/inbound/graphql/productResolvers.js';
import { PRODUCT_OPERATIONS, productRoutes } from '../../adapters/inbound/http/routes/products.js';
import type { ProductUseCases } from '../../adapters/inbound/productUseCases.js';
import type { Database } from '../../adapters/outbound/mikroorm/database.js';
import { Migration0002Products } from '../../adapters/outbound/mikroorm/migrations/Migration0002Products.js';
import { SqlProductRepository } from '../../adapters/outbound/mikroorm/SqlProductRepository.js';
import type { Authenticate } from '../../application/auth/Authenticate.js';
import type { AccessPolicy } from '../../application/ports/AccessPolicy.js';
import type { Clock } from '../../application/ports/Clock.js';
import type { IdGenerator } from '../../application/ports/IdGenerator.js';
import { CreateProduct } from '../../application/product/CreateProduct.js';
import { DeleteProduct } from '../../application/product/DeleteProduct.js';
import { GetProduct } from '../../application/product/GetProduct.js';
import { ListProducts } from '../../application/product/ListProducts.js';
import { SearchProducts } from '../../application/product/SearchProducts.js';
import { UpdateProduct } from '../../application/product/UpdateProduct.js';
import type { ProductRepository } from '../../domain/product/ProductRepository.js';
import { token, TOKENS } from '../tokens.js';
import type { FeatureModule } from './FeatureModule.js';

export const ProductTokens = {
  Repository: token<ProductRepository>('products.Repository'),
  UseCases: token<ProductUseCases>('products.UseCases'),
} as const;

/** The product resource: its repository, use cases, table, REST routes and GraphQL fragment. */
export const products: FeatureModule = {
  name: 'products',
  bindings: new ContainerModule(({ bind }) => {
    bind(ProductTokens.Repository).toResolvedValue(
      (database: Database): ProductRepository => new SqlProductRepository(database),
      [TOKENS.Database],
    );
    bind(ProductTokens.UseCases).toResolvedValue(
      (
        products: ProductRepository,
        authenticate: Authenticate,
        policy: AccessPolicy,
        ids: IdGenerator,
        clock: Clock,
      ): ProductUseCases => ({
        authenticate,
        policy,
        create: new CreateProduct(products, ids, clock),
        get: new GetProduct(products),
        list: new ListProducts(products),
        search: new SearchProducts(products),
        update: new UpdateProduct(products, clock),
        remove: new DeleteProduct(products),
      }),
      [ProductTokens.Repository, TOKENS.Authenticate, TOKENS.AccessPolicy, TOKENS.IdGenerator, TOKENS.Clock],
    );
  }),
  migrations: [{ name: 'Migration0002Products', class: Migration0002Products }],
  rest: {
    always: false,
    operations: Object.values(PRODUCT_OPERATIONS),
    routes: (container) => productRoutes(container.get(ProductTokens.UseCases)),
  },
  graphql: (container) => productGraphQL(container.get(ProductTokens.UseCases)),
};
