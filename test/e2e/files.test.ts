import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ListMultipartUploadsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { expect } from 'chai';
import { createResourceTable, tableOf } from '../../src/adapters/outbound/mikroorm/resourceTable.js';
import { MODULES } from '../../src/main/modules/index.js';
import { resourceModule } from '../../src/main/modules/resource.js';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { TOKENS } from '../../src/main/wiring/tokens.js';
import { accountWithRole, Api, type Account } from '../support/api.js';
import { testConfig } from '../support/config.js';
import { servedContract, type ResponseContract } from '../support/contract.js';
import { externalService } from '../support/env.js';
import { HTML, PNG, Poster, pngOf } from '../support/fileResources.js';
import { silentLogger } from '../support/logger.js';
import { testS3Options } from '../support/s3.js';
import { streamedRequest } from '../support/streamedRequest.js';

/**
 * Files through the whole service, on each engine: the local one (a folder), and S3 against the real
 * Ceph RADOS Gateway `.ci/services.sh` starts. `posters` (a title, a 1 MB PNG/JPEG picture and a 1 MB
 * PDF/text leaflet, owned) is served beside the shipped modules, under `own` rules for users.
 */

interface Engine {
  readonly name: string;
  /** The service's storage settings; undefined skips the engine, saying why. */
  readonly env: () => Promise<Record<string, string>> | undefined;
  /** The keys of every object under `prefix`, read from the store itself (not through the service). */
  readonly objects: (prefix: string) => Promise<string[]>;
  /**
   * Everything under `prefix` a write could leave: objects, and also the local engine's temporary
   * files and type sidecars, or the S3 store's unfinished multipart uploads.
   */
  readonly leftovers: (prefix: string) => Promise<string[]>;
  readonly skipReason: string;
}

let localRoot = '';

/** The files under `dir` (relative to the local engine's root); hidden ones (temporary files, sidecars) only when asked. */
async function filesUnder(dir: string, hidden: boolean): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile() && (hidden || !e.name.startsWith('.')))
    .map((e) => join(e.parentPath, e.name).slice(localRoot.length + 1));
}

const s3 = testS3Options();
const s3Client = s3
  ? new S3Client({
      endpoint: s3.endpoint!,
      region: s3.region,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId!, secretAccessKey: s3.secretAccessKey! },
    })
  : undefined;

const ENGINES: readonly Engine[] = [
  {
    name: 'local',
    env: async () => {
      localRoot = await mkdtemp(join(tmpdir(), 'portico-files-e2e-'));
      return { SVC_STORAGE_DRIVER: 'local', SVC_STORAGE_PATH: localRoot };
    },
    objects: (prefix) => filesUnder(join(localRoot, prefix), false),
    leftovers: (prefix) => filesUnder(join(localRoot, prefix), true),
    skipReason: '',
  },
  {
    name: 's3, a real Ceph RADOS Gateway',
    env: () =>
      s3 &&
      Promise.resolve({
        SVC_STORAGE_DRIVER: 's3',
        SVC_STORAGE_S3_ENDPOINT: s3.endpoint!,
        SVC_STORAGE_S3_REGION: s3.region,
        SVC_STORAGE_S3_BUCKET: s3.bucket,
        SVC_STORAGE_S3_ACCESS_KEY_ID: s3.accessKeyId!,
        SVC_STORAGE_S3_SECRET_ACCESS_KEY: s3.secretAccessKey!,
        SVC_STORAGE_S3_FORCE_PATH_STYLE: 'true',
      }),
    objects: async (prefix) => {
      const listed = await s3Client!.send(new ListObjectsV2Command({ Bucket: s3!.bucket, Prefix: prefix }));
      return (listed.Contents ?? []).map((o) => o.Key!);
    },
    leftovers: async (prefix) => {
      const listed = await s3Client!.send(new ListObjectsV2Command({ Bucket: s3!.bucket, Prefix: prefix }));
      const pending = await s3Client!.send(new ListMultipartUploadsCommand({ Bucket: s3!.bucket, Prefix: prefix }));
      return [
        ...(listed.Contents ?? []).map((o) => o.Key!),
        ...(pending.Uploads ?? []).map((u) => `(upload) ${u.Key!}`),
      ];
    },
    skipReason: 'no S3 server: SVC_TEST_S3_ENDPOINT is unset (.ci/services.sh start starts Ceph RGW)',
  },
];

interface Answer {
  status: number;
  headers: Headers;
  bytes: Buffer;
  json: { success: boolean; data?: Record<string, unknown>; error?: { code: string; message: string } };
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Polls `probe` until it holds (the jobs run after the answer), for up to 15 s. */
async function eventually(probe: () => Promise<boolean>, what: string): Promise<void> {
  const until = Date.now() + 15_000;
  while (Date.now() < until) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not within 15 s: ${what}`);
}

for (const engine of ENGINES) {
  describe(`files through the service (${engine.name})`, function () {
    this.timeout(60_000);
    let service: RunningService;
    let contract: ResponseContract;
    let ann: Account;
    let bob: Account;
    let admin: Account;

    /** A request of the service, its answer checked against the API document it serves. */
    async function call(
      method: string,
      path: string,
      options: { token?: string; body?: Uint8Array | string; json?: unknown; headers?: Record<string, string> } = {},
    ): Promise<Answer> {
      const headers: Record<string, string> = { ...options.headers };
      if (options.token) headers.Authorization = `Bearer ${options.token}`;
      let body: Uint8Array | string | undefined = options.body;
      if (options.json !== undefined) {
        headers['Content-Type'] = 'application/json';
        body = JSON.stringify(options.json);
      }
      const response = await fetch(`${service.url}${path}`, {
        method,
        headers,
        redirect: 'manual',
        ...(body !== undefined ? { body } : {}),
      });
      const bytes = Buffer.from(await response.arrayBuffer());
      const text = bytes.toString('utf8');
      contract.check(method, path, {
        status: response.status,
        header: (n) => response.headers.get(n) ?? undefined,
        text,
      });
      const isJson = (response.headers.get('content-type') ?? '').startsWith('application/json');
      return { status: response.status, headers: response.headers, bytes, json: isJson ? JSON.parse(text) : {} };
    }

    const poster = async (token = ann.access_token): Promise<string> => {
      const created = await call('POST', '/api/v1/posters', { token, json: { title: 'Spring fair' } });
      expect(created.status).to.equal(201);
      return created.json.data!.id as string;
    };
    const prefixOf = (id: string, field = 'picture') => `posters/${id}/${field}/`;
    const upload = (id: string, bytes: Uint8Array, type: string, token = ann.access_token, field = 'picture') =>
      call('PUT', `/api/v1/posters/${id}/${field}`, { token, body: bytes, headers: { 'Content-Type': type } });

    before(async function () {
      const env = await engine.env();
      if (env === undefined) {
        console.log(`      (skipped: ${engine.skipReason})`);
        this.skip();
      }
      service = await startService(
        testConfig({ ...env, SVC_AUTH_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false', SVC_API_MODE: 'both' }),
        { logger: silentLogger(), modules: [...MODULES, resourceModule(Poster)] },
      );
      const knex = (service.database.orm.em.getConnection() as AbstractSqlConnection).getKnex();
      for (const statement of createResourceTable(knex, tableOf(Poster as never))) await knex.raw(statement);
      contract = await servedContract(service.url);
      const api = new Api(service.url, contract);
      admin = await accountWithRole(service, api, 'admin');
      ann = await accountWithRole(service, api, 'user');
      bob = await accountWithRole(service, api, 'user');
      for (const [path, action] of [
        ['/api/v1/posters', 'GET|POST'],
        ['/api/v1/posters/{id}', 'GET|PUT|DELETE'],
      ] as const) {
        const added = await call('POST', '/api/v1/admin/policies', {
          token: admin.access_token,
          json: { role: 'user', path, action, scope: 'own' },
        });
        expect(added.status, JSON.stringify(added.json)).to.equal(201);
      }
    });
    after(async () => {
      await service?.stop();
      if (localRoot !== '' && engine.name === 'local') await rm(localRoot, { recursive: true, force: true });
    });

    it('stores an upload whole: 200 with the item, its SHA-256 and size; the signed link serves the same bytes with the stored type', async () => {
      const id = await poster();
      const bytes = pngOf(300_000);
      const uploaded = await upload(id, bytes, 'image/png');
      expect(uploaded.status, uploaded.bytes.toString()).to.equal(200);
      const picture = uploaded.json.data!.picture as Record<string, unknown>;
      expect(picture).to.include({ size: bytes.length, content_type: 'image/png', sha256: sha256(bytes) });
      expect(uploaded.json.data!.leaflet).to.equal(null);
      expect(await engine.objects(prefixOf(id))).to.have.length(1);

      const item = await call('GET', `/api/v1/posters/${id}`, { token: ann.access_token });
      expect((item.json.data!.picture as Record<string, unknown>).sha256).to.equal(sha256(bytes));

      const redirect = await call('GET', `/api/v1/posters/${id}/picture`, { token: ann.access_token });
      expect(redirect.status).to.equal(302);
      const link = new URL(redirect.headers.get('location')!, service.url);
      const served = await fetch(link);
      expect(served.status).to.equal(200);
      expect(served.headers.get('content-type')).to.equal('image/png');
      // An image is shown, not downloaded.
      expect(served.headers.get('content-disposition') ?? '').not.to.match(/attachment/);
      expect(sha256(Buffer.from(await served.arrayBuffer()))).to.equal(sha256(bytes));
      if (engine.name === 'local') {
        expect(served.headers.get('x-content-type-options')).to.equal('nosniff');
        expect(served.headers.get('content-security-policy')).to.equal("default-src 'none'; sandbox");
      } else {
        // The store's own origin, never the API's.
        expect(link.origin).to.equal(new URL(s3!.endpoint!).origin);
      }
    });

    it('serves every type but images as an attachment, with its stored type', async () => {
      const id = await poster();
      const text = Buffer.from('<html><script>alert(1)</script></html> is only text here\n');
      const uploaded = await upload(id, text, 'text/plain', ann.access_token, 'leaflet');
      expect(uploaded.status).to.equal(200);
      const url = (uploaded.json.data!.leaflet as { url: string }).url;
      const served = await fetch(new URL(url, service.url));
      expect(served.status).to.equal(200);
      expect(served.headers.get('content-type')).to.match(/^text\/plain/);
      expect(served.headers.get('content-disposition')).to.match(/^attachment/);
      expect(Buffer.from(await served.arrayBuffer()).equals(text)).to.equal(true);
    });

    it('refuses a 50 MB body for a 1 MB field with 413 early, keeps no object, and does not grow by the body', async () => {
      const id = await poster();
      const rss = process.memoryUsage().rss;
      const megabyte = pngOf(1024 * 1024);
      const answer = await streamedRequest(`${service.url}/api/v1/posters/${id}/picture`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${ann.access_token}`, 'Content-Type': 'image/png' },
        chunks: function* () {
          for (let i = 0; i < 50; i++) yield megabyte;
        },
      });
      expect(answer.status).to.equal(413);
      expect(JSON.parse(answer.body).error).to.deep.include({ code: 'PAYLOAD_TOO_LARGE' });
      expect(answer.sent, 'bytes sent before the answer').to.be.below(25 * 1024 * 1024);
      expect(process.memoryUsage().rss - rss, 'memory grown').to.be.below(30 * 1024 * 1024);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await engine.leftovers(prefixOf(id))).to.deep.equal([]);
      const item = await call('GET', `/api/v1/posters/${id}`, { token: ann.access_token });
      expect(item.json.data!.picture).to.equal(null);
    });

    it('refuses a declared length past the limit before reading the body: 413', async () => {
      const id = await poster();
      const answer = await call('PUT', `/api/v1/posters/${id}/picture`, {
        token: ann.access_token,
        body: pngOf(1024 * 1024 + 1),
        headers: { 'Content-Type': 'image/png' },
      });
      expect(answer.status).to.equal(413);
      expect(await engine.leftovers(prefixOf(id))).to.deep.equal([]);
    });

    it('refuses an HTML page declared image/png (415) and a type the field does not take (415), keeping nothing', async () => {
      const id = await poster();
      const html = await upload(id, HTML, 'image/png');
      expect(html.status).to.equal(415);
      expect(html.json.error!.code).to.equal('UNSUPPORTED_MEDIA_TYPE');
      const gif = await upload(id, Buffer.from('GIF89a....'), 'image/gif');
      expect(gif.status).to.equal(415);
      expect(await engine.leftovers(prefixOf(id))).to.deep.equal([]);
    });

    it('refuses a file in the item body: 400 naming the field', async () => {
      const id = await poster();
      const put = await call('PUT', `/api/v1/posters/${id}`, {
        token: ann.access_token,
        json: { picture: { url: 'https://x.test/a.png' } },
      });
      expect(put.status).to.equal(400);
      expect(JSON.stringify(put.json)).to.contain('picture');
    });

    it('refuses a tampered or expired link with 403', async () => {
      const id = await poster();
      const uploaded = await upload(id, PNG, 'image/png');
      const url = new URL((uploaded.json.data!.picture as { url: string }).url, service.url);
      const name = [...url.searchParams.keys()].find((k) => /signature/i.test(k))!;
      const signature = url.searchParams.get(name)!;
      url.searchParams.set(name, (signature[0] === 'a' ? 'b' : 'a') + signature.slice(1));
      expect((await fetch(url)).status).to.equal(403);

      const storage = service.container.get(TOKENS.FileStorage);
      const key = (await engine.objects(prefixOf(id)))[0]!;
      const short = await storage.downloadUrl(key, {
        contentType: 'image/png',
        attachment: false,
        expiresInSeconds: 1,
      });
      expect((await fetch(new URL(short, service.url))).status).to.equal(200);
      await new Promise((resolve) => setTimeout(resolve, 2100));
      expect((await fetch(new URL(short, service.url))).status).to.equal(403);
    });

    it('uploads straight to storage: a presigned PUT binds size and type (the store refuses others), then completing sets the field', async () => {
      const id = await poster();
      const bytes = pngOf(50_000);
      const started = await call('POST', `/api/v1/posters/${id}/picture/uploads`, {
        token: ann.access_token,
        json: { content_type: 'image/png', size: bytes.length },
      });
      expect(started.status, started.bytes.toString()).to.equal(201);
      const { upload_id, url, method, headers } = started.json.data as {
        upload_id: string;
        url: string;
        method: string;
        headers: Record<string, string>;
      };
      expect(method).to.equal('PUT');
      const target = new URL(url, service.url);
      // Each PUT states its own length truthfully: the store refuses what the signature does not bind.
      const put = (body: Buffer, type: string) =>
        fetch(target, {
          method: 'PUT',
          body,
          headers: { ...headers, 'Content-Type': type, 'Content-Length': String(body.length) },
        });
      expect((await put(pngOf(50_001), 'image/png')).status, 'another size').to.equal(403);
      expect((await put(bytes, 'image/jpeg')).status, 'another type').to.equal(403);
      expect(await engine.leftovers(prefixOf(id))).to.deep.equal([]);
      expect((await put(bytes, 'image/png')).status).to.be.oneOf([200, 201, 204]);

      const completed = await call('POST', `/api/v1/posters/${id}/picture/uploads/${upload_id}`, {
        token: ann.access_token,
      });
      expect(completed.status, completed.bytes.toString()).to.equal(200);
      expect(completed.json.data!.picture).to.include({ size: bytes.length, sha256: sha256(bytes) });

      const tooBig = await call('POST', `/api/v1/posters/${id}/picture/uploads`, {
        token: ann.access_token,
        json: { content_type: 'image/png', size: 1024 * 1024 + 1 },
      });
      expect(tooBig.status).to.equal(413);
      const wrongType = await call('POST', `/api/v1/posters/${id}/picture/uploads`, {
        token: ann.access_token,
        json: { content_type: 'text/html', size: 10 },
      });
      expect(wrongType.status).to.equal(415);
      const never = await call('POST', `/api/v1/posters/${id}/leaflet/uploads`, {
        token: ann.access_token,
        json: { content_type: 'application/pdf', size: 10 },
      });
      const neverId = (never.json.data as { upload_id: string }).upload_id;
      const missing = await call('POST', `/api/v1/posters/${id}/leaflet/uploads/${neverId}`, {
        token: ann.access_token,
      });
      expect(missing.status).to.equal(409);
    });

    it('removes the objects in the store itself after a replace, a clear and the item deleted', async () => {
      const id = await poster();
      await upload(id, pngOf(1000), 'image/png');
      const [first] = await engine.objects(prefixOf(id));
      await upload(id, pngOf(2000), 'image/png');
      await eventually(
        async () => !(await engine.objects(prefixOf(id))).includes(first!),
        'the replaced object removed',
      );
      expect(await engine.objects(prefixOf(id))).to.have.length(1);

      const cleared = await call('DELETE', `/api/v1/posters/${id}/picture`, { token: ann.access_token });
      expect(cleared.status).to.equal(204);
      await eventually(async () => (await engine.objects(prefixOf(id))).length === 0, 'the cleared object removed');
      expect((await call('GET', `/api/v1/posters/${id}/picture`, { token: ann.access_token })).status).to.equal(404);

      await upload(id, pngOf(1000), 'image/png');
      await upload(id, Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj\n'), 'application/pdf', ann.access_token, 'leaflet');
      expect(await engine.objects(`posters/${id}/`)).to.have.length(2);
      expect((await call('DELETE', `/api/v1/posters/${id}`, { token: ann.access_token })).status).to.equal(204);
      await eventually(
        async () => (await engine.leftovers(`posters/${id}/`)).length === 0,
        "the item's objects removed",
      );
    });

    it("follows the item's rules: another user's poster is 404 for its file routes too", async () => {
      const id = await poster();
      await upload(id, PNG, 'image/png');
      expect((await call('GET', `/api/v1/posters/${id}/picture`, { token: bob.access_token })).status).to.equal(404);
      expect((await upload(id, PNG, 'image/png', bob.access_token)).status).to.equal(404);
      expect((await call('DELETE', `/api/v1/posters/${id}/picture`, { token: bob.access_token })).status).to.equal(404);
      expect((await call('GET', `/api/v1/posters/${id}/picture`, { token: admin.access_token })).status).to.equal(302);
      expect((await call('GET', `/api/v1/posters/${id}/picture`)).status).to.equal(401);
    });

    it('in GraphQL: items answer their files as File, and an input that sets a file field is refused by the schema, storing nothing', async () => {
      const id = await poster();
      await upload(id, PNG, 'image/png');
      const gql = async (query: string) => {
        const answer = await call('POST', '/graphql', { token: ann.access_token, json: { query } });
        expect(answer.status).to.equal(200);
        return answer.json as unknown as { data?: Record<string, unknown> | null; errors?: { message: string }[] };
      };
      const read = await gql(`{ poster(id: "${id}") { picture { size contentType sha256 url } leaflet { size } } }`);
      expect(read.errors, JSON.stringify(read.errors)).to.equal(undefined);
      const item = read.data!.poster as { picture: Record<string, unknown>; leaflet: unknown };
      expect(item.picture).to.include({ size: PNG.length, contentType: 'image/png', sha256: sha256(PNG) });
      expect(item.leaflet).to.equal(null);

      const refused = await gql(
        `mutation { createPoster(input: {title: "Sneaky", picture: "posters/x/picture/y"}) { status data { id } } }`,
      );
      expect(refused.data).to.equal(undefined);
      expect(refused.errors![0]!.message).to.match(/field "picture" is not defined by type "CreatePosterInput"/i);
      const listed = await call('GET', '/api/v1/posters', { token: ann.access_token });
      expect((listed.json.data as unknown as { title: string }[]).map((p) => p.title)).not.to.include('Sneaky');
    });

    it('counts uploads in the metrics', async () => {
      const id = await poster();
      await upload(id, PNG, 'image/png');
      const metrics = await (await fetch(service.metricsUrl!)).text();
      expect(metrics).to.match(/^files_uploaded_total\{resource="posters",field="picture"\} [1-9]\d*$/m);
      expect(metrics).to.match(/^files_uploaded_bytes_total [1-9]\d*$/m);
    });

    if (engine.name !== 'local') {
      describe('with the gateway stopped', () => {
        const ctl = externalService('SVC_TEST_RGW_CTL');
        const gateway = (action: 'rgw-stop' | 'rgw-start') =>
          promisify(execFile)('sh', ['-c', `${ctl} ${action}`], { timeout: 60_000 });
        let id: string;

        before(async function () {
          if (ctl === undefined) {
            console.log('      (skipped: needs SVC_TEST_RGW_CTL)');
            this.skip();
          }
          id = await poster();
          await upload(id, PNG, 'image/png');
          await gateway('rgw-stop');
        });
        after(async () => {
          if (ctl !== undefined) await gateway('rgw-start');
        });

        it('answers uploads and downloads with a clean 503; items, lists and products still work; /health shows storage degraded, readiness stays up', async () => {
          const started = Date.now();
          const refused = await upload(id, PNG, 'image/png');
          expect(refused.status).to.equal(503);
          expect(refused.json.error).to.deep.include({ code: 'SERVICE_UNAVAILABLE' });
          expect(Date.now() - started).to.be.below(10_000);
          const download = await call('GET', `/api/v1/posters/${id}/picture`, { token: ann.access_token });
          expect(download.status).to.equal(503);
          expect(download.json.error).to.deep.include({ code: 'SERVICE_UNAVAILABLE' });
          const direct = await call('POST', `/api/v1/posters/${id}/picture/uploads`, {
            token: ann.access_token,
            json: { content_type: 'image/png', size: 100 },
          });
          expect(direct.status).to.equal(503);

          expect((await call('GET', `/api/v1/posters/${id}`, { token: ann.access_token })).status).to.equal(200);
          expect((await call('GET', '/api/v1/posters', { token: ann.access_token })).status).to.equal(200);
          expect((await call('GET', '/api/v1/products', { token: ann.access_token })).status).to.equal(200);
          expect(
            (await call('POST', '/api/v1/posters', { token: ann.access_token, json: { title: 'Down' } })).status,
          ).to.equal(201);

          const health = await call('GET', '/health');
          const checks = (health.json as unknown as { checks: Record<string, { status: string }> }).checks;
          expect(checks.storage!.status).to.equal('degraded');
          expect((await call('GET', '/health/ready')).status).to.equal(200);
        });
      });
    }
  });
}

describe('files on S3 when the bucket does not exist', function () {
  this.timeout(60_000);
  let service: RunningService;
  let api: Api;
  let admin: Account;

  before(async function () {
    if (s3 === undefined) {
      console.log('      (skipped: no S3 server: SVC_TEST_S3_ENDPOINT is unset)');
      this.skip();
    }
    service = await startService(
      testConfig({
        SVC_STORAGE_DRIVER: 's3',
        SVC_STORAGE_S3_ENDPOINT: s3.endpoint!,
        SVC_STORAGE_S3_REGION: s3.region,
        SVC_STORAGE_S3_BUCKET: 'portico-no-such-bucket',
        SVC_STORAGE_S3_ACCESS_KEY_ID: s3.accessKeyId!,
        SVC_STORAGE_S3_SECRET_ACCESS_KEY: s3.secretAccessKey!,
        SVC_STORAGE_S3_FORCE_PATH_STYLE: 'true',
        SVC_AUTH_BCRYPT_COST: '4',
        SVC_RATE_LIMIT_ENABLED: 'false',
      }),
      { logger: silentLogger(), modules: [...MODULES, resourceModule(Poster)] },
    );
    const knex = (service.database.orm.em.getConnection() as AbstractSqlConnection).getKnex();
    for (const statement of createResourceTable(knex, tableOf(Poster as never))) await knex.raw(statement);
    api = new Api(service.url, await servedContract(service.url));
    admin = await accountWithRole(service, api, 'admin');
  });
  after(async () => service?.stop());

  it('answers a direct upload 503 naming the bucket rather than a link into it; /health shows storage degraded, readiness stays up', async () => {
    const auth = { Authorization: `Bearer ${admin.access_token}`, 'Content-Type': 'application/json' };
    const created = await fetch(`${service.url}/api/v1/posters`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ title: 'Nowhere' }),
    });
    expect(created.status).to.equal(201);
    const id = ((await created.json()) as { data: { id: string } }).data.id;

    const started = await fetch(`${service.url}/api/v1/posters/${id}/picture/uploads`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ content_type: 'image/png', size: PNG.length }),
    });
    expect(started.status).to.equal(503);
    expect(((await started.json()) as { error: unknown }).error).to.deep.include({
      code: 'SERVICE_UNAVAILABLE',
      message: 'the bucket "portico-no-such-bucket" does not exist',
    });

    const health = (await (await fetch(`${service.url}/health`)).json()) as {
      checks: Record<string, { status: string; message?: string }>;
    };
    expect(health.checks.storage).to.include({
      status: 'degraded',
      message: 's3 storage: the bucket "portico-no-such-bucket" does not exist',
    });
    expect((await fetch(`${service.url}/health/ready`)).status).to.equal(200);
  });
});
