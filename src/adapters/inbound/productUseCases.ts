import { PRODUCT, type Product } from '../../domain/product/Product.js';
import { ProductNotFoundError } from '../../domain/product/ProductErrors.js';
import { idReader, pathsOf, type InboundResource, type ResourceUseCases } from './resources.js';

/** What both inbound adapters (REST and GraphQL) drive for the product resource. */
export type ProductUseCases = ResourceUseCases<Product, typeof PRODUCT.fields>;

/** The product as REST and GraphQL serve it: its declaration, and its 404. */
export const PRODUCT_INBOUND: InboundResource<typeof PRODUCT.fields> = {
  declaration: PRODUCT,
  notFound: (id) => new ProductNotFoundError(id),
};

/** The product routes, written once: REST registers them, GraphQL checks the policy against them. */
export const PRODUCT_PATHS = pathsOf(PRODUCT);

/** An id that cannot name a product is answered like an unknown one, without a query. */
export const productId = idReader(PRODUCT_INBOUND.notFound);
