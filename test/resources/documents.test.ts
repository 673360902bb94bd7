import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { graphql, printSchema } from 'graphql';
import pino from 'pino';
import { resourceGraphQL } from '../../src/adapters/inbound/graphql/resourceGraphQL.js';
import type { GraphQLContext } from '../../src/adapters/inbound/graphql/resolverKit.js';
import { createSchema } from '../../src/adapters/inbound/graphql/schema.js';
import type { Shape } from '../../src/adapters/inbound/codecs/fields.js';
import { bodiesOf } from '../../src/adapters/inbound/codecs/resourceCodecs.js';
import { operationsOf, resourceSchema } from '../../src/adapters/inbound/http/resourceOperations.js';
import { resourceRoutes } from '../../src/adapters/inbound/http/resourceRoutes.js';
import { inboundOf } from '../../src/adapters/inbound/resources.js';
import { CasbinAccessPolicy } from '../../src/adapters/outbound/access/CasbinAccessPolicy.js';
import { parsePolicyCsv } from '../../src/adapters/outbound/access/PolicyRuleStore.js';
import { InMemoryPolicyRuleStore } from '../../src/adapters/outbound/memory/InMemoryPolicyRuleStore.js';
import { memoryRepositoryOf } from '../../src/adapters/outbound/memory/InMemoryResourceRepository.js';
import { FileLinks } from '../../src/application/files/FileLinks.js';
import type { DownloadOptions, FileStorage } from '../../src/application/ports/FileStorage.js';
import { resourceUseCases } from '../../src/application/resources/resourceUseCases.js';
import { UPLOADED_ONLY } from '../../src/domain/shared/fieldRules.js';
import type { StoredFile } from '../../src/domain/shared/files.js';
import { Api, dataOf, expectValidation } from '../support/api.js';
import { Document } from '../support/documents.js';
import { FixedClock } from '../support/FixedClock.js';
import { startHttpApp, type RunningApp } from '../support/httpApp.js';
import { describeResourceCores } from '../support/resource/suites.js';
import { SequentialIds } from '../support/SequentialIds.js';
import { testConfig } from '../support/config.js';
import { apiDocument } from '../../src/main/wiring/apiDocument.js';
import { MODULES } from '../../src/main/modules/index.js';
import { resourceModule } from '../../src/main/modules/resource.js';

// The entity's rules, the use cases on memory, and the repository contract — rows holding a stored
// file — in memory, on SQLite and on PostgreSQL.
describeResourceCores(Document);

/** A file storage whose links are plain text naming what they were asked for (only `downloadUrl` is used). */
const storage: FileStorage = {
  engine: 'test',
  downloadUrl: async (key: string, o: DownloadOptions) =>
    `https://files.test/${key}?type=${o.contentType}&attachment=${o.attachment}&ttl=${o.expiresInSeconds}`,
  write: () => Promise.reject(new Error('not used')),
  stat: () => Promise.reject(new Error('not used')),
  read: () => Promise.reject(new Error('not used')),
  remove: () => Promise.reject(new Error('not used')),
  list: () => {
    throw new Error('not used');
  },
  uploadUrl: () => Promise.reject(new Error('not used')),
  check: () => Promise.resolve(),
};

const MODEL = readFileSync(new URL('../../policy/model.conf', import.meta.url), 'utf8');
const COLLECTION = '/api/v1/documents';
const SHA = 'a'.repeat(64);
const pdf = (n: number): StoredFile => ({
  key: `documents/${n}/attachment/k${n}`,
  size: 1000 + n,
  contentType: 'application/pdf',
  sha256: SHA,
  uploadedAt: new Date('2026-01-02T03:04:05.000Z'),
});
const png: StoredFile = { ...pdf(9), key: 'documents/9/attachment/k9', contentType: 'image/png' };
/** The link the test storage makes for a file, valid 900 s. */
const linkOf = (file: StoredFile) =>
  `https://files.test/${file.key}?type=${file.contentType}&attachment=${file.contentType !== 'image/png'}&ttl=900`;
const wireOf = (file: StoredFile) => ({
  url: linkOf(file),
  size: file.size,
  content_type: file.contentType,
  sha256: file.sha256,
});

describe('documents: a file field in REST, GraphQL and the API document', function () {
  this.timeout(30_000);
  const rows = memoryRepositoryOf(Document as never) as unknown as {
    update(id: string, change: (d: Document) => Document): Promise<Document | undefined>;
  };
  const clock = new FixedClock();
  let app: RunningApp;
  let api: Api;
  let useCases: Record<string, unknown>;
  let schema: ReturnType<typeof createSchema>;

  before(async () => {
    const policy = await CasbinAccessPolicy.create(
      MODEL,
      new InMemoryPolicyRuleStore(),
      parsePolicyCsv('p, admin, /api/v1/*, .*'),
    );
    const authenticate = { execute: async () => ({ userId: 'ad000000-0000-4000-8000-000000000004', role: 'admin' }) };
    useCases = {
      authenticate,
      policy,
      links: new FileLinks(storage, 900),
      ...resourceUseCases({
        entity: Document as never,
        rows: rows as never,
        ids: new SequentialIds('0000d0c0'),
        clock,
      }),
    };
    app = await startHttpApp({ routes: [resourceRoutes(inboundOf(Document as never), useCases as never)] });
    api = new Api(app.url);
    schema = createSchema([resourceGraphQL(inboundOf(Document as never), useCases as never)]);
  });
  after(() => app?.close());

  const token = 'admin';
  const create = async (title: string) =>
    dataOf<Record<string, unknown> & { id: string }>(await api.post(COLLECTION, { token, json: { title } }), 201);
  /** Sets a stored file as an upload would (the entity's `apply`). */
  const attach = (id: string, file: StoredFile | null) =>
    rows.update(id, (d) => d.apply({ attachment: file } as never, clock.now()) as Document);
  const gql = async (source: string, variables: Record<string, unknown> = {}) => {
    const context: GraphQLContext = {
      bearer: token,
      bearerProblem: undefined,
      log: pino({ level: 'silent' }),
      access: { authenticate: useCases.authenticate as never, policy: useCases.policy as never },
    };
    return graphql({ schema, source, contextValue: context, variableValues: variables });
  };

  it('answers a new row with attachment null; a body setting it (any value, null too) is 400 "is set by uploading the file", on create and update', async () => {
    const row = await create('Lease');
    expect(row.attachment).to.equal(null);
    for (const value of [null, 'x', wireOf(pdf(1))]) {
      const refused = [{ field: 'attachment', message: UPLOADED_ONLY }];
      expectValidation(await api.post(COLLECTION, { token, json: { title: 'A', attachment: value } }), refused);
      expectValidation(await api.put(`${COLLECTION}/${row.id}`, { token, json: { attachment: value } }), refused);
    }
    expect(dataOf(await api.get(`${COLLECTION}/${row.id}`, { token }))).to.deep.equal(row);
  });

  it('answers a stored file as {url, size, content_type, sha256}, url its signed link (an attachment unless an image), on get, update and every list', async () => {
    const a = await create('Alpha');
    const b = await create('Beta');
    const c = await create('Gamma');
    await attach(a.id, pdf(1));
    await attach(b.id, png);
    const got = dataOf<Record<string, unknown>>(await api.get(`${COLLECTION}/${a.id}`, { token }));
    expect(got.attachment).to.deep.equal(wireOf(pdf(1)));
    expect(Object.keys(got)).to.deep.equal(['id', 'title', 'attachment', 'created_at', 'updated_at']);
    const updated = dataOf<Record<string, unknown>>(
      await api.put(`${COLLECTION}/${b.id}`, { token, json: { title: 'Beta 2' } }),
    );
    expect(updated.attachment).to.deep.equal(wireOf(png));
    const listed = dataOf<Record<string, unknown>[]>(await api.get(`${COLLECTION}?per_page=100`, { token }));
    const byId = new Map(listed.map((row) => [row.id, row.attachment]));
    expect(byId.get(a.id)).to.deep.equal(wireOf(pdf(1)));
    expect(byId.get(b.id)).to.deep.equal(wireOf(png));
    expect(byId.get(c.id)).to.equal(null);
    const found = dataOf<Record<string, unknown>[]>(await api.get(`${COLLECTION}/search?q=alpha`, { token }));
    expect(found.map((row) => row.attachment)).to.deep.equal([wireOf(pdf(1))]);
    await attach(a.id, null);
    expect(dataOf<Record<string, unknown>>(await api.get(`${COLLECTION}/${a.id}`, { token })).attachment).to.equal(
      null,
    );
  });

  it('GraphQL: attachment is a File {url, size, contentType, sha256} or null, in one and list; the inputs have no attachment', async () => {
    const a = await create('Delta');
    const b = await create('Epsilon');
    await attach(a.id, pdf(2));
    const selection = 'id attachment { url size contentType sha256 }';
    const one = await gql(`query($id: ID!) { document(id: $id) { ${selection} } }`, { id: a.id });
    expect(one.errors).to.equal(undefined);
    const file = { url: linkOf(pdf(2)), size: 1002, contentType: 'application/pdf', sha256: SHA };
    expect(one.data?.document).to.deep.equal({ id: a.id, attachment: file });
    const list = await gql(`{ documents(pagination: { limit: 100 }) { data { ${selection} } } }`);
    expect(list.errors).to.equal(undefined);
    const data = (list.data?.documents as { data: { id: string; attachment: unknown }[] }).data;
    expect(data.find((row) => row.id === a.id)?.attachment).to.deep.equal(file);
    expect(data.find((row) => row.id === b.id)?.attachment).to.equal(null);
    const sdl = printSchema(schema);
    expect(sdl).to.contain('type File {\n  url: String!\n  size: Float!\n  contentType: String!\n  sha256: String!\n}');
    expect(sdl).to.contain('attachment: File\n');
    expect(sdl).to.match(/input CreateDocumentInput \{\n {2}title: String!\n\}/);
    expect(sdl).to.match(/input UpdateDocumentInput \{\n {2}title: String\n\}/);
    const refused = await gql('mutation($input: CreateDocumentInput!) { createDocument(input: $input) { status } }', {
      input: { title: 'Zeta', attachment: null },
    });
    expect(refused.errors?.[0]?.message).to.contain('attachment');
  });

  it('the API document: the item answers attachment as a nullable read-only {url, size, content_type, sha256}; a body may not set it', () => {
    const ops = operationsOf(Document.declaration);
    const item = resourceSchema('Document', bodiesOf(Document.declaration).create as Shape);
    const attachment = item.properties!.attachment!;
    expect(attachment.type).to.deep.equal(['object', 'null']);
    expect(attachment.readOnly).to.equal(true);
    expect(attachment.required).to.deep.equal(['url', 'size', 'content_type', 'sha256']);
    expect(Object.keys(attachment.properties!)).to.deep.equal(['url', 'size', 'content_type', 'sha256']);
    expect(attachment.description).to.contain('application/pdf, image/*, at most 1MB');
    const body = ops.create.body.attachment!;
    expect(body.required).to.equal(false);
    expect(body.codec.schema.readOnly).to.equal(true);
  });

  it('the API document of a service serving documents: the item example carries a valid attachment, a request example none', () => {
    const document = apiDocument(
      [...MODULES, resourceModule(Document)],
      testConfig({ SVC_API_MODE: 'both', SVC_DOCS_ENABLED: 'true' }),
    ) as unknown as {
      paths: Record<string, Record<string, { requestBody?: Content; responses: Record<string, Content> }>>;
    };
    type Content = { content: { 'application/json': { example: Record<string, unknown> } } };
    const item = document.paths['/api/v1/documents/{id}']!.get!.responses['200']!.content['application/json'].example
      .data as Record<string, unknown>;
    expect(item.attachment).to.deep.equal({
      url: 'https://files.example.com/f/7d0c6b1e?expires=1768469400&signature=0f3a',
      size: 48213,
      content_type: 'application/pdf',
      sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    });
    const create = document.paths['/api/v1/documents']!.post!.requestBody!.content['application/json'].example;
    expect(create).to.deep.equal({ title: 'example' });
  });

  it('a resource with a file field is not served without FileLinks: REST and GraphQL refuse to start', () => {
    const { links: _links, ...without } = useCases;
    expect(() => resourceRoutes(inboundOf(Document as never), without as never)).to.throw(/FileLinks/);
    expect(() => resourceGraphQL(inboundOf(Document as never), without as never)).to.throw(/FileLinks/);
  });
});
