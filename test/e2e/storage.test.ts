import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { StorageHealthCheck } from '../../src/adapters/outbound/health/StorageHealthCheck.js';
import { LocalFileStorage } from '../../src/adapters/outbound/storage/LocalFileStorage.js';
import type { FileStorage } from '../../src/application/ports/FileStorage.js';
import { FileLinks } from '../../src/application/files/FileLinks.js';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { TOKENS } from '../../src/main/wiring/tokens.js';
import { testConfig } from '../support/config.js';
import { silentLogger } from '../support/logger.js';

async function* once(bytes: Buffer) {
  yield bytes;
}

describe('file storage in the running service', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-storage-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  describe('the local engine, at its defaults', () => {
    let service: RunningService;
    before(async () => {
      service = await startService(testConfig({ SVC_STORAGE_PATH: join(dir, 'files'), SVC_STORAGE_URL_TTL: '2m' }), {
        logger: silentLogger(),
      });
    });
    after(async () => service.stop());

    it('binds the local engine, and FileLinks valid storage.url_ttl', () => {
      expect(service.container.get(TOKENS.FileStorage)).to.be.instanceOf(LocalFileStorage);
      const links = service.container.get(TOKENS.FileLinks);
      expect(links).to.be.instanceOf(FileLinks);
      expect(links.ttlSeconds).to.equal(120);
    });

    it('serves a file link of FileLinks under /files/, with the headers of a served file', async () => {
      const storage = service.container.get(TOKENS.FileStorage);
      const bytes = Buffer.from('%PDF-1.7 a document');
      const written = await storage.write('invoices/1/pdf/x', once(bytes), {
        contentType: 'application/pdf',
        maxBytes: 1000,
      });
      const link = await service.container.get(TOKENS.FileLinks).url({
        key: 'invoices/1/pdf/x',
        size: written.size,
        contentType: 'application/pdf',
        sha256: written.sha256,
        uploadedAt: new Date(),
      });
      expect(link).to.match(/^\/files\/invoices\/1\/pdf\/x\?/);
      const res = await fetch(`${service.url}${link}`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('application/pdf');
      expect(res.headers.get('content-disposition')).to.equal('attachment');
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(res.headers.get('content-security-policy')).to.equal("default-src 'none'; sandbox");
      expect(res.headers.get('x-ratelimit-limit'), 'rate limited like any route').to.not.equal(null);
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).to.equal(true);
      expect((await fetch(`${service.url}${link.replace('x?', 'y?')}`)).status).to.equal(403);
    });

    it('reports storage up', async () => {
      const body = (await (await fetch(`${service.url}/health`)).json()) as {
        checks: Record<string, { status: string }>;
      };
      expect(body.checks.storage?.status).to.equal('up');
    });
  });

  describe('when the storage folder cannot be written', () => {
    let service: RunningService;
    before(async () => {
      const file = join(dir, 'a-file');
      writeFileSync(file, 'not a folder');
      service = await startService(testConfig({ SVC_STORAGE_PATH: join(file, 'files') }), { logger: silentLogger() });
    });
    after(async () => service.stop());

    it('reports storage degraded and the service degraded, and readiness stays up (200)', async () => {
      const health = await fetch(`${service.url}/health`);
      expect(health.status).to.equal(200);
      const body = (await health.json()) as {
        status: string;
        checks: Record<string, { status: string; message?: string }>;
      };
      expect(body.status).to.equal('degraded');
      expect(body.checks.storage).to.include({
        status: 'degraded',
        message: 'local storage: the storage folder cannot be written',
      });
      const ready = await fetch(`${service.url}/health/ready`);
      expect(ready.status).to.equal(200);
      expect(((await ready.json()) as { checks: Record<string, { status: string }> }).checks.storage?.status).to.equal(
        'degraded',
      );
    });
  });
});

describe('StorageHealthCheck', () => {
  const live = () => new AbortController().signal;
  const storage = (check: FileStorage['check']): FileStorage => ({ engine: 's3', check }) as unknown as FileStorage;

  it('is up when the store can be used', async () => {
    expect(await new StorageHealthCheck(storage(() => Promise.resolve())).check(live())).to.deep.equal({
      status: 'up',
    });
  });

  it('is degraded, with the store’s reason, when it cannot', async () => {
    const check = new StorageHealthCheck(storage(() => Promise.reject(new Error('the bucket "files" does not exist'))));
    expect(check.name).to.equal('storage');
    expect(await check.check(live())).to.deep.equal({
      status: 'degraded',
      message: 's3 storage: the bucket "files" does not exist',
    });
  });
});
