import { expect } from 'chai';
import { buildSchema, lexicographicSortSchema, printSchema } from 'graphql';
import type { GraphQLFragment } from '../../../../src/adapters/inbound/graphql/resolverKit.js';
import { createSchema } from '../../../../src/adapters/inbound/graphql/schema.js';
import { resourceGraphQL } from '../../../../src/adapters/inbound/graphql/resourceGraphQL.js';
import { productsChanged } from '../../../support/resources/productBodies.js';
import { inboundOf } from '../../../../src/adapters/inbound/resources.js';
import { Product } from '../../../../src/domain/product/Product.js';

/** README: GraphQL SDL, verbatim: what clients see, whatever files it is kept in. */
const PUBLISHED_SDL = `
scalar DateTime
enum SortOrientation { ASC DESC }
input TPaginationInputDto { limit: Int, page: Int }
input TSortingInputDto { sortByField: String!, sortOrientation: SortOrientation }
type TPaginationObjectDto { totalRecords: Int, recordsPerPage: Int, totalPages: Int, currentPage: Int }
type TCommonAPIErrorDto { fieldName: String, message: String! }
type TCommonResponseDto { status: Int!, message: String, errors: [TCommonAPIErrorDto!] }
type Product { id: ID!, name: String!, price: Float!, createdAt: DateTime!, updatedAt: DateTime! }
type ProductList { data: [Product!]!, pagination: TPaginationObjectDto! }
type ProductResponse { status: Int!, message: String, errors: [TCommonAPIErrorDto!], data: Product }
input CreateProductInput { name: String!, price: Float! }
input UpdateProductInput { name: String, price: Float }
type Query {
  queryHealth: TCommonResponseDto!
  product(id: ID!): Product
  products(pagination: TPaginationInputDto, sort: TSortingInputDto, search: String): ProductList!
}
type Mutation {
  mutationHealth: TCommonResponseDto!
  createProduct(input: CreateProductInput!): ProductResponse!
  updateProduct(id: ID!, input: UpdateProductInput!): ProductResponse!
  deleteProduct(id: ID!): TCommonResponseDto!
}
`;

const printed = (sdl: Parameters<typeof printSchema>[0]) => printSchema(lexicographicSortSchema(sdl));
const products = resourceGraphQL(inboundOf(Product), {} as never);

describe("the GraphQL schema built from the shared SDL and the resources' fragments", () => {
  it('is exactly the published schema (README: GraphQL; types, fields, arguments, field order within each type)', async function () {
    // Products as Portico ships them; a project that changed them on purpose (generate field) publishes its own.
    if (await productsChanged()) this.skip();
    const ours = createSchema([products]);
    expect(printed(ours)).to.equal(printed(buildSchema(PUBLISHED_SDL)));
    // Field order is what introspection shows and lexicographic sorting hides: root fields keep the contract's.
    expect(Object.keys(ours.getQueryType()!.getFields())).to.deep.equal(['queryHealth', 'product', 'products']);
    expect(Object.keys(ours.getMutationType()!.getFields())).to.deep.equal([
      'mutationHealth',
      'createProduct',
      'updateProduct',
      'deleteProduct',
    ]);
  });

  it('resolves every root field', () => {
    const ours = createSchema([products]);
    for (const type of [ours.getQueryType()!, ours.getMutationType()!]) {
      for (const field of Object.values(type.getFields()))
        expect(field.resolve, `${type.name}.${field.name}`).to.be.a('function');
    }
  });

  it('refuses to start when a fragment resolves a root field its SDL lacks', () => {
    const stray: GraphQLFragment = {
      typeDefs: 'extend type Query { widget: Int }',
      resolvers: { Query: { widgets: async () => 1 } },
    };
    expect(() => createSchema([products, stray])).to.throw('schema has no Query.widgets');
  });

  it('refuses to start when two fragments resolve the same root field', () => {
    const twice: GraphQLFragment = { typeDefs: '', resolvers: { Mutation: { deleteProduct: async () => null } } };
    expect(() => createSchema([products, twice])).to.throw('Mutation.deleteProduct is resolved twice');
  });
});
