import type { Authenticate } from '../../application/auth/Authenticate.js';
import type { AccessPolicy } from '../../application/ports/AccessPolicy.js';
import type { CreateProduct } from '../../application/product/CreateProduct.js';
import type { DeleteProduct } from '../../application/product/DeleteProduct.js';
import type { GetProduct } from '../../application/product/GetProduct.js';
import type { ListProducts } from '../../application/product/ListProducts.js';
import type { SearchProducts } from '../../application/product/SearchProducts.js';
import type { UpdateProduct } from '../../application/product/UpdateProduct.js';
import { ProductNotFoundError } from '../../domain/product/ProductErrors.js';
import { idOf } from './ids.js';
import { resourcePaths } from './paths.js';

/** What both inbound adapters (REST and GraphQL) drive for the product resource. */
export interface ProductUseCases {
  authenticate: Authenticate;
  policy: AccessPolicy;
  create: CreateProduct;
  get: GetProduct;
  list: ListProducts;
  search: SearchProducts;
  update: UpdateProduct;
  remove: DeleteProduct;
}

/** The product routes, written once: REST registers them, GraphQL checks the policy against them. */
export const PRODUCT_PATHS = resourcePaths('/api/v1/products');

/** An id that cannot name a product is answered like an unknown one, without a query. */
export const productId = (raw: unknown): string => idOf(raw, (id) => new ProductNotFoundError(id));
