import { readFileSync } from 'node:fs';
import type { Product } from '../../../domain/product/Product.js';
import { PRODUCT_SORT_FIELDS } from '../../../domain/product/ProductRepository.js';
import { CreateProductBody, UpdateProductBody } from '../codecs/productCodecs.js';
import { PRODUCT_PATHS, productId, type ProductUseCases } from '../productUseCases.js';
import {
  decodeMutationInput,
  guard,
  listArguments,
  presentPage,
  withoutNulls,
  type GraphQLFragment,
} from './resolverKit.js';

/** The product types and root fields, kept as a `.graphql` file beside this module (copied into the build). */
const typeDefs = readFileSync(new URL('./products.graphql', import.meta.url), 'utf8');

const presentProduct = (p: Product) => ({
  id: p.id,
  name: p.name,
  price: p.price,
  createdAt: p.createdAt,
  updatedAt: p.updatedAt,
});

/**
 * The product resource's GraphQL fragment. Each field is checked as the REST call it mirrors
 * (PRODUCT_PATHS), then calls a use case and nothing else.
 */
export function productGraphQL(useCases: ProductUseCases): GraphQLFragment {
  const paths = PRODUCT_PATHS.policy;
  return {
    typeDefs,
    resolvers: {
      Query: {
        product: async (args, context) => {
          await guard(context, paths.item, 'GET');
          return presentProduct(await useCases.get.execute({ id: productId(args.id) }));
        },
        products: async (args, context) => {
          const searching = args.search !== undefined && args.search !== null;
          await guard(context, searching ? paths.search : paths.collection, 'GET');
          const { q, ...page } = listArguments(args, PRODUCT_SORT_FIELDS);
          return presentPage(
            q === undefined ? await useCases.list.execute(page) : await useCases.search.execute({ ...page, q }),
            presentProduct,
          );
        },
      },
      Mutation: {
        createProduct: async (args, context) => {
          await guard(context, paths.collection, 'POST');
          const input = decodeMutationInput(CreateProductBody, args.input);
          if ('rejected' in input) return input.rejected;
          return {
            status: 201,
            message: 'created',
            errors: null,
            data: presentProduct(await useCases.create.execute(input.value)),
          };
        },
        updateProduct: async (args, context) => {
          await guard(context, paths.item, 'PUT');
          const id = productId(args.id);
          const changes = decodeMutationInput(UpdateProductBody, withoutNulls(args.input, UpdateProductBody));
          if ('rejected' in changes) return changes.rejected;
          return {
            status: 200,
            message: 'updated',
            errors: null,
            data: presentProduct(await useCases.update.execute({ id, changes: changes.value })),
          };
        },
        deleteProduct: async (args, context) => {
          await guard(context, paths.item, 'DELETE');
          await useCases.remove.execute({ id: productId(args.id) });
          return { status: 200, message: 'deleted', errors: null };
        },
      },
    },
  };
}
