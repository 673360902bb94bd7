import { expect } from 'chai';
import createClient, { type Client } from 'openapi-fetch';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { setRole } from '../support/api.js';
import { testConfig } from '../support/config.js';
import { silentLogger } from '../support/logger.js';
import type { paths } from '../support/openapi/portico.js';
import { PRODUCT_BODY } from '../support/resources/productBodies.js';

/**
 * The data of a success answer with this status. openapi-fetch gives `data` on a 2xx and `error`
 * otherwise; both keep the document's types, so the caller reads fields the document declares.
 */
function dataOf<T>(result: { data?: T; error?: unknown; response: Response }, status: number): T {
  expect(result.response.status, JSON.stringify(result.error)).to.equal(status);
  if (result.data === undefined) throw new Error(`no data in the ${status} answer`);
  return result.data;
}

/** The ETag of an answer (a product's version), which the document says it carries. */
function etagOf(response: Response): string {
  const etag = response.headers.get('etag');
  expect(etag, 'ETag').to.match(/^"\d+"$/);
  return etag!;
}

describe('a client generated from the API document (openapi-typescript + openapi-fetch)', function () {
  this.timeout(60_000);
  let service: RunningService;
  let client: Client<paths>;

  before(async () => {
    service = await startService(testConfig({ SVC_AUTH_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false' }), {
      logger: silentLogger(),
    });
    client = createClient<paths>({ baseUrl: service.url });
  });
  after(async () => service.stop());

  it('registers, logs in, creates, lists, updates, gets and deletes a product; the deleted one is 404', async () => {
    const credentials = { email: 'typed-client@example.com', password: 'correct horse battery' };
    const registered = dataOf(
      await client.POST('/api/v1/auth/register', {
        body: { ...credentials, first_name: 'Grace', last_name: 'Hopper' },
      }),
      201,
    );
    expect(registered.data.user).to.include({ email: credentials.email, role: 'user' });
    // The least privileged role that may write products; the new token carries it.
    await setRole(service, registered.data.user.id, 'moderator');
    const session = dataOf(await client.POST('/api/v1/auth/login', { body: credentials }), 200).data;
    // The document says login answers tokens, or (a second factor on) what finishes the sign-in.
    if (!('access_token' in session)) throw new Error('login answered mfa_required for an account without TOTP');
    expect(session.user.role).to.equal('moderator');
    expect(session.token_type).to.equal('Bearer');
    const headers = { Authorization: `Bearer ${session.access_token}` };

    const createdAnswer = await client.POST('/api/v1/products', {
      headers,
      body: { ...PRODUCT_BODY, name: 'Typed lamp', price: 19.99 },
    });
    const created = dataOf(createdAnswer, 201).data;
    expect(created).to.include({ name: 'Typed lamp', price: 19.99 });
    expect(created.created_at).to.equal(created.updated_at);
    const id = created.id;

    const query = { sort: 'name', order: 'asc', per_page: 10 } as const;
    const list = dataOf(await client.GET('/api/v1/products', { headers, params: { query } }), 200);
    expect(list.data).to.deep.equal([created]);
    expect(list.meta).to.deep.equal({ page: 1, per_page: 10, total: 1, total_pages: 1 });

    const updatedAnswer = await client.PUT('/api/v1/products/{id}', {
      headers,
      params: { path: { id }, header: { 'If-Match': etagOf(createdAnswer.response) } },
      body: { price: 24.5 },
    });
    const updated = dataOf(updatedAnswer, 200).data;
    expect(updated).to.include({ id, name: 'Typed lamp', price: 24.5 });
    expect(etagOf(updatedAnswer.response)).to.not.equal(etagOf(createdAnswer.response));

    // The version it was created at is stale now: 412, with the error shape the document gives.
    const stale = await client.PUT('/api/v1/products/{id}', {
      headers,
      params: { path: { id }, header: { 'If-Match': etagOf(createdAnswer.response) } },
      body: { price: 1 },
    });
    expect(stale.response.status).to.equal(412);
    expect(stale.error?.error.code).to.equal('PRECONDITION_FAILED');

    const gotAnswer = await client.GET('/api/v1/products/{id}', { headers, params: { path: { id } } });
    expect(dataOf(gotAnswer, 200).data).to.deep.equal(updated);

    const deleted = await client.DELETE('/api/v1/products/{id}', {
      headers,
      params: { path: { id }, header: { 'If-Match': etagOf(gotAnswer.response) } },
    });
    expect(deleted.response.status, JSON.stringify(deleted.error)).to.equal(204);

    const gone = await client.GET('/api/v1/products/{id}', { headers, params: { path: { id } } });
    expect(gone.response.status).to.equal(404);
    expect(gone.data).to.equal(undefined);
    expect(gone.error?.error).to.deep.equal({ code: 'NOT_FOUND', message: 'Product not found', detail: `id: ${id}` });
  });
});
