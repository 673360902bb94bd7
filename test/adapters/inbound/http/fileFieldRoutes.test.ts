import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { resourceRoutes } from '../../../../src/adapters/inbound/http/resourceRoutes.js';
import { MODULES } from '../../../../src/main/modules/index.js';
import { resourceModule } from '../../../../src/main/modules/resource.js';
import { apiDocument } from '../../../../src/main/wiring/apiDocument.js';
import { testConfig } from '../../../support/config.js';
import { fileRoutes as storageRoutes } from '../../../../src/adapters/inbound/http/routes/files.js';
import { inboundOf } from '../../../../src/adapters/inbound/resources.js';
import { CasbinAccessPolicy } from '../../../../src/adapters/outbound/access/CasbinAccessPolicy.js';
import { parsePolicyCsv } from '../../../../src/adapters/outbound/access/PolicyRuleStore.js';
import { FileTypeInspector } from '../../../../src/adapters/outbound/files/FileTypeInspector.js';
import { InMemoryPolicyRuleStore } from '../../../../src/adapters/outbound/memory/InMemoryPolicyRuleStore.js';
import { memoryRepositoryOf } from '../../../../src/adapters/outbound/memory/InMemoryResourceRepository.js';
import { LocalFileStorage } from '../../../../src/adapters/outbound/storage/LocalFileStorage.js';
import { fileJobs } from '../../../../src/application/files/FileJobs.js';
import { FILES_DELETE_JOB } from '../../../../src/application/files/FileKit.js';
import { FileLinks } from '../../../../src/application/files/FileLinks.js';
import { fileUseCases } from '../../../../src/application/files/fileUseCases.js';
import type { JobQueue, NewJob } from '../../../../src/application/ports/Jobs.js';
import { resourceUseCases } from '../../../../src/application/resources/resourceUseCases.js';
import { FixedClock } from '../../../support/FixedClock.js';
import { HTML, PNG, pngOf, Poster } from '../../../support/fileResources.js';
import { startHttpApp, type RunningApp } from '../../../support/httpApp.js';
import { SequentialIds } from '../../../support/SequentialIds.js';
import { streamedRequest } from '../../../support/streamedRequest.js';

const MODEL = await readFile(new URL('../../../../policy/model.conf', import.meta.url), 'utf8');
const CALLERS = {
  alice: { userId: 'a11ce000-0000-4000-8000-000000000001', role: 'user' },
  bob: { userId: 'b0b00000-0000-4000-8000-000000000002', role: 'user' },
  viewer: { userId: 'f1e00000-0000-4000-8000-000000000003', role: 'viewer' },
} as const;
type Caller = keyof typeof CALLERS;
const POLICY = [
  'p, user, /api/v1/posters, GET|POST, own',
  'p, user, /api/v1/posters/{id}, GET|PUT|DELETE, own',
  'p, viewer, /api/v1/posters/{id}, GET',
].join('\n');

/** Jobs kept to be run by the test: `runAll` runs the `files.delete` ones with the real handler. */
class KeptJobs implements JobQueue {
  readonly jobs: NewJob[] = [];
  async enqueue(job: NewJob): Promise<string> {
    this.jobs.push(job);
    return String(this.jobs.length);
  }
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

describe('file routes (a resource with file fields, over the HTTP app and the local engine)', () => {
  let root: string;
  let app: RunningApp;
  let storage: LocalFileStorage;
  const jobs = new KeptJobs();
  const uploadedMetrics: [string, string, number][] = [];

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'portico-file-flows-'));
    storage = new LocalFileStorage({ root, signingSecret: 'flows-test-secret-of-at-least-32-bytes!', publicUrl: '' });
    const policy = await CasbinAccessPolicy.create(MODEL, new InMemoryPolicyRuleStore(), parsePolicyCsv(POLICY));
    const authenticate = {
      execute: async ({ accessToken }: { accessToken: string }) => ({
        ...CALLERS[accessToken as Caller],
        sessionId: 's',
      }),
    };
    const rows = memoryRepositoryOf(Poster as never);
    const clock = new FixedClock(new Date());
    const ids = new SequentialIds('0000f11e');
    const links = new FileLinks(storage, 900);
    const files = fileUseCases({
      resource: Poster.declaration,
      rows: rows as never,
      errors: Poster.errors,
      storage,
      inspector: new FileTypeInspector(),
      jobs,
      clock,
      ids: { newId: () => crypto.randomUUID() },
      links,
    })!;
    const useCases = {
      authenticate,
      policy,
      links,
      ...resourceUseCases({ entity: Poster as never, rows: rows as never, ids, clock }),
      files,
      remove: files.remove,
    };
    app = await startHttpApp({
      bodyLimitBytes: 1024,
      routes: [
        resourceRoutes(inboundOf(Poster as never), useCases as never, {} as never, (r, f, bytes) =>
          uploadedMetrics.push([r, f, bytes]),
        ),
        storageRoutes(storage),
      ],
    });
  });
  after(async () => {
    await app.close();
    await rm(root, { recursive: true, force: true });
  });

  const call = async (
    caller: Caller,
    method: string,
    path: string,
    body?: string | Uint8Array,
    headers: Record<string, string> = {},
  ) => {
    const res = await fetch(`${app.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${caller}`, ...headers },
      redirect: 'manual',
      ...(body === undefined ? {} : { body }),
    });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      json: text ? (JSON.parse(text) as Record<string, any>) : undefined,
    };
  };
  const poster = async (caller: Caller = 'alice'): Promise<string> => {
    const res = await call(caller, 'POST', '/api/v1/posters', JSON.stringify({ title: 'Fair' }), {
      'Content-Type': 'application/json',
    });
    expect(res.status).to.equal(201);
    return res.json!.data.id as string;
  };
  const objects = async (): Promise<string[]> => {
    const keys: string[] = [];
    for await (const object of storage.list('posters/')) keys.push(object.key);
    return keys.sort();
  };
  const runJobs = async () => {
    const handlers = fileJobs({ storage, resources: [], clock: new FixedClock() });
    for (const job of jobs.jobs.splice(0))
      await handlers[job.name]!(job.payload, { id: '1', name: job.name, attempt: 1 });
  };
  const put = (caller: Caller, id: string, bytes: Uint8Array, type = 'image/png') =>
    call(caller, 'PUT', `/api/v1/posters/${id}/picture`, bytes, { 'Content-Type': type });

  it('uploads the raw body (200, the item with the file’s size and SHA-256), counts it, and GET redirects to a link serving the bytes', async () => {
    const id = await poster();
    const bytes = pngOf(200_000);
    const res = await put('alice', id, bytes);
    expect(res.status).to.equal(200);
    expect(res.json!.data.picture).to.include({ size: 200_000, sha256: sha256(bytes) });
    expect(res.headers.get('etag')).to.equal('"2"');
    expect(uploadedMetrics.at(-1)).to.deep.equal(['posters', 'picture', 200_000]);
    const download = await call('alice', 'GET', `/api/v1/posters/${id}/picture`);
    expect(download.status).to.equal(302);
    const served = await fetch(`${app.url}${download.headers.get('location')}`);
    expect(served.status).to.equal(200);
    expect(served.headers.get('content-type')).to.equal('image/png');
    expect(sha256(Buffer.from(await served.arrayBuffer()))).to.equal(sha256(bytes));
  });

  it('refuses an HTML page sent as image/png (415) and keeps no object', async () => {
    const id = await poster();
    const before = await objects();
    const res = await put('alice', id, HTML);
    expect(res.status).to.equal(415);
    expect(res.json!.error.code).to.equal('UNSUPPORTED_MEDIA_TYPE');
    expect(await objects()).to.deep.equal(before);
  });

  it('answers 413 at once to a Content-Length above the largest size, reading nothing, and closes the connection', async () => {
    const id = await poster();
    const before = await objects();
    const started = Date.now();
    const megabyte = Buffer.alloc(1024 * 1024, 1);
    let left = 50;
    const res = await streamedRequest(`${app.url}/api/v1/posters/${id}/picture`, {
      method: 'PUT',
      headers: {
        Authorization: 'Bearer alice',
        'Content-Type': 'image/png',
        'Content-Length': String(50 * 1024 * 1024),
      },
      chunks: function* () {
        while (left-- > 0) yield megabyte;
      },
    });
    expect(res.status).to.equal(413);
    expect(JSON.parse(res.body).error.code).to.equal('PAYLOAD_TOO_LARGE');
    expect(res.headers.connection).to.equal('close');
    expect(res.sent).to.be.below(50 * 1024 * 1024);
    expect(Date.now() - started).to.be.below(5000);
    expect(await objects()).to.deep.equal(before);
  });

  it('counts a chunked body as it streams: 413 past the largest size, no object left, memory not grown by the body', async () => {
    const id = await poster();
    const before = await objects();
    const rss = process.memoryUsage().rss;
    let left = 50;
    const megabyte = Buffer.concat([PNG, Buffer.alloc(1024 * 1024 - PNG.length, 1)]);
    const res = await streamedRequest(`${app.url}/api/v1/posters/${id}/picture`, {
      method: 'PUT',
      headers: { Authorization: 'Bearer alice', 'Content-Type': 'image/png' },
      chunks: function* () {
        while (left-- > 0) yield megabyte;
      },
    });
    expect(res.status).to.equal(413);
    expect(res.headers.connection).to.equal('close');
    expect(res.sent).to.be.below(20 * 1024 * 1024);
    expect(process.memoryUsage().rss - rss).to.be.below(30 * 1024 * 1024);
    expect(await objects()).to.deep.equal(before);
  });

  it('leaves every other route to the JSON body parser', async () => {
    const id = await poster();
    const res = await call('alice', 'PUT', `/api/v1/posters/${id}`, PNG, { 'Content-Type': 'image/png' });
    expect(res.status).to.equal(415);
  });

  it('replacing, clearing (204) and deleting the item remove the objects once the jobs ran', async () => {
    const id = await poster();
    const first = (await put('alice', id, PNG)).json!.data.picture;
    await put('alice', id, pngOf(500));
    expect(jobs.jobs.map((job) => job.name)).to.deep.equal([FILES_DELETE_JOB]);
    await runJobs();
    const mine = (await objects()).filter((key) => key.startsWith(`posters/${id}/`));
    expect(mine).to.have.length(1);
    expect(first.sha256).to.equal(sha256(PNG));
    const cleared = await call('alice', 'DELETE', `/api/v1/posters/${id}/picture`);
    expect(cleared.status).to.equal(204);
    expect((await call('alice', 'GET', `/api/v1/posters/${id}`)).json!.data.picture).to.equal(null);
    expect((await call('alice', 'GET', `/api/v1/posters/${id}/picture`)).status).to.equal(404);
    await runJobs();
    expect((await objects()).filter((key) => key.startsWith(`posters/${id}/`))).to.deep.equal([]);
    await put('alice', id, PNG);
    expect((await call('alice', 'DELETE', `/api/v1/posters/${id}`)).status).to.equal(204);
    await runJobs();
    expect((await objects()).filter((key) => key.startsWith(`posters/${id}/`))).to.deep.equal([]);
  });

  it('follows the item’s rules: another owner’s item is 404; a role that may only read the item downloads but may not upload (403)', async () => {
    const id = await poster('alice');
    await put('alice', id, PNG);
    expect((await put('bob', id, PNG)).status).to.equal(404);
    expect((await call('bob', 'GET', `/api/v1/posters/${id}/picture`)).status).to.equal(404);
    expect((await call('bob', 'DELETE', `/api/v1/posters/${id}/picture`)).status).to.equal(404);
    expect((await call('viewer', 'GET', `/api/v1/posters/${id}/picture`)).status).to.equal(302);
    expect((await put('viewer', id, PNG)).status).to.equal(403);
    expect((await call('viewer', 'DELETE', `/api/v1/posters/${id}/picture`)).status).to.equal(403);
  });

  it('uploads straight to storage: 201 with a presigned PUT, the PUT stores it, completing sets the field (again: the same item); nothing uploaded is 409', async () => {
    const id = await poster();
    const json = { 'Content-Type': 'application/json' };
    const bytes = pngOf(3000);
    const started = await call(
      'alice',
      'POST',
      `/api/v1/posters/${id}/picture/uploads`,
      JSON.stringify({ content_type: 'image/png', size: 3000 }),
      json,
    );
    expect(started.status).to.equal(201);
    const upload = started.json!.data;
    expect(upload).to.have.keys(['upload_id', 'url', 'method', 'headers', 'expires_at']);
    expect(upload.method).to.equal('PUT');
    const early = await call('alice', 'POST', `/api/v1/posters/${id}/picture/uploads/${upload.upload_id}`);
    expect([early.status, early.json!.error.message]).to.deep.equal([409, 'picture: no object was uploaded']);
    const stored = await fetch(`${app.url}${upload.url}`, { method: 'PUT', headers: upload.headers, body: bytes });
    expect(stored.status).to.equal(200);
    const done = await call('alice', 'POST', `/api/v1/posters/${id}/picture/uploads/${upload.upload_id}`);
    expect(done.status).to.equal(200);
    expect(done.json!.data.picture).to.include({ size: 3000, sha256: sha256(bytes) });
    const again = await call('alice', 'POST', `/api/v1/posters/${id}/picture/uploads/${upload.upload_id}`);
    expect([again.status, again.headers.get('etag')]).to.deep.equal([200, done.headers.get('etag')]);
    const tooLarge = await call(
      'alice',
      'POST',
      `/api/v1/posters/${id}/picture/uploads`,
      JSON.stringify({ content_type: 'image/png', size: 2 * 1024 * 1024 }),
      json,
    );
    expect(tooLarge.status).to.equal(413);
    const wrongType = await call(
      'alice',
      'POST',
      `/api/v1/posters/${id}/picture/uploads`,
      JSON.stringify({ content_type: 'text/html', size: 10 }),
      json,
    );
    expect(wrongType.status).to.equal(415);
    const bad = await call(
      'alice',
      'POST',
      `/api/v1/posters/${id}/picture/uploads`,
      JSON.stringify({ size: -1 }),
      json,
    );
    expect(bad.status).to.equal(400);
  });

  it('documents each file route with its limits: the raw body’s types, the largest size, the 302, the item’s rules', () => {
    const document = apiDocument([...MODULES, resourceModule(Poster)], testConfig({ SVC_API_MODE: 'both' }));
    const path = document.paths['/api/v1/posters/{id}/picture']!;
    const upload = path.put as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(Object.keys(upload.requestBody.content)).to.deep.equal(['image/png', 'image/jpeg']);
    expect(upload.requestBody.description).to.contain('at most 1MB');
    expect(upload.responses['413'].description).to.contain('larger than 1MB');
    expect(upload.responses['415'].description).to.contain('image/png, image/jpeg');
    expect(Object.keys(path)).to.have.members(['put', 'delete', 'get']);
    expect((path.get as Record<string, any>).responses['302'].headers).to.include.keys('Location'); // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(document.paths['/api/v1/posters/{id}/picture/uploads']?.post?.operationId).to.equal(
      'startPosterPictureUpload',
    );
    expect(document.paths['/api/v1/posters/{id}/picture/uploads/{upload_id}']?.post?.operationId).to.equal(
      'completePosterPictureUpload',
    );
    expect(document.paths['/api/v1/posters/{id}/leaflet']?.put?.operationId).to.equal('uploadPosterLeaflet');
  });
});
