import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ERROR_STATUSES, type OpenApiDocument } from '../../../../src/adapters/inbound/http/openapi.js';
import { apiDocument } from '../../../../src/main/wiring/apiDocument.js';
import { MODULES } from '../../../../src/main/modules/index.js';
import { testConfig } from '../../../support/config.js';

interface Media {
  schema: unknown;
  example?: unknown;
}

/** Every media object of the document (request bodies and answers), named by where it is. */
function mediaOf(document: OpenApiDocument): { where: string; media: Media; status?: string; operationId: string }[] {
  const all: { where: string; media: Media; status?: string; operationId: string }[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const body = (op.requestBody as { content?: Record<string, Media> } | undefined)?.content?.['application/json'];
      if (body)
        all.push({ where: `${method.toUpperCase()} ${path} request body`, media: body, operationId: op.operationId });
      for (const [status, answer] of Object.entries(op.responses)) {
        const media = answer.content?.['application/json'] as Media | undefined;
        if (media)
          all.push({ where: `${method.toUpperCase()} ${path} ${status}`, media, status, operationId: op.operationId });
      }
    }
  }
  return all;
}

/** The document's `#/components/...` refs pointed at the copy registered under `openapi`. */
function retarget(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(retarget);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `openapi${value}` : retarget(value),
    ]),
  );
}

/** Failing statuses whose body is not the error envelope, by README: Health: a health probe reports `down` with 503 and its report. */
const REPORTS_DOWN = new Set(['GET /health 503', 'GET /health/ready 503', 'GET /health/live 503']);

describe('the API document (README: API document)', () => {
  const document = apiDocument(MODULES, testConfig({ SVC_API_MODE: 'both', SVC_DOCS_ENABLED: 'true' }));
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'openapi', components: document.components } as object);
  const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, op })),
  );

  it('has every route of the service (both APIs, docs on)', () => {
    expect(operations.length).to.be.greaterThan(15);
    expect(Object.keys(document.paths)).to.include.members([
      '/api/v1/products/search',
      '/api/v1/products/{id}',
      '/api/v1/openapi.json',
    ]);
  });

  it('gives every request body and answer an example that validates against its schema', () => {
    const media = mediaOf(document);
    expect(media.length).to.be.greaterThan(operations.length);
    for (const { where, media: m } of media) {
      expect(m.example, `${where} has an example`).to.not.equal(undefined);
      const validate = ajv.compile(retarget(m.schema) as object);
      expect(
        validate(m.example),
        `${where}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(m.example)}`,
      ).to.equal(true);
    }
  });

  it('gives every parameter with an example an example its schema accepts', () => {
    for (const { where, op } of operations) {
      for (const parameter of (op.parameters ?? []) as { name: string; schema: unknown; example?: unknown }[]) {
        if (parameter.example === undefined) continue;
        const validate = ajv.compile(retarget(parameter.schema) as object);
        expect(validate(parameter.example), `${where} ${parameter.name}`).to.equal(true);
      }
    }
  });

  it('gives every operation a unique operationId, a summary and a tag the document lists', () => {
    const tags = new Set((document.tags as { name: string }[]).map((t) => t.name));
    const ids = new Set<string>();
    for (const { where, op } of operations) {
      expect(op.operationId, where).to.match(/^[a-z][A-Za-z]+$/);
      expect(ids.has(op.operationId), `${where}: ${op.operationId} twice`).to.equal(false);
      ids.add(op.operationId);
      expect(op.summary, where).to.be.a('string').and.not.equal('');
      const opTags = op.tags as string[];
      expect(opTags, where).to.have.length(1);
      expect(tags.has(opTags[0]!), `${where}: tag ${opTags[0]}`).to.equal(true);
    }
  });

  it('answers every 4xx and 5xx of every operation in the error envelope with the codes of its status, and 500 everywhere', () => {
    for (const { where, op } of operations) {
      const failures = Object.keys(op.responses).filter((status) => Number(status) >= 400);
      expect(failures, where).to.include('500');
      for (const status of failures) {
        if (REPORTS_DOWN.has(`${where} ${status}`)) continue;
        const schema = op.responses[status]!.content?.['application/json']?.schema as { $ref?: string } | undefined;
        const known = ERROR_STATUSES[Number(status)];
        expect(known, `${where} ${status} is a status of ERROR_STATUSES`).to.not.equal(undefined);
        expect(schema, `${where} ${status}`).to.deep.equal({ $ref: `#/components/schemas/${known!.schema}` });
        const validate = ajv.compile(retarget(schema) as object);
        for (const code of known!.codes) {
          expect(validate({ success: false, error: { code, message: 'm' } }), `${where} ${status} ${code}`).to.equal(
            true,
          );
        }
        expect(
          validate({ success: false, error: { code: 'SOMETHING_ELSE', message: 'm' } }),
          `${where} ${status}`,
        ).to.equal(false);
        expect(validate({ success: true, data: {} }), `${where} ${status}`).to.equal(false);
      }
    }
  });

  it('lists X-Request-ID as a required header of every answer', () => {
    const headers = document.components.headers as Record<string, { required?: boolean }>;
    expect(headers['X-Request-ID']?.required).to.equal(true);
    for (const { where, op } of operations) {
      for (const [status, answer] of Object.entries(op.responses)) {
        const listed = (answer as { headers?: Record<string, unknown> }).headers ?? {};
        expect(listed['X-Request-ID'], `${where} ${status}`).to.deep.equal({
          $ref: '#/components/headers/X-Request-ID',
        });
      }
    }
  });

  it('lists Location as a required header of every 201 that creates a resource item and of redirects (302), and of no other answer', () => {
    const headers = document.components.headers as Record<string, { required?: boolean }>;
    expect(headers.Location?.required).to.equal(true);
    const withLocation: string[] = [];
    for (const { where, op } of operations)
      for (const [status, answer] of Object.entries(op.responses))
        if ((answer as { headers?: Record<string, unknown> }).headers?.Location)
          withLocation.push(`${where} ${status}`);
    expect(withLocation).to.include('POST /api/v1/products 201');
    expect(withLocation).to.include('GET /api/v1/auth/oidc/{provider}/start 302');
    for (const entry of withLocation) expect(entry).to.match(/^(POST \/api\/v1\/[a-z-]+ 201|GET \/api\/v1\/\S+ 302)$/);
  });
});
