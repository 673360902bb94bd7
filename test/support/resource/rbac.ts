import { expect } from 'chai';
import { dataOf, expectError, expectUnauthorized, type ApiResponse } from '../api.js';
import { gqlData, gqlError, graphql } from '../graphql.js';
import {
  METHOD_OF,
  mutationsOf,
  type GraphQLOperation,
  type Json,
  type RestOperation,
  type ResourceUnderTest,
  type Role,
} from './descriptor.js';
import { documentsOf } from './graphql.js';
import { createRow, graphqlInput, itemPath, useResourceWorld, validBody, type RowJson } from './world.js';

const ROLES: readonly Role[] = ['user', 'moderator', 'admin'];

/** The status an allowed REST operation answers with a valid request. */
const SUCCESS: Readonly<Record<RestOperation, number>> = {
  list: 200,
  search: 200,
  get: 200,
  create: 201,
  update: 200,
  delete: 204,
};

/**
 * Access control of a resource (docs/access-rules.md and README: GraphQL): for each role and each REST and GraphQL
 * operation, allowed (and it works) or 403 FORBIDDEN with nothing changed, per the resource's
 * policy; without a token REST answers 401.
 */
export function describeResourceRbac(resource: ResourceUnderTest): void {
  const collection = resource.collection;
  const restOperations: RestOperation[] = [
    'list',
    ...(resource.search ? (['search'] as const) : []),
    'get',
    'create',
    'update',
    'delete',
  ];
  const graphqlOperations: GraphQLOperation[] = ['list', 'one', 'create', 'update', 'delete'];
  const docs = documentsOf(resource);
  const mutations = mutationsOf(resource);
  const fieldOf: Readonly<Record<GraphQLOperation, string>> = {
    one: resource.graphql.one,
    list: resource.graphql.list,
    create: mutations.create,
    update: mutations.update,
    delete: mutations.delete,
  };

  describe(`${collection}: access control (end to end)`, function () {
    this.timeout(60_000);
    const world = useResourceWorld();
    const admin = () => world().token;
    const current = async (id: string) => world().api.get(itemPath(resource, id), { token: admin() });

    /** Sends one REST operation on `row` as `token`. */
    async function rest(operation: RestOperation, row: RowJson, token: string | undefined): Promise<ApiResponse> {
      const options = (json?: unknown) => ({
        ...(token === undefined ? {} : { token }),
        ...(json === undefined ? {} : { json }),
      });
      const api = world().api;
      switch (operation) {
        case 'list':
          return api.get(collection, options());
        case 'search':
          return api.get(`${collection}/search?q=a`, options());
        case 'get':
          return api.get(itemPath(resource, row.id), options());
        case 'create':
          return api.post(collection, options(await validBody(world(), resource)));
        case 'update':
          return api.put(itemPath(resource, row.id), options(await validBody(world(), resource, 1)));
        case 'delete':
          return api.delete(itemPath(resource, row.id), options());
      }
    }

    for (const role of ROLES) {
      const allowed = (operation: RestOperation | GraphQLOperation) =>
        resource.policy[role].includes(METHOD_OF[operation]);

      for (const operation of restOperations) {
        it(`${role}: REST ${operation} is ${allowed(operation) ? 'allowed' : '403 FORBIDDEN, changing nothing'}`, async () => {
          const row = await createRow(world(), resource);
          const token = world().accounts[role].access_token;
          const response = await rest(operation, row, token);
          if (allowed(operation)) {
            expect(response.status, response.text).to.equal(SUCCESS[operation]);
          } else {
            expectError(response, 403, 'FORBIDDEN', 'forbidden');
            expect(dataOf<RowJson>(await current(row.id))).to.deep.equal(row);
          }
        });
      }

      for (const operation of graphqlOperations) {
        it(`${role}: GraphQL ${fieldOf[operation]} is ${allowed(operation) ? 'allowed' : 'a FORBIDDEN error, changing nothing'}`, async () => {
          const row = await createRow(world(), resource);
          const variables: Record<string, Json> = {
            one: { id: row.id },
            list: {},
            create: { input: graphqlInput(resource, await validBody(world(), resource)) },
            update: { id: row.id, input: graphqlInput(resource, await validBody(world(), resource, 1)) },
            delete: { id: row.id },
          }[operation];
          const response = await graphql<Record<string, { status?: number } | null>>(
            world().service.url,
            docs[operation],
            {
              token: world().accounts[role].access_token,
              variables: variables as Record<string, unknown>,
            },
          );
          if (allowed(operation)) {
            const answer = gqlData(response)[fieldOf[operation]];
            expect(answer, response.text).to.be.an('object');
            if (operation === 'create') expect(answer!.status).to.equal(201);
            if (operation === 'update' || operation === 'delete') expect(answer!.status).to.equal(200);
          } else {
            gqlError(response, 'FORBIDDEN');
            expect(dataOf<RowJson>(await current(row.id))).to.deep.equal(row);
          }
        });
      }
    }

    it('answers every REST operation without a token with 401', async () => {
      const row = await createRow(world(), resource);
      for (const operation of restOperations)
        expectUnauthorized(await rest(operation, row, undefined), 'missing bearer token');
      expect(dataOf<RowJson>(await current(row.id))).to.deep.equal(row);
    });
  });
}
