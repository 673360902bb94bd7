import { expect } from 'chai';
import { PRODUCT_INPUT } from './resources/productBodies.js';

/** `{fieldName, message}`: how the GraphQL API names a failing field (README: GraphQL). */
export interface GraphQLFieldJson {
  fieldName: string;
  message: string;
}

/** One entry of a GraphQL response's `errors`. */
export interface GraphQLErrorJson {
  message: string;
  path?: (string | number)[];
  locations?: { line: number; column: number }[];
  extensions?: { code?: string; detail?: string; fields?: GraphQLFieldJson[] } & Record<string, unknown>;
}

/** A GraphQL response body: `data` is absent when the document was refused before execution. */
export interface GraphQLBody<D> {
  data?: D | null;
  errors?: GraphQLErrorJson[];
}

export interface GraphQLResponse<D> {
  status: number;
  headers: Headers;
  body: GraphQLBody<D>;
  text: string;
}

export interface GraphQLRequest {
  variables?: Record<string, unknown>;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** The general route; `/graphql` unless told. */
  route?: string;
  /** `application/json` unless told (what most clients send). */
  accept?: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
}

/**
 * One GraphQL-over-HTTP request: POST JSON `{query, variables}`, or GET with `?query=` (and
 * `&variables=`). The body is parsed as JSON whatever the status.
 */
export async function graphql<D = Record<string, unknown>>(
  baseUrl: string,
  query: string,
  request: GraphQLRequest = {},
): Promise<GraphQLResponse<D>> {
  const route = request.route ?? '/graphql';
  const headers: Record<string, string> = { Accept: request.accept ?? 'application/json', ...request.headers };
  if (request.token !== undefined) headers.Authorization = `Bearer ${request.token}`;
  let response: Response;
  if (request.method === 'GET') {
    const params = new URLSearchParams({ query });
    if (request.variables !== undefined) params.set('variables', JSON.stringify(request.variables));
    response = await fetch(`${baseUrl}${route}?${params.toString()}`, { headers });
  } else {
    headers['Content-Type'] = 'application/json';
    const body = JSON.stringify(request.variables === undefined ? { query } : { query, variables: request.variables });
    response = await fetch(`${baseUrl}${route}`, { method: 'POST', headers, body });
  }
  const text = await response.text();
  let body: GraphQLBody<D>;
  try {
    body = JSON.parse(text) as GraphQLBody<D>;
  } catch {
    throw new Error(`not a JSON answer (${response.status}): ${text.slice(0, 500)}`);
  }
  return { status: response.status, headers: response.headers, body, text };
}

/** Asserts HTTP 200, no `errors`, and returns `data`. */
export function gqlData<D>(response: GraphQLResponse<D>): D {
  expect(response.status, response.text).to.equal(200);
  expect(response.body.errors, response.text).to.equal(undefined);
  expect(response.body.data, response.text).to.be.an('object');
  return response.body.data as D;
}

/**
 * Asserts HTTP 200 (a resolver's error never changes the HTTP status) with exactly one error,
 * carrying `extensions.code` = `code`, and returns that error.
 */
export function gqlError<D>(response: GraphQLResponse<D>, code: string): GraphQLErrorJson {
  expect(response.status, response.text).to.equal(200);
  expect(response.body.errors, response.text).to.be.an('array').with.length(1);
  const error = response.body.errors![0]!;
  expect(error.extensions?.code, response.text).to.equal(code);
  return error;
}

/**
 * Asserts that the document was refused before execution: no `data` key at all (the spec's sign
 * that nothing ran) and at least one error whose message matches. Returns the errors.
 */
export function gqlRefused<D>(response: GraphQLResponse<D>, message: RegExp): GraphQLErrorJson[] {
  expect(response.body, response.text).not.to.have.property('data');
  expect(response.body.errors, response.text).to.be.an('array').that.is.not.empty;
  const errors = response.body.errors!;
  expect(
    errors.some((e) => message.test(e.message)),
    response.text,
  ).to.equal(true);
  return errors;
}

/** A product as the GraphQL API shows it. */
export interface GqlProduct {
  id: string;
  name: string;
  price: number;
  createdAt: string;
  updatedAt: string;
}

/** `ProductResponse` of createProduct and updateProduct. */
export interface GqlProductResponse {
  status: number;
  message: string | null;
  errors: GraphQLFieldJson[] | null;
  data: GqlProduct | null;
}

/** `TCommonResponseDto`. */
export interface GqlCommonResponse {
  status: number;
  message: string | null;
  errors: GraphQLFieldJson[] | null;
}

export interface GqlProductList {
  data: GqlProduct[];
  pagination: { totalRecords: number; recordsPerPage: number; totalPages: number; currentPage: number };
}

export const PRODUCT_FIELDS = 'id name price createdAt updatedAt';
export const PRODUCT_RESPONSE_FIELDS = `status message errors { fieldName message } data { ${PRODUCT_FIELDS} }`;

export const CREATE_PRODUCT = `mutation Create($input: CreateProductInput!) { createProduct(input: $input) { ${PRODUCT_RESPONSE_FIELDS} } }`;
export const UPDATE_PRODUCT = `mutation Update($id: ID!, $input: UpdateProductInput!) { updateProduct(id: $id, input: $input) { ${PRODUCT_RESPONSE_FIELDS} } }`;
export const DELETE_PRODUCT = `mutation Delete($id: ID!) { deleteProduct(id: $id) { status message errors { fieldName message } } }`;
export const GET_PRODUCT = `query Get($id: ID!) { product(id: $id) { ${PRODUCT_FIELDS} } }`;
export const LIST_PRODUCTS = `query List($pagination: TPaginationInputDto, $sort: TSortingInputDto, $search: String) {
  products(pagination: $pagination, sort: $sort, search: $search) {
    data { ${PRODUCT_FIELDS} }
    pagination { totalRecords recordsPerPage totalPages currentPage }
  }
}`;

/**
 * Creates a product through the GraphQL API (the token must be allowed to) and returns it: `input`
 * over a valid `PRODUCT_INPUT`.
 */
export async function gqlCreateProduct(
  baseUrl: string,
  token: string,
  input: { name: string; price: number },
): Promise<GqlProduct> {
  const variables = { input: { ...PRODUCT_INPUT, ...input } };
  const { createProduct } = gqlData(
    await graphql<{ createProduct: GqlProductResponse }>(baseUrl, CREATE_PRODUCT, { token, variables }),
  );
  expect(createProduct.status, JSON.stringify(createProduct)).to.equal(201);
  return createProduct.data!;
}
