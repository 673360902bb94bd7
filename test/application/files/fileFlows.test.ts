import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { FileTypeInspector } from '../../../src/adapters/outbound/files/FileTypeInspector.js';
import { memoryRepositoryOf } from '../../../src/adapters/outbound/memory/InMemoryResourceRepository.js';
import { FileLinks } from '../../../src/application/files/FileLinks.js';
import { FILES_DELETE_JOB, type FileKit } from '../../../src/application/files/FileKit.js';
import { fileJobs, ORPHAN_AFTER_MS, PurgeOrphanFiles } from '../../../src/application/files/FileJobs.js';
import { fileUseCases, type FileUseCases } from '../../../src/application/files/fileUseCases.js';
import type { JobQueue, NewJob } from '../../../src/application/ports/Jobs.js';
import type { StoredFile } from '../../../src/domain/shared/files.js';
import { FixedClock } from '../../support/FixedClock.js';
import { chunks, HTML, JPEG, PNG, pngOf, Poster } from '../../support/fileResources.js';
import { MemoryFileStorage } from '../../support/MemoryFileStorage.js';
import { SequentialIds } from '../../support/SequentialIds.js';

const ALICE = 'a11ce000-0000-4000-8000-000000000001';
const BOB = 'b0b00000-0000-4000-8000-000000000002';
const MISSING = 'ffffffff-0000-4000-8000-000000000000';

/** A queue that keeps what it is given, or fails every enqueue while `failing`. */
class RecordingJobs implements JobQueue {
  readonly jobs: NewJob[] = [];
  failing = false;
  async enqueue(job: NewJob): Promise<string | undefined> {
    if (this.failing) throw new Error('the job store is down');
    this.jobs.push(job);
    return String(this.jobs.length);
  }
  keys = (): string[] => this.jobs.filter((j) => j.name === FILES_DELETE_JOB).map((j) => j.payload.key as string);
}

type Row = Poster & { picture: StoredFile | null; leaflet: StoredFile | null };

function world() {
  const clock = new FixedClock(new Date('2026-03-01T12:00:00Z'));
  const storage = new MemoryFileStorage(() => clock.now());
  const rows = memoryRepositoryOf(Poster as never);
  const jobs = new RecordingJobs();
  const kit: FileKit<Poster> = {
    resource: Poster.declaration,
    rows: rows as never,
    errors: Poster.errors,
    storage,
    inspector: new FileTypeInspector(),
    jobs,
    clock,
    ids: new SequentialIds('0000f11e'),
  };
  const flows = fileUseCases({ ...kit, links: new FileLinks(storage, 900) }) as FileUseCases<Poster>;
  const rowIds = new SequentialIds('00000000');
  const poster = async (owner = ALICE): Promise<Row> => {
    const row = Poster.create({ title: 'Summer fair', id: rowIds.newId(), ownerId: owner }, clock.now()) as Row;
    await rows.add(row);
    return row;
  };
  const upload = (id: string, bytes: Uint8Array, contentType = 'image/png', extra: { owner?: string } = {}) =>
    flows.upload.execute({ id, field: 'picture', contentType, body: chunks(bytes), ...extra }) as Promise<Row>;
  return { clock, storage, rows, jobs, flows, poster, upload };
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('expected a rejection');
}

describe('file flows (use cases)', () => {
  describe('UploadFile', () => {
    it('stores the body under a new key, sets the field with its size, type and SHA-256, and bumps the version', async () => {
      const { poster, upload, storage } = world();
      const row = await poster();
      const bytes = pngOf(5000);
      const changed = await upload(row.id, bytes, 'image/PNG; charset=binary');
      const file = changed.picture!;
      expect(file.key).to.match(new RegExp(`^posters/${row.id}/picture/[0-9a-f-]{36}$`));
      expect(file).to.include({ size: 5000, contentType: 'image/png', sha256: sha256(bytes) });
      expect(changed.version).to.equal(row.version + 1);
      expect(storage.objects.get(file.key)!.bytes.equals(bytes)).to.equal(true);
    });

    it('refuses a type the field does not allow (415) before reading the body', async () => {
      const { poster, upload, storage } = world();
      const row = await poster();
      const error = await rejection(upload(row.id, Buffer.from('%PDF-1.4\n'), 'application/pdf'));
      expect(error.code).to.equal('UNSUPPORTED_MEDIA_TYPE');
      expect(error.message).to.equal('picture: the type must be one of image/png, image/jpeg');
      expect(storage.objects.size).to.equal(0);
    });

    it('refuses an HTML page sent as image/png (415) and keeps nothing', async () => {
      const { poster, upload, storage, rows } = world();
      const row = await poster();
      const error = await rejection(upload(row.id, HTML));
      expect(error.code).to.equal('UNSUPPORTED_MEDIA_TYPE');
      expect(error.message).to.equal('picture: the bytes are not image/png');
      expect(storage.objects.size).to.equal(0);
      expect(((await rows.findById(row.id)) as Row).picture).to.equal(null);
    });

    it('refuses a JPEG sent as image/png (415), naming what the bytes are', async () => {
      const { poster, upload } = world();
      const row = await poster();
      const error = await rejection(upload(row.id, JPEG));
      expect(error.message).to.equal('picture: the bytes are image/jpeg, not image/png');
    });

    it('takes plain text, which has no signature, and refuses a PNG sent as text/plain', async () => {
      const { poster, flows } = world();
      const row = await poster();
      const text = Buffer.from('Doors open at nine.\n');
      const body = (bytes: Uint8Array, contentType: string) =>
        flows.upload.execute({ id: row.id, field: 'leaflet', contentType, body: chunks(bytes) });
      const changed = (await body(text, 'text/plain')) as Row;
      expect(changed.leaflet).to.include({ size: text.length, contentType: 'text/plain' });
      expect((await rejection(body(PNG, 'text/plain'))).code).to.equal('UNSUPPORTED_MEDIA_TYPE');
    });

    it('stops reading past the largest size (413) and keeps no object', async () => {
      const { poster, upload, storage } = world();
      const row = await poster();
      const error = await rejection(upload(row.id, pngOf(3 * 1024 * 1024)));
      expect(error.code).to.equal('PAYLOAD_TOO_LARGE');
      expect(error.message).to.equal('picture: a file may be at most 1MB');
      expect(storage.objects.size).to.equal(0);
      expect(storage.bytesRead).to.be.below(1024 * 1024 + 2000);
    });

    it('answers another owner’s row, and an unknown one, as not found, reading nothing', async () => {
      const { poster, upload, storage } = world();
      const row = await poster(ALICE);
      expect((await rejection(upload(row.id, PNG, 'image/png', { owner: BOB }))).code).to.equal('NOT_FOUND');
      expect((await rejection(upload(MISSING, PNG))).code).to.equal('NOT_FOUND');
      expect(storage.objects.size).to.equal(0);
      expect((await upload(row.id, PNG, 'image/png', { owner: ALICE })).picture).to.not.equal(null);
    });

    it('refuses a stale If-Match version (412) before storing anything', async () => {
      const { poster, flows, storage } = world();
      const row = await poster();
      const error = await rejection(
        flows.upload.execute({
          id: row.id,
          field: 'picture',
          contentType: 'image/png',
          body: chunks(PNG),
          expectedVersions: [9],
        }),
      );
      expect(error.code).to.equal('PRECONDITION_FAILED');
      expect(storage.objects.size).to.equal(0);
    });

    it('replacing a file enqueues files.delete for the old object, after the change', async () => {
      const { poster, upload, jobs } = world();
      const row = await poster();
      const first = (await upload(row.id, PNG)).picture!;
      expect(jobs.keys()).to.deep.equal([]);
      const second = (await upload(row.id, pngOf(200))).picture!;
      expect(second.key).to.not.equal(first.key);
      expect(jobs.keys()).to.deep.equal([first.key]);
      expect(jobs.jobs[0]!.payload).to.deep.equal({ key: first.key });
    });

    it('keeps the change when the enqueue fails (files.purge removes the orphan later)', async () => {
      const { poster, upload, jobs } = world();
      const row = await poster();
      await upload(row.id, PNG);
      jobs.failing = true;
      const changed = await upload(row.id, pngOf(300));
      expect(changed.picture!.size).to.equal(300);
    });

    it('removes the new object when the row is gone by the time the change is written', async () => {
      const { poster, flows, storage, rows } = world();
      const row = await poster();
      async function* deletingMidway(): AsyncGenerator<Uint8Array> {
        yield PNG;
        await rows.delete(row.id);
        yield Buffer.alloc(10);
      }
      const error = await rejection(
        flows.upload.execute({ id: row.id, field: 'picture', contentType: 'image/png', body: deletingMidway() }),
      );
      expect(error.code).to.equal('NOT_FOUND');
      expect(storage.objects.size).to.equal(0);
    });

    it('answers the store being unreachable as SERVICE_UNAVAILABLE', async () => {
      const { poster, upload, storage } = world();
      const row = await poster();
      storage.down = true;
      expect((await rejection(upload(row.id, PNG))).code).to.equal('SERVICE_UNAVAILABLE');
    });
  });

  describe('ClearFile and DownloadLink', () => {
    it('clears the field, bumps the version and enqueues the removal; clearing an empty field changes nothing', async () => {
      const { poster, upload, flows, jobs } = world();
      const row = await poster();
      const uploaded = await upload(row.id, PNG);
      const cleared = (await flows.clear.execute({ id: row.id, field: 'picture' })) as Row;
      expect(cleared.picture).to.equal(null);
      expect(cleared.version).to.equal(uploaded.version + 1);
      expect(jobs.keys()).to.deep.equal([uploaded.picture!.key]);
      const again = await flows.clear.execute({ id: row.id, field: 'picture' });
      expect(again.version).to.equal(cleared.version);
      expect(jobs.keys()).to.have.length(1);
    });

    it('clearing another owner’s row is not found', async () => {
      const { poster, flows } = world();
      const row = await poster(ALICE);
      expect((await rejection(flows.clear.execute({ id: row.id, field: 'picture', owner: BOB }))).code).to.equal(
        'NOT_FOUND',
      );
    });

    it('links to the stored file (an image inline), and answers not found when the field is empty or the row another owner’s', async () => {
      const { poster, upload, flows } = world();
      const row = await poster();
      const empty = await rejection(flows.download.execute({ id: row.id, field: 'picture' }));
      expect([empty.code, empty.message]).to.deep.equal(['NOT_FOUND', 'Poster picture not found']);
      const { picture } = await upload(row.id, PNG);
      const url = await flows.download.execute({ id: row.id, field: 'picture' });
      expect(url).to.equal(`memory://${picture!.key}?type=image%2Fpng&attachment=false&ttl=900`);
      expect((await rejection(flows.download.execute({ id: row.id, field: 'picture', owner: BOB }))).code).to.equal(
        'NOT_FOUND',
      );
    });

    it('asks the store before linking to it: a store that cannot be reached is unavailable for downloads and direct uploads, an object gone is not found', async () => {
      const { poster, upload, flows, storage } = world();
      const row = await poster();
      const { picture } = await upload(row.id, PNG);
      storage.down = true;
      expect((await rejection(flows.download.execute({ id: row.id, field: 'picture' }))).code).to.equal(
        'SERVICE_UNAVAILABLE',
      );
      expect(
        (
          await rejection(
            flows.startUpload.execute({ id: row.id, field: 'picture', contentType: 'image/png', size: 10 }),
          )
        ).code,
      ).to.equal('SERVICE_UNAVAILABLE');
      storage.down = false;
      await storage.remove(picture!.key);
      const gone = await rejection(flows.download.execute({ id: row.id, field: 'picture' }));
      expect([gone.code, gone.message]).to.deep.equal(['NOT_FOUND', 'Poster picture not found']);
    });
  });

  describe('StartUpload and CompleteUpload', () => {
    it('presigns a new key whose last part is the upload id, and completes it: the field set with the object’s SHA-256', async () => {
      const { poster, flows, storage, clock } = world();
      const row = await poster();
      const bytes = pngOf(2048);
      const started = await flows.startUpload.execute({
        id: row.id,
        field: 'picture',
        contentType: 'image/png',
        size: 2048,
      });
      expect(started.uploadId).to.match(/^[0-9a-f-]{36}$/);
      expect(started.url).to.equal(`memory://posters/${row.id}/picture/${started.uploadId}?upload`);
      expect(started.method).to.equal('PUT');
      expect(started.headers).to.deep.equal({ 'Content-Type': 'image/png', 'Content-Length': '2048' });
      expect(started.expiresAt.getTime()).to.equal(clock.now().getTime() + 900_000);
      storage.putPresigned(started.url, bytes);
      const done = (await flows.completeUpload.execute({
        id: row.id,
        field: 'picture',
        uploadId: started.uploadId,
      })) as Row;
      expect(done.picture).to.include({ size: 2048, contentType: 'image/png', sha256: sha256(bytes) });
      expect(done.picture!.key).to.equal(`posters/${row.id}/picture/${started.uploadId}`);
      expect(done.version).to.equal(row.version + 1);
      // Completing again answers the row as it is.
      const again = await flows.completeUpload.execute({ id: row.id, field: 'picture', uploadId: started.uploadId });
      expect(again.version).to.equal(done.version);
    });

    it('refuses at the start a size above the largest (413), a type not allowed (415), and bad input (400)', async () => {
      const { poster, flows } = world();
      const row = await poster();
      const start = (contentType: string, size: number) =>
        rejection(flows.startUpload.execute({ id: row.id, field: 'picture', contentType, size }));
      expect((await start('image/png', 1024 * 1024 + 1)).code).to.equal('PAYLOAD_TOO_LARGE');
      expect((await start('text/html', 10)).code).to.equal('UNSUPPORTED_MEDIA_TYPE');
      const badType = (await start('not a type', 10)) as Error & { fields?: unknown };
      expect(badType.fields).to.deep.equal([{ field: 'content_type', message: 'must be a media type (type/subtype)' }]);
      const badSize = (await start('image/png', 1.5)) as Error & { fields?: unknown };
      expect(badSize.fields).to.deep.equal([{ field: 'size', message: 'must be a whole number of bytes' }]);
      expect(
        (
          await rejection(
            flows.startUpload.execute({ id: row.id, field: 'picture', contentType: 'image/png', size: 10, owner: BOB }),
          )
        ).code,
      ).to.equal('NOT_FOUND');
    });

    it('completing with no object uploaded is 409; an upload id that is not a UUID is 404', async () => {
      const { poster, flows } = world();
      const row = await poster();
      const started = await flows.startUpload.execute({
        id: row.id,
        field: 'picture',
        contentType: 'image/png',
        size: 100,
      });
      const missing = await rejection(
        flows.completeUpload.execute({ id: row.id, field: 'picture', uploadId: started.uploadId }),
      );
      expect([missing.code, missing.message]).to.deep.equal(['CONFLICT', 'picture: no object was uploaded']);
      const notAnId = await rejection(
        flows.completeUpload.execute({ id: row.id, field: 'picture', uploadId: '../../x' }),
      );
      expect(notAnId.code).to.equal('NOT_FOUND');
    });

    it('refuses (409) and removes an object whose bytes are not its type, or whose type is not allowed', async () => {
      const { poster, flows, storage } = world();
      const row = await poster();
      const html = await flows.startUpload.execute({
        id: row.id,
        field: 'picture',
        contentType: 'image/png',
        size: HTML.length,
      });
      storage.putPresigned(html.url, HTML);
      const refused = await rejection(
        flows.completeUpload.execute({ id: row.id, field: 'picture', uploadId: html.uploadId }),
      );
      expect([refused.code, refused.message]).to.deep.equal(['CONFLICT', 'picture: the bytes are not image/png']);
      expect(storage.objects.size).to.equal(0);
      const typed = await flows.startUpload.execute({
        id: row.id,
        field: 'picture',
        contentType: 'image/png',
        size: 10,
      });
      storage.putPresigned(typed.url, Buffer.from('<svg/>'), 'image/svg+xml');
      const wrongType = await rejection(
        flows.completeUpload.execute({ id: row.id, field: 'picture', uploadId: typed.uploadId }),
      );
      expect(wrongType.code).to.equal('CONFLICT');
      expect(wrongType.message).to.contain('image/svg+xml is not allowed');
      expect(storage.objects.size).to.equal(0);
    });

    it('refuses (409) and removes an object larger than the field’s largest size', async () => {
      const { poster, flows, storage } = world();
      const row = await poster();
      const started = await flows.startUpload.execute({
        id: row.id,
        field: 'picture',
        contentType: 'image/png',
        size: 100,
      });
      storage.putPresigned(started.url, pngOf(1024 * 1024 + 1));
      const refused = await rejection(
        flows.completeUpload.execute({ id: row.id, field: 'picture', uploadId: started.uploadId }),
      );
      expect([refused.code, refused.message]).to.deep.equal(['CONFLICT', 'picture: the object is larger than 1MB']);
      expect(storage.objects.size).to.equal(0);
    });

    it('completing replaces the old file and enqueues its removal', async () => {
      const { poster, flows, upload, storage, jobs } = world();
      const row = await poster();
      const old = (await upload(row.id, PNG)).picture!;
      const started = await flows.startUpload.execute({
        id: row.id,
        field: 'picture',
        contentType: 'image/jpeg',
        size: JPEG.length,
      });
      storage.putPresigned(started.url, JPEG);
      await flows.completeUpload.execute({ id: row.id, field: 'picture', uploadId: started.uploadId });
      expect(jobs.keys()).to.deep.equal([old.key]);
    });
  });

  describe('deleting an item with files', () => {
    it('deletes the row, then enqueues files.delete for each of its objects', async () => {
      const { poster, flows, upload, rows, jobs } = world();
      const row = await poster();
      const picture = (await upload(row.id, PNG)).picture!;
      const leaflet = (
        (await flows.upload.execute({
          id: row.id,
          field: 'leaflet',
          contentType: 'application/pdf',
          body: chunks(Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj\n')),
        })) as Row
      ).leaflet!;
      await flows.remove.execute({ id: row.id });
      expect(await rows.findById(row.id)).to.equal(undefined);
      expect(jobs.keys()).to.deep.equal([picture.key, leaflet.key]);
    });

    it('answers as the generic delete does, enqueuing nothing: another owner’s row, a stale version', async () => {
      const { poster, flows, upload, jobs } = world();
      const row = await poster(ALICE);
      await upload(row.id, PNG);
      expect((await rejection(flows.remove.execute({ id: row.id, owner: BOB }))).code).to.equal('NOT_FOUND');
      expect((await rejection(flows.remove.execute({ id: row.id, expectedVersions: [1] }))).code).to.equal(
        'PRECONDITION_FAILED',
      );
      expect(jobs.keys()).to.deep.equal([]);
    });
  });

  describe('the jobs', () => {
    it('files.delete removes its object, and is done when it is gone already', async () => {
      const { storage, poster, upload, clock } = world();
      const row = await poster();
      const { picture } = await upload(row.id, PNG);
      const jobs = fileJobs({ storage, resources: [], clock });
      const run = { id: '1', name: FILES_DELETE_JOB, attempt: 1 };
      await jobs[FILES_DELETE_JOB]!({ key: picture!.key }, run);
      expect(storage.objects.size).to.equal(0);
      await jobs[FILES_DELETE_JOB]!({ key: picture!.key }, run);
    });

    it('files.purge removes objects older than a day that no row names, and keeps the rest', async () => {
      const { storage, poster, upload, flows, rows, clock } = world();
      const row = await poster();
      await upload(row.id, PNG);
      const current = (await upload(row.id, pngOf(100))).picture!; // `replaced` now names no row
      const neverCompleted = await flows.startUpload.execute({
        id: row.id,
        field: 'picture',
        contentType: 'image/png',
        size: 67,
      });
      storage.putPresigned(neverCompleted.url, PNG);
      const fresh = `posters/${row.id}/picture/99999999-0000-4000-8000-000000000000`;
      await storage.write(fresh, chunks(PNG), { contentType: 'image/png', maxBytes: 1000 });
      const stray = 'posters/not-an-id/picture/x';
      await storage.write(stray, chunks(PNG), { contentType: 'image/png', maxBytes: 1000 });
      for (const key of storage.objects.keys()) if (key !== fresh) storage.age(key, ORPHAN_AFTER_MS + 1000);
      const purge = new PurgeOrphanFiles({
        storage,
        resources: [{ resource: Poster.declaration, rows: rows as never }],
        clock,
      });
      expect(await purge.execute()).to.equal(3);
      expect([...storage.objects.keys()].sort()).to.deep.equal([current.key, fresh].sort());
    });
  });
});
