import type { Authenticate } from '../../application/auth/Authenticate.js';
import type { AccessPolicy } from '../../application/ports/AccessPolicy.js';
import type { CreateProduct } from '../../application/product/CreateProduct.js';
import type { DeleteProduct } from '../../application/product/DeleteProduct.js';
import type { GetProduct } from '../../application/product/GetProduct.js';
import type { ListProducts } from '../../application/product/ListProducts.js';
import type { SearchProducts } from '../../application/product/SearchProducts.js';
import type { UpdateProduct } from '../../application/product/UpdateProduct.js';
import { ProductNotFoundError } from '../../domain/product/ProductErrors.js';
import { uuidOf } from './ids.js';

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

/** An id that cannot name a product is answered like an unknown one, without a query. */
export function productId(raw: unknown): string {
  const id = uuidOf(raw);
  if (id === undefined) throw new ProductNotFoundError(raw === undefined || raw === null ? '' : String(raw));
  return id;
}
