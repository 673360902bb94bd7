import { expect } from 'chai';
import { dataOf, expectError } from '../api.js';
import { gqlData, gqlError, graphql, type GraphQLFieldJson, type GraphQLResponse } from '../graphql.js';
import {
  camelOf,
  mutationsOf,
  sortFieldsOf,
  UNKNOWN_ID,
  type FieldUnderTest,
  type Json,
  type ResourceUnderTest,
} from './descriptor.js';
import { searchable, sleep } from './restKit.js';
import {
  asGraphQLRow,
  createRow,
  expectSorted,
  graphqlInput,
  itemPath,
  sampleFor,
  sortKey,
  toGraphQL,
  useResourceWorld,
  validBody,
  type RowJson,
} from './world.js';

/** A mutation's response object (`<Type>Response` or `TCommonResponseDto`). */
interface ResponseObject {
  status: number;
  message: string | null;
  errors: GraphQLFieldJson[] | null;
  data?: Record<string, Json> | null;
}

interface ListObject {
  data: Record<string, Json>[];
  pagination: { totalRecords: number; recordsPerPage: number; totalPages: number; currentPage: number };
}

/** The name GraphQL gives a failing field in a 422 response object: the field's GraphQL name. */
export const graphqlFieldName = (field: FieldUnderTest): string => field.graphql;

/** The five operations of a resource as GraphQL documents (README: GraphQL and README: Add a resource). */
export function documentsOf(resource: ResourceUnderTest) {
  const { type, one, list } = resource.graphql;
  const names = mutationsOf(resource);
  const selection = ['id', ...resource.fields.map((f) => f.graphql), 'createdAt', 'updatedAt'].join(' ');
  const response = `status message errors { fieldName message } data { ${selection} }`;
  const filters = resource.fields.filter((f) => f.ref);
  const listVariables = [
    '$pagination: TPaginationInputDto',
    '$sort: TSortingInputDto',
    ...(resource.search ? ['$search: String'] : []),
    ...filters.map((f) => `$${f.graphql}: ID`),
  ].join(', ');
  const listArguments = [
    'pagination: $pagination',
    'sort: $sort',
    ...(resource.search ? ['search: $search'] : []),
    ...filters.map((f) => `${f.graphql}: $${f.graphql}`),
  ].join(', ');
  return {
    one: `query One($id: ID!) { ${one}(id: $id) { ${selection} } }`,
    list: `query List(${listVariables}) { ${list}(${listArguments}) { data { ${selection} } pagination { totalRecords recordsPerPage totalPages currentPage } } }`,
    create: `mutation Create($input: Create${type}Input!) { ${names.create}(input: $input) { ${response} } }`,
    update: `mutation Update($id: ID!, $input: Update${type}Input!) { ${names.update}(id: $id, input: $input) { ${response} } }`,
    delete: `mutation Delete($id: ID!) { ${names.delete}(id: $id) { status message errors { fieldName message } } }`,
  };
}

/**
 * The GraphQL behaviour every resource has (README: GraphQL and README: Add a resource): the five operations, 422 response
 * objects for invalid input, NOT_FOUND, bad list arguments, and per-resolver authentication (no
 * token is an UNAUTHORIZED error in an HTTP 200, never an HTTP 401).
 */
export function describeResourceGraphQL(resource: ResourceUnderTest): void {
  const docs = documentsOf(resource);
  const names = mutationsOf(resource);
  const { one, list } = resource.graphql;
  const notFound = `${resource.human} not found`;

  describe(`${resource.graphql.type} (GraphQL, end to end)`, function () {
    this.timeout(60_000);
    const world = useResourceWorld();
    /** One request as the admin; with `token` null, without any token. */
    const gql = <D>(
      query: string,
      variables: Record<string, unknown>,
      token: string | null = world().token,
    ): Promise<GraphQLResponse<D>> =>
      graphql<D>(world().service.url, query, { variables, ...(token === null ? {} : { token }) });
    const create = async (overrides: Record<string, Json> = {}) => createRow(world(), resource, overrides);

    it(`${names.create}: status 201, the row as REST shows it, in GraphQL names`, async () => {
      const body = await validBody(world(), resource);
      const response = await gql<Record<string, ResponseObject>>(docs.create, { input: graphqlInput(resource, body) });
      const created = gqlData(response)[names.create]!;
      expect(created, response.text).to.deep.include({ status: 201, errors: null });
      const row = created.data!;
      const rest = dataOf<RowJson>(
        await world().api.get(itemPath(resource, row.id as string), { token: world().token }),
      );
      expect(row).to.deep.equal(asGraphQLRow(resource, rest));
      for (const field of resource.fields.filter((f) => !f.ref))
        expect(row[field.graphql], field.graphql).to.deep.equal(toGraphQL(field, body[field.name]!));
    });

    const defaulted = resource.fields.filter((f) => f.default !== undefined);
    if (defaulted.length > 0) {
      it(`${names.create}: a field with a default may be left out, and the default is stored (${defaulted.map((f) => f.graphql).join(', ')})`, async () => {
        const body = await validBody(world(), resource);
        for (const field of defaulted) delete body[field.name];
        const response = await gql<Record<string, ResponseObject>>(docs.create, {
          input: graphqlInput(resource, body),
        });
        const created = gqlData(response)[names.create]!;
        expect(created, response.text).to.deep.include({ status: 201, errors: null });
        for (const field of defaulted)
          expect(created.data![field.graphql], field.graphql).to.deep.equal(toGraphQL(field, field.default!));
      });
    }

    for (const field of resource.fields.filter((f) => f.readOnly?.other !== undefined)) {
      it(`refuses the read-only ${field.graphql} set by a client, with a 422 response object "is read-only", on create and update; its current value is accepted`, async () => {
        const readOnly = {
          status: 422,
          message: 'validation failed',
          errors: [{ fieldName: graphqlFieldName(field), message: 'is read-only' }],
          data: null,
        };
        const other = field.readOnly!.otherGraphql ?? field.readOnly!.other!;
        const input = { ...graphqlInput(resource, await validBody(world(), resource)), [field.graphql]: other };
        const created = await gql<Record<string, ResponseObject>>(docs.create, { input });
        expect(gqlData(created)[names.create], created.text).to.deep.equal(readOnly);
        const row = await create();
        const refused = await gql<Record<string, ResponseObject>>(docs.update, {
          id: row.id,
          input: { [field.graphql]: other },
        });
        expect(gqlData(refused)[names.update], refused.text).to.deep.equal(readOnly);
        const current = toGraphQL(field, row[field.name] ?? null);
        const kept = await gql<Record<string, ResponseObject>>(docs.update, {
          id: row.id,
          input: { [field.graphql]: current },
        });
        expect(gqlData(kept)[names.update], kept.text).to.deep.include({ status: 200, errors: null });
        expect(gqlData(kept)[names.update]!.data![field.graphql]).to.deep.equal(current);
      });
    }

    for (const file of resource.files ?? []) {
      it(`${resource.graphql.type}.${file.graphql} is a File, null on a new row; the inputs have no ${file.graphql} (only an upload sets it): a mutation giving it is refused, nothing stored`, async () => {
        const row = await create();
        const query = `query One($id: ID!) { ${one}(id: $id) { id ${file.graphql} { url size contentType sha256 } } }`;
        const found = gqlData(await gql<Record<string, Record<string, Json>>>(query, { id: row.id }))[one]!;
        expect(found).to.deep.equal({ id: row.id, [file.graphql]: null });
        const input = { ...graphqlInput(resource, await validBody(world(), resource)), [file.graphql]: null };
        const refused = await gql<Record<string, ResponseObject>>(docs.create, { input });
        expect(refused.body.errors, refused.text).to.be.an('array').that.is.not.empty;
        expect(refused.body.errors![0]!.message).to.contain(file.graphql);
        const update = await gql<Record<string, ResponseObject>>(docs.update, {
          id: row.id,
          input: { [file.graphql]: null },
        });
        expect(update.body.errors, update.text).to.be.an('array').that.is.not.empty;
        const rest = await world().api.get(itemPath(resource, row.id), { token: world().token });
        expect(dataOf<RowJson>(rest)).to.deep.equal(row);
      });
    }

    it(`${one}: the row, and NOT_FOUND "${notFound}" for an unknown or non-UUID id`, async () => {
      const row = await create();
      const found = gqlData(await gql<Record<string, Record<string, Json>>>(docs.one, { id: row.id }))[one];
      expect(found).to.deep.equal(asGraphQLRow(resource, row));
      for (const id of [UNKNOWN_ID, 'abc']) {
        const error = gqlError(await gql(docs.one, { id }), 'NOT_FOUND');
        expect(error.message).to.equal(notFound);
        expect(error.extensions?.detail).to.equal(`id: ${id}`);
      }
    });

    it(`${list}: pages with totals, sorted by every sortable field both ways, ties by id`, async () => {
      // Each field at both its samples, twice (ties); the first row changed last, so that updatedAt
      // and createdAt order the rows differently.
      const made: RowJson[] = [];
      for (const which of [0, 1, 0, 1] as const) {
        made.push(await create(await validBody(world(), resource, which)));
        await sleep(3);
      }
      const changed = await world().api.put(itemPath(resource, made[0]!.id), {
        token: world().token,
        json: await validBody(world(), resource, 1),
      });
      expect(changed.status, changed.text).to.equal(200);
      for (const name of sortFieldsOf(resource)) {
        const field = resource.fields.find((f) => f.name === name);
        for (const orientation of ['ASC', 'DESC'] as const) {
          const response = await gql<Record<string, ListObject>>(docs.list, {
            pagination: { limit: 100 },
            sort: { sortByField: camelOf(name), sortOrientation: orientation },
          });
          const answered = gqlData(response)[list]!;
          expect(answered.pagination).to.include({ recordsPerPage: 100, currentPage: 1 });
          expect(answered.data.length).to.equal(answered.pagination.totalRecords);
          const rows = answered.data.map((r) => ({ ...r, id: r.id as string }) as unknown as RowJson);
          const key = (r: RowJson) => sortKey(field?.kind ?? 'timestamp', r[field?.graphql ?? camelOf(name)] ?? null);
          expectSorted(rows, key, orientation === 'ASC' ? 'asc' : 'desc', `${name} ${orientation}`);
        }
      }
      const paged = gqlData(await gql<Record<string, ListObject>>(docs.list, { pagination: { limit: 2, page: 2 } }))[
        list
      ]!;
      expect(paged.pagination).to.include({ recordsPerPage: 2, currentPage: 2 });
      expect(paged.pagination.totalPages).to.equal(Math.ceil(paged.pagination.totalRecords / 2));
    });

    it(`${list}: bad pagination or sort is a VALIDATION_ERROR naming each argument`, async () => {
      const error = gqlError(
        await gql(docs.list, { pagination: { limit: 0 }, sort: { sortByField: 'nope' } }),
        'VALIDATION_ERROR',
      );
      const graphqlSorts = sortFieldsOf(resource).map(camelOf).join(', ');
      expect(error.extensions?.fields).to.deep.equal([
        { fieldName: 'pagination.limit', message: 'must be an integer from 1 to 100' },
        { fieldName: 'sort.sortByField', message: `must be one of ${graphqlSorts}` },
      ]);
    });

    for (const field of resource.fields.filter((f) => f.ref)) {
      it(`${list}: filters by ${field.graphql}`, async () => {
        const parent = await createRow(world(), field.ref!());
        const mine = [await create({ [field.name]: parent.id }), await create({ [field.name]: parent.id })];
        await create();
        const answered = gqlData(await gql<Record<string, ListObject>>(docs.list, { [field.graphql]: parent.id }))[
          list
        ]!;
        expect(answered.data.map((r) => r.id).sort()).to.deep.equal(mine.map((r) => r.id).sort());
      });
    }

    if (resource.search) {
      const searchField = resource.fields.find((f) => f.name === resource.search)!;
      it(`${list}: search finds the rows whose ${searchField.graphql} contains it, whatever the case`, async () => {
        const marker = `zq${Math.random().toString(36).slice(2, 10)}`;
        const value = searchable(searchField, marker);
        const row = await create({ [searchField.name]: value });
        const answered = gqlData(await gql<Record<string, ListObject>>(docs.list, { search: value.toUpperCase() }))[
          list
        ]!;
        expect(answered.data.map((r) => r.id)).to.deep.equal([row.id]);
        expect(answered.pagination.totalRecords).to.equal(1);
      });
    }

    it(`${names.update}: status 200, only the fields sent change; NOT_FOUND for an unknown id`, async () => {
      const row = await create();
      const changed = resource.fields.find((f) => !f.ref) ?? resource.fields[0]!;
      const value = changed.ref ? (await createRow(world(), changed.ref())).id : sampleFor(world(), changed, 1);
      const response = await gql<Record<string, ResponseObject>>(docs.update, {
        id: row.id,
        input: { [changed.graphql]: toGraphQL(changed, value) },
      });
      const updated = gqlData(response)[names.update]!;
      expect(updated, response.text).to.deep.include({ status: 200, errors: null });
      const expected = asGraphQLRow(resource, { ...row, [changed.name]: value });
      expect({ ...updated.data, updatedAt: null }).to.deep.equal({ ...expected, updatedAt: null });
      const error = gqlError(
        await gql(docs.update, { id: UNKNOWN_ID, input: { [changed.graphql]: toGraphQL(changed, value) } }),
        'NOT_FOUND',
      );
      expect(error.message).to.equal(notFound);
    });

    for (const field of resource.fields) {
      for (const invalid of field.invalid.filter((i) => !i.restOnly)) {
        const value = 'graphql' in invalid ? invalid.graphql! : invalid.value;
        it(`refuses ${field.graphql} ${JSON.stringify(value)?.slice(0, 40)} with a 422 response object, on create and update`, async () => {
          const expected = {
            status: 422,
            message: 'validation failed',
            errors: [{ fieldName: graphqlFieldName(field), message: invalid.message }],
            data: null,
          };
          const input = { ...graphqlInput(resource, await validBody(world(), resource)), [field.graphql]: value };
          const created = await gql<Record<string, ResponseObject>>(docs.create, { input });
          expect(gqlData(created)[names.create], created.text).to.deep.equal(expected);
          const row = await create();
          const updated = await gql<Record<string, ResponseObject>>(docs.update, {
            id: row.id,
            input: { [field.graphql]: value },
          });
          expect(gqlData(updated)[names.update], updated.text).to.deep.equal(expected);
          expect(gqlData(await gql<Record<string, Record<string, Json>>>(docs.one, { id: row.id }))[one]).to.deep.equal(
            asGraphQLRow(resource, row),
          );
        });
      }
    }

    it(`${names.delete}: status 200, then the row is gone for GraphQL and REST (NOT_FOUND), and a second delete is NOT_FOUND`, async () => {
      const row = await create();
      const deleted = gqlData(await gql<Record<string, ResponseObject>>(docs.delete, { id: row.id }))[names.delete];
      expect(deleted).to.deep.include({ status: 200, errors: null });
      for (const query of [docs.one, docs.delete]) {
        const error = gqlError(await gql(query, { id: row.id }), 'NOT_FOUND');
        expect(error.message).to.equal(notFound);
        expect(error.extensions?.detail).to.equal(`id: ${row.id}`);
      }
      expectError(
        await world().api.get(itemPath(resource, row.id), { token: world().token }),
        404,
        'NOT_FOUND',
        notFound,
        {
          detail: `id: ${row.id}`,
        },
      );
    });

    it('answers every operation without a token with UNAUTHORIZED in an HTTP 200, never an HTTP 401', async () => {
      const row = await create();
      const input = graphqlInput(resource, await validBody(world(), resource));
      for (const [query, variables] of [
        [docs.one, { id: row.id }],
        [docs.list, {}],
        [docs.create, { input }],
        [docs.update, { id: row.id, input: {} }],
        [docs.delete, { id: row.id }],
      ] as const) {
        for (const token of [null, 'not-a-token']) {
          const response = await gql(query, variables, token);
          expect(response.status, response.text).to.equal(200);
          gqlError(response, 'UNAUTHORIZED');
        }
      }
      expect((await world().api.get(itemPath(resource, row.id), { token: world().token })).status).to.equal(200);
    });
  });
}
