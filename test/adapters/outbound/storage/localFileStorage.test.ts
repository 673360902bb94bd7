import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileRoutes, type ServedFiles } from '../../../../src/adapters/inbound/http/routes/files.js';
import { LocalFileStorage } from '../../../../src/adapters/outbound/storage/LocalFileStorage.js';
import { ServiceUnavailableError } from '../../../../src/domain/shared/DomainError.js';
import { describeFileStorageContract } from '../../../support/fileStorageContract.js';
import { startHttpApp } from '../../../support/httpApp.js';

const SECRET = 'a-test-signing-secret-of-32-bytes-or-more';

/** The local engine over a fresh folder, its links served by an app with just the `/files/` routes. */
async function localEngine(publicUrl: 'relative' | 'absolute') {
  const root = await mkdtemp(join(tmpdir(), 'portico-files-'));
  // The app starts first (its port is in absolute links); its routes reach the engine once it is made.
  const made: { storage?: LocalFileStorage } = {};
  const served: ServedFiles = {
    allowedDownload: (key, query) => made.storage!.allowedDownload(key, query),
    allowedUpload: (key, query) => made.storage!.allowedUpload(key, query),
    open: (key) => made.storage!.open(key),
    write: (key, body, options) => made.storage!.write(key, body, options),
    remove: (key) => made.storage!.remove(key),
  };
  const app = await startHttpApp({ routes: [fileRoutes(served)] });
  const storage = (made.storage = new LocalFileStorage({
    root,
    signingSecret: SECRET,
    publicUrl: publicUrl === 'absolute' ? app.url : '',
  }));
  return {
    storage,
    root,
    app,
    ...(publicUrl === 'relative' ? { resolve: (url: string) => new URL(url, app.url).toString() } : {}),
    close: async () => {
      await app.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

describeFileStorageContract('local, relative links', () => localEngine('relative'));
describeFileStorageContract('local, absolute links', () => localEngine('absolute'));

describe('LocalFileStorage', () => {
  let engine: Awaited<ReturnType<typeof localEngine>>;
  before(async () => {
    engine = await localEngine('absolute');
  });
  after(async () => engine.close());

  const body = async function* (bytes: Buffer) {
    yield bytes;
  };

  it('refuses keys that are not relative paths of plain segments', async () => {
    for (const key of ['', '../x', 'a/../b', '/abs', 'a//b', 'a/./b', '.hidden', 'a/.b', 'a\\b', 'a/b/', 'a b']) {
      let failed = false;
      try {
        await engine.storage.write(key, body(Buffer.from('x')), { contentType: 'text/plain', maxBytes: 10 });
      } catch {
        failed = true;
      }
      expect(failed, JSON.stringify(key)).to.equal(true);
      expect(() => engine.storage.allowedDownload(key, {}), JSON.stringify(key)).to.not.throw();
    }
    expect(await readdir(engine.root)).to.deep.equal([]);
  });

  it('leaves no temporary file or sidecar behind a write past its limit, and lists neither', async () => {
    const key = 'things/1/photo/over';
    let failed = false;
    try {
      await engine.storage.write(key, body(randomBytes(11)), { contentType: 'image/png', maxBytes: 10 });
    } catch {
      failed = true;
    }
    expect(failed).to.equal(true);
    const left = await readdir(join(engine.root, 'things', '1', 'photo')).catch(() => []);
    expect(left).to.deep.equal([]);
    await engine.storage.write('things/1/photo/kept', body(randomBytes(5)), { contentType: 'image/png', maxBytes: 10 });
    expect((await readdir(join(engine.root, 'things', '1', 'photo'))).sort()).to.deep.equal([
      '.kept.meta.json',
      'kept',
    ]);
    const listed = [];
    for await (const object of engine.storage.list('things/')) listed.push(object.key);
    expect(listed).to.deep.equal(['things/1/photo/kept']);
  });

  it('removes the folders an object leaves empty', async () => {
    await engine.storage.write('gone/1/photo/a', body(randomBytes(5)), { contentType: 'image/png', maxBytes: 10 });
    await engine.storage.remove('gone/1/photo/a');
    expect(await readdir(engine.root)).to.not.include('gone');
  });

  it('answers application/octet-stream for an object whose sidecar is missing', async () => {
    await engine.storage.write('bare/1/photo/a', body(randomBytes(5)), { contentType: 'image/png', maxBytes: 10 });
    await rm(join(engine.root, 'bare', '1', 'photo', '.a.meta.json'));
    expect((await engine.storage.stat('bare/1/photo/a'))?.contentType).to.equal('application/octet-stream');
  });

  it('is unavailable when its folder cannot be written (a file where the folder should be)', async () => {
    const file = join(engine.root, 'not-a-folder');
    await writeFile(file, 'x');
    const blocked = new LocalFileStorage({ root: join(file, 'files'), signingSecret: SECRET, publicUrl: '' });
    let failure: unknown;
    try {
      await blocked.check();
    } catch (error) {
      failure = error;
    }
    expect(failure).to.be.instanceOf(ServiceUnavailableError);
    expect((failure as Error).message).to.equal('the storage folder cannot be written');
  });

  it('makes links that start with its public URL and sign the disposition', async () => {
    const url = await engine.storage.downloadUrl('a/b', {
      contentType: 'text/html',
      attachment: true,
      expiresInSeconds: 60,
    });
    expect(url.startsWith(`${engine.app.url}/files/a/b?`)).to.equal(true);
    const query = Object.fromEntries(new URL(url).searchParams);
    expect(engine.storage.allowedDownload('a/b', query)).to.deep.equal({ contentType: 'text/html', attachment: true });
    expect(engine.storage.allowedDownload('a/b', { ...query, disposition: 'inline' })).to.equal(undefined);
    expect(engine.storage.allowedDownload('a/b', { ...query, type: 'text/plain' })).to.equal(undefined);
    expect(engine.storage.allowedDownload('a/b', { ...query, expires: String(Number(query.expires) + 1) })).to.equal(
      undefined,
    );
    // A download link is not an upload link.
    expect(engine.storage.allowedUpload('a/b', { ...query, size: '1' })).to.equal(undefined);
  });

  it('is signed with its own secret: another secret refuses its links', async () => {
    const url = await engine.storage.downloadUrl('a/b', {
      contentType: 'image/png',
      attachment: false,
      expiresInSeconds: 60,
    });
    const other = new LocalFileStorage({ root: engine.root, signingSecret: `${SECRET}-other`, publicUrl: '' });
    const query = Object.fromEntries(new URL(url).searchParams);
    expect(other.allowedDownload('a/b', query)).to.equal(undefined);
    expect(engine.storage.allowedDownload('a/b', query)).to.not.equal(undefined);
  });
});
