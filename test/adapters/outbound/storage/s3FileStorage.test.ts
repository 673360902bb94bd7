import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { promisify } from 'node:util';
import { HeadObjectCommand, ListMultipartUploadsCommand, S3Client } from '@aws-sdk/client-s3';
import { S3FileStorage, type S3FileStorageOptions } from '../../../../src/adapters/outbound/storage/S3FileStorage.js';
import { ServiceUnavailableError } from '../../../../src/domain/shared/DomainError.js';
import { PayloadTooLargeError } from '../../../../src/domain/shared/files.js';
import { externalService } from '../../../support/env.js';
import { describeFileStorageContract } from '../../../support/fileStorageContract.js';
import { testS3Options } from '../../../support/s3.js';

const MiB = 1024 * 1024;
const options = testS3Options();

if (options)
  describeFileStorageContract('s3 (Ceph RADOS Gateway)', () =>
    Promise.resolve({ storage: new S3FileStorage(options) }),
  );

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** `bytes` in chunks of uneven sizes, counting how many were pulled. */
function chunked(bytes: Buffer, pulled = { chunks: 0 }, size = 100_003): AsyncIterable<Uint8Array> {
  return (async function* () {
    for (let at = 0; at < bytes.length; at += size) {
      pulled.chunks += 1;
      await Promise.resolve();
      yield bytes.subarray(at, at + size);
    }
  })();
}

async function collect(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** How long `promise` takes to reject, and with what. */
async function rejection(promise: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  try {
    await promise;
  } catch (error) {
    return { error, ms: Date.now() - started };
  }
  throw new Error('expected a rejection');
}

describe('S3FileStorage against a real S3 store (Ceph RADOS Gateway)', function () {
  this.timeout(60_000);
  let storage: S3FileStorage;
  let s3: S3Client;
  let settings: S3FileStorageOptions;
  let prefix: string;

  before(function () {
    if (!options) {
      console.log('      (skipped: needs SVC_TEST_S3_ENDPOINT)');
      this.skip();
    }
    settings = options;
    storage = new S3FileStorage(settings);
    s3 = new S3Client({
      endpoint: settings.endpoint,
      region: settings.region,
      forcePathStyle: true,
      credentials: { accessKeyId: settings.accessKeyId!, secretAccessKey: settings.secretAccessKey! },
    });
  });
  after(() => s3?.destroy());
  beforeEach(() => {
    prefix = `s3-engine/${randomUUID()}`;
  });

  const pendingUploads = async (): Promise<string[]> => {
    const listed = await s3.send(new ListMultipartUploadsCommand({ Bucket: settings.bucket, Prefix: `${prefix}/` }));
    return (listed.Uploads ?? []).map((u) => u.Key!);
  };
  const keysUnder = async (): Promise<string[]> => {
    const keys: string[] = [];
    for await (const object of storage.list(`${prefix}/`)) keys.push(object.key);
    return keys;
  };

  describe('writes', () => {
    it('streams a body of several parts as one multipart upload, measuring its size and SHA-256', async () => {
      const key = `${prefix}/big`;
      const bytes = randomBytes(12 * MiB + 3);
      const written = await storage.write(key, chunked(bytes), { contentType: 'application/pdf', maxBytes: 20 * MiB });
      expect(written).to.deep.equal({ size: bytes.length, sha256: sha256(bytes) });
      const head = await s3.send(new HeadObjectCommand({ Bucket: settings.bucket, Key: key }));
      // A multipart object's ETag counts its parts: 5 MiB, 5 MiB and the rest.
      expect(head.ETag).to.match(/-3"$/);
      expect(head.ContentType).to.equal('application/pdf');
      expect(sha256(await collect((await storage.read(key))!))).to.equal(sha256(bytes));
      expect(await pendingUploads()).to.deep.equal([]);
    });

    it('past maxBytes after parts were sent: 413, stops reading, and leaves no object and no pending upload', async () => {
      const key = `${prefix}/too-big`;
      const pulled = { chunks: 0 };
      const bytes = randomBytes(30 * MiB);
      const { error } = await rejection(
        storage.write(key, chunked(bytes, pulled, MiB), { contentType: 'image/png', maxBytes: 11 * MiB }),
      );
      expect(error).to.be.instanceOf(PayloadTooLargeError);
      expect((error as Error).message).to.equal('a file may be at most 11MB');
      expect(pulled.chunks).to.equal(12);
      expect(await storage.stat(key)).to.equal(undefined);
      expect(await keysUnder()).to.deep.equal([]);
      expect(await pendingUploads()).to.deep.equal([]);
    });

    it('a body failing after a part was sent leaves no object and no pending upload', async () => {
      const key = `${prefix}/broken`;
      async function* failing(): AsyncIterable<Uint8Array> {
        yield randomBytes(6 * MiB);
        await Promise.resolve();
        throw new Error('the client went away');
      }
      const { error } = await rejection(
        storage.write(key, failing(), { contentType: 'image/png', maxBytes: 20 * MiB }),
      );
      expect((error as Error).message).to.equal('the client went away');
      expect(await storage.stat(key)).to.equal(undefined);
      expect(await pendingUploads()).to.deep.equal([]);
    });
  });

  describe('links', () => {
    it('signs a presigned PUT over its Content-Type and Content-Length headers', async () => {
      const upload = await storage.uploadUrl(`${prefix}/direct`, {
        contentType: 'image/png',
        size: 5000,
        expiresInSeconds: 60,
      });
      const signed = new URL(upload.url).searchParams.get('X-Amz-SignedHeaders')!.split(';');
      expect(signed).to.include.members(['content-length', 'content-type', 'host']);
      expect(upload.headers).to.deep.equal({ 'Content-Type': 'image/png', 'Content-Length': '5000' });
      const without = await fetch(upload.url, { method: 'PUT', body: new Uint8Array(randomBytes(5000)) });
      expect(without.status).to.equal(403);
      expect(await storage.stat(`${prefix}/direct`)).to.equal(undefined);
    });

    it('signs a download link over its answer: asking for it inline instead of as an attachment is 403', async () => {
      const key = `${prefix}/page`;
      await storage.write(key, chunked(Buffer.from('<script>alert(1)</script>')), {
        contentType: 'text/html',
        maxBytes: MiB,
      });
      const link = new URL(
        await storage.downloadUrl(key, { contentType: 'text/html', attachment: true, expiresInSeconds: 60 }),
      );
      const served = await fetch(link);
      expect(served.status).to.equal(200);
      expect(served.headers.get('content-disposition')).to.equal('attachment');
      link.searchParams.set('response-content-disposition', 'inline');
      expect((await fetch(link)).status).to.equal(403);
      link.searchParams.delete('response-content-disposition');
      expect((await fetch(link)).status).to.equal(403);
    });
  });

  describe('check', () => {
    it('resolves for the bucket', async () => {
      await storage.check();
    });

    it('names a missing bucket', async () => {
      const missing = new S3FileStorage({ ...settings, bucket: `portico-missing-${randomUUID().slice(0, 8)}` });
      const { error } = await rejection(missing.check());
      expect(error).to.be.instanceOf(ServiceUnavailableError);
      expect((error as Error).message).to.match(/^the bucket "portico-missing-[0-9a-f]{8}" does not exist$/);
    });

    it('says the credentials are refused', async () => {
      const refused = new S3FileStorage({ ...settings, secretAccessKey: 'not-the-secret' });
      const { error } = await rejection(refused.check());
      expect(error).to.be.instanceOf(ServiceUnavailableError);
      expect((error as Error).message).to.equal(
        `the store refuses these credentials for the bucket "${settings.bucket}"`,
      );
    });
  });

  describe('the gateway stopped', function () {
    const ctl = externalService('SVC_TEST_RGW_CTL');
    const gateway = (action: 'rgw-stop' | 'rgw-start') => promisify(execFile)('sh', ['-c', `${ctl} ${action}`]);

    before(function () {
      if (!ctl) {
        console.log('      (skipped: needs SVC_TEST_RGW_CTL)');
        this.skip();
      }
    });

    it('fails every call fast with ServiceUnavailableError, and works again once it is back', async () => {
      const key = `${prefix}/kept`;
      await storage.write(key, chunked(randomBytes(100)), { contentType: 'image/png', maxBytes: MiB });
      await gateway('rgw-stop');
      try {
        const started = Date.now();
        const calls = {
          write: storage.write(`${prefix}/new`, chunked(randomBytes(100)), { contentType: 'image/png', maxBytes: MiB }),
          stat: storage.stat(key),
          read: storage.read(key),
          remove: storage.remove(key),
          list: storage.list(`${prefix}/`)[Symbol.asyncIterator]().next(),
          check: storage.check(),
          downloadUrl: storage.downloadUrl(key, { contentType: 'image/png', attachment: false, expiresInSeconds: 60 }),
        };
        const settled = await Promise.allSettled(Object.values(calls));
        expect(Date.now() - started).to.be.below(3000);
        Object.keys(calls).forEach((name, at) => {
          const outcome = settled[at]!;
          // Signing a link needs no store: it is made while the gateway is down.
          if (name === 'downloadUrl') expect(outcome.status, name).to.equal('fulfilled');
          else expect(outcome.status === 'rejected' && outcome.reason, name).to.be.instanceOf(ServiceUnavailableError);
        });
      } finally {
        await gateway('rgw-start');
      }
      expect((await storage.stat(key))?.size).to.equal(100);
    });
  });
});

describe('S3FileStorage with no store to talk to', function () {
  this.timeout(20_000);
  const unreachable = (endpoint: string) =>
    new S3FileStorage({
      endpoint,
      region: 'us-east-1',
      bucket: 'portico',
      accessKeyId: 'key',
      secretAccessKey: 'secret',
      forcePathStyle: true,
      idleTimeoutMs: 500,
    });

  let server: Server;
  const sockets = new Set<Socket>();
  before(async () => {
    // Takes connections and never answers: a store that hangs.
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  async function closedPort(): Promise<number> {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    return port;
  }

  it('a refused connection: ServiceUnavailableError at once', async () => {
    const storage = unreachable(`http://127.0.0.1:${await closedPort()}`);
    const started = Date.now();
    const settled = await Promise.allSettled([storage.stat('a/b'), storage.remove('a/b'), storage.check()]);
    expect(Date.now() - started).to.be.below(3000);
    for (const outcome of settled)
      expect(outcome.status === 'rejected' && outcome.reason).to.be.instanceOf(ServiceUnavailableError);
  });

  it('a store that never answers: ServiceUnavailableError once it has been silent too long', async () => {
    const { port } = server.address() as { port: number };
    const storage = unreachable(`http://127.0.0.1:${port}`);
    const { error, ms } = await rejection(
      storage.write('a/b', chunked(randomBytes(1000)), { contentType: 'image/png', maxBytes: MiB }),
    );
    expect(error).to.be.instanceOf(ServiceUnavailableError);
    expect(ms).to.be.below(5000);
  });
});
