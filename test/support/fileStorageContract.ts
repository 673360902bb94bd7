import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FileStorage } from '../../src/application/ports/FileStorage.js';
import { PayloadTooLargeError } from '../../src/domain/shared/files.js';

/**
 * One engine of the `FileStorage` port as the contract suite gets it (built once per suite).
 *
 * - `storage`: the engine, over a store of its own or a shared one (every test writes under a
 *   fresh random prefix, so objects other runs left behind do not matter).
 * - `resolve`: turns a URL the engine made (`downloadUrl`, `uploadUrl`) into one to request — the
 *   local engine's relative links (`/files/…`) against the test's HTTP server that serves them;
 *   absent: URLs are requested as they are (an S3 store's absolute links).
 * - `close`: stops what the factory started (a server, a client); called once, after the suite.
 *
 * The links are requested over HTTP(S) with `node:http`, so whatever serves them must be running
 * when `make` resolves: for the local engine, an HTTP app with its `/files/` routes on an ephemeral
 * port; for S3, the store itself.
 */
export interface FileStorageUnderTest {
  readonly storage: FileStorage;
  readonly resolve?: (url: string) => string;
  readonly close?: () => Promise<void>;
}

/** An answer as the suite reads it: status, headers (lower-case names), the whole body. */
interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** One HTTP request with exactly these headers (no `Content-Length` of its own but the body's, unless given). */
function send(url: string, method: string, headers: Record<string, string> = {}, body?: Buffer): Promise<Answer> {
  const target = new URL(url);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(target, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** `headers` with `name` (any case) set to `value` instead. */
function replaced(headers: Readonly<Record<string, string>>, name: string, value: string): Record<string, string> {
  const kept = Object.entries(headers).filter(([k]) => k.toLowerCase() !== name.toLowerCase());
  return { ...Object.fromEntries(kept), [name]: value };
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** `bytes` as a stream of chunks of uneven sizes. */
async function* chunksOf(bytes: Buffer, size = 7919): AsyncIterable<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) {
    await Promise.resolve();
    yield bytes.subarray(at, at + size);
  }
}

async function collect(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

async function keysUnder(storage: FileStorage, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of storage.list(prefix)) keys.push(object.key);
  return keys.sort();
}

/** The URL with one character of its signature (the query parameter whose name says `signature`) changed. */
function tampered(url: string): string {
  const parsed = new URL(url);
  const name = [...parsed.searchParams.keys()].find((k) => /signature/i.test(k));
  assert.ok(name, `no signature parameter in ${url}`);
  const signature = parsed.searchParams.get(name)!;
  const last = signature.at(-1)!;
  parsed.searchParams.set(name, signature.slice(0, -1) + (last === '0' ? '1' : '0'));
  return parsed.toString();
}

/**
 * Holds an engine to the `FileStorage` port (src/application/ports/FileStorage.ts): streamed writes
 * measured on the way, the size limit and failed bodies leaving nothing, stat/read/list/remove, and
 * signed links — downloads with the signed type and disposition, presigned uploads bound to a size
 * and a type — that a tampered, expired or another key's signature cannot use (403).
 */
export function describeFileStorageContract(name: string, make: () => Promise<FileStorageUnderTest>): void {
  describe(`FileStorage contract: ${name}`, function () {
    this.timeout(30_000);
    let under: FileStorageUnderTest;
    let storage: FileStorage;
    let prefix: string;
    const url = (link: string): string => (under.resolve ? under.resolve(link) : link);
    const keyOf = (what = 'file'): string => `${prefix}/${what}/${randomUUID()}`;

    before(async () => {
      under = await make();
      storage = under.storage;
    });
    after(async () => {
      await under?.close?.();
    });
    beforeEach(() => {
      prefix = `contract/${randomUUID()}`;
    });

    const write = (key: string, bytes: Buffer, contentType = 'application/octet-stream', maxBytes = 10 * 1024 * 1024) =>
      storage.write(key, chunksOf(bytes), { contentType, maxBytes });

    describe('write, stat, read, list, remove', () => {
      it('streams a body in, answering its size and SHA-256 as node:crypto computes them', async () => {
        const bytes = randomBytes(300_000);
        const written = await write(keyOf(), bytes);
        assert.deepEqual(written, { size: bytes.length, sha256: sha256(bytes) });
      });

      it('stores an empty body', async () => {
        const key = keyOf();
        assert.deepEqual(await write(key, Buffer.alloc(0)), { size: 0, sha256: sha256(Buffer.alloc(0)) });
        assert.equal((await storage.stat(key))?.size, 0);
      });

      it('takes a body of exactly maxBytes', async () => {
        const bytes = randomBytes(4096);
        const key = keyOf();
        assert.equal((await write(key, bytes, 'image/png', 4096)).size, 4096);
        assert.equal((await storage.stat(key))?.size, 4096);
      });

      it('stats an object with its size, stored type and time of writing; undefined when there is none', async () => {
        const key = keyOf();
        const bytes = randomBytes(1234);
        const before = Date.now();
        await write(key, bytes, 'image/png');
        const facts = await storage.stat(key);
        assert.ok(facts);
        assert.equal(facts.size, 1234);
        assert.equal(facts.contentType, 'image/png');
        assert.ok(facts.lastModified instanceof Date);
        // Stores keep whole seconds; the clocks may differ a little.
        assert.ok(Math.abs(facts.lastModified.getTime() - before) < 60_000, String(facts.lastModified));
        assert.equal(await storage.stat(keyOf()), undefined);
      });

      it('reads the bytes back; undefined when there is no object', async () => {
        const key = keyOf();
        const bytes = randomBytes(200_001);
        await write(key, bytes);
        const stream = await storage.read(key);
        assert.ok(stream);
        assert.ok((await collect(stream)).equals(bytes));
        assert.equal(await storage.read(keyOf()), undefined);
      });

      it('lists the objects under a prefix with their time of writing, and none of another prefix', async () => {
        const a = keyOf('a');
        const b = keyOf('b');
        await write(a, randomBytes(10));
        await write(b, randomBytes(10));
        const listed: { key: string; lastModified: Date }[] = [];
        for await (const object of storage.list(`${prefix}/`)) listed.push(object);
        assert.deepEqual(listed.map((o) => o.key).sort(), [a, b].sort());
        for (const object of listed) assert.ok(object.lastModified instanceof Date);
        assert.deepEqual(await keysUnder(storage, `${prefix}/a/`), [a]);
        assert.deepEqual(await keysUnder(storage, `contract/${randomUUID()}/`), []);
      });

      it('removes an object, and removing it again (or one that never was) is no error', async () => {
        const key = keyOf();
        await write(key, randomBytes(10));
        await storage.remove(key);
        assert.equal(await storage.stat(key), undefined);
        assert.deepEqual(await keysUnder(storage, `${prefix}/`), []);
        await storage.remove(key);
        await storage.remove(keyOf());
      });

      it('is reachable (check)', async () => {
        await storage.check();
      });
    });

    describe('what a write leaves when it fails', () => {
      it('rejects a body past maxBytes with PayloadTooLargeError and keeps nothing', async () => {
        const key = keyOf();
        await assert.rejects(write(key, randomBytes(4097), 'image/png', 4096), PayloadTooLargeError);
        assert.equal(await storage.stat(key), undefined);
        assert.deepEqual(await keysUnder(storage, `${prefix}/`), []);
      });

      it('stops reading a body soon after it passes maxBytes', async () => {
        let pulled = 0;
        async function* endless(): AsyncIterable<Uint8Array> {
          const chunk = randomBytes(64 * 1024);
          for (let i = 0; i < 1024; i++) {
            pulled += 1;
            await Promise.resolve();
            yield chunk;
          }
        }
        const key = keyOf();
        await assert.rejects(
          storage.write(key, endless(), { contentType: 'image/png', maxBytes: 100 * 1024 }),
          PayloadTooLargeError,
        );
        assert.ok(pulled < 128, `read ${pulled} chunks of 64 KiB for a limit of 100 KiB`);
        assert.equal(await storage.stat(key), undefined);
        assert.deepEqual(await keysUnder(storage, `${prefix}/`), []);
      });

      it('keeps nothing of a body that fails part-way', async () => {
        async function* failing(): AsyncIterable<Uint8Array> {
          yield randomBytes(50_000);
          await Promise.resolve();
          yield randomBytes(50_000);
          throw new Error('the client went away');
        }
        const key = keyOf();
        await assert.rejects(storage.write(key, failing(), { contentType: 'image/png', maxBytes: 1024 * 1024 }), {
          message: /client went away/,
        });
        assert.equal(await storage.stat(key), undefined);
        assert.deepEqual(await keysUnder(storage, `${prefix}/`), []);
      });

      it('keeps nothing of a write that is aborted', async () => {
        const controller = new AbortController();
        async function* slow(): AsyncIterable<Uint8Array> {
          yield randomBytes(50_000);
          controller.abort();
          await sleep(20);
          yield randomBytes(50_000);
          await sleep(20);
          yield randomBytes(50_000);
        }
        const key = keyOf();
        await assert.rejects(
          storage.write(key, slow(), { contentType: 'image/png', maxBytes: 1024 * 1024, signal: controller.signal }),
        );
        assert.equal(await storage.stat(key), undefined);
        assert.deepEqual(await keysUnder(storage, `${prefix}/`), []);
      });
    });

    describe('download links', () => {
      const link = (key: string, contentType: string, attachment: boolean, expiresInSeconds = 60) =>
        storage.downloadUrl(key, { contentType, attachment, expiresInSeconds });

      it('serves the bytes with the signed type, as an attachment when asked', async () => {
        const key = keyOf();
        const bytes = randomBytes(70_000);
        await write(key, bytes, 'application/pdf');
        const answer = await send(url(await link(key, 'application/pdf', true)), 'GET');
        assert.equal(answer.status, 200);
        assert.ok(answer.body.equals(bytes));
        assert.equal(answer.headers['content-type'], 'application/pdf');
        assert.match(answer.headers['content-disposition'] ?? '', /^attachment\b/);
      });

      it('serves without Content-Disposition when not asked (an image shown inline)', async () => {
        const key = keyOf();
        const bytes = randomBytes(1000);
        await write(key, bytes, 'image/png');
        const answer = await send(url(await link(key, 'image/png', false)), 'GET');
        assert.equal(answer.status, 200);
        assert.ok(answer.body.equals(bytes));
        assert.equal(answer.headers['content-type'], 'image/png');
        assert.equal(answer.headers['content-disposition'], undefined);
      });

      it('refuses a link whose signature was changed (403)', async () => {
        const key = keyOf();
        await write(key, randomBytes(100), 'image/png');
        const answer = await send(tampered(url(await link(key, 'image/png', false))), 'GET');
        assert.equal(answer.status, 403);
      });

      it('refuses an expired link (403)', async () => {
        const key = keyOf();
        await write(key, randomBytes(100), 'image/png');
        const expiring = url(await link(key, 'image/png', false, 1));
        await sleep(2500);
        assert.equal((await send(expiring, 'GET')).status, 403);
      });

      it('refuses a link of one key used for another key (403)', async () => {
        const one = keyOf();
        const other = keyOf();
        await write(one, randomBytes(100), 'image/png');
        await write(other, randomBytes(100), 'image/png');
        const parsed = new URL(url(await link(one, 'image/png', false)));
        const oneId = one.split('/').at(-1)!;
        assert.ok(parsed.pathname.endsWith(oneId), parsed.pathname);
        parsed.pathname = parsed.pathname.slice(0, -oneId.length) + other.split('/').at(-1)!;
        assert.equal((await send(parsed.toString(), 'GET')).status, 403);
      });

      it('answers 404 to a valid link to no object', async () => {
        const answer = await send(url(await link(keyOf(), 'image/png', false)), 'GET');
        assert.equal(answer.status, 404);
      });
    });

    describe('presigned uploads', () => {
      const presign = (key: string, contentType: string, size: number, expiresInSeconds = 60) =>
        storage.uploadUrl(key, { contentType, size, expiresInSeconds });

      it('stores a PUT with exactly the headers given, and says when the URL expires', async () => {
        const key = keyOf();
        const bytes = randomBytes(5000);
        const before = Date.now();
        const upload = await presign(key, 'image/png', bytes.length);
        assert.equal(upload.method, 'PUT');
        assert.ok(upload.expiresAt.getTime() >= before + 59_000 && upload.expiresAt.getTime() <= Date.now() + 61_000);
        const answer = await send(url(upload.url), 'PUT', { ...upload.headers }, bytes);
        assert.ok(answer.status === 200 || answer.status === 201 || answer.status === 204, String(answer.status));
        const facts = await storage.stat(key);
        assert.equal(facts?.size, bytes.length);
        assert.equal(facts?.contentType, 'image/png');
        assert.ok((await collect((await storage.read(key))!)).equals(bytes));
      });

      it('refuses a PUT of another size (403) and stores nothing', async () => {
        const key = keyOf();
        const upload = await presign(key, 'image/png', 5000);
        const headers = replaced(upload.headers, 'Content-Length', '5001');
        const answer = await send(url(upload.url), 'PUT', headers, randomBytes(5001));
        assert.equal(answer.status, 403);
        assert.equal(await storage.stat(key), undefined);
      });

      it('refuses a PUT of another Content-Type (403) and stores nothing', async () => {
        const key = keyOf();
        const upload = await presign(key, 'image/png', 5000);
        const headers = replaced(upload.headers, 'Content-Type', 'text/html');
        const answer = await send(url(upload.url), 'PUT', headers, randomBytes(5000));
        assert.equal(answer.status, 403);
        assert.equal(await storage.stat(key), undefined);
      });

      it('refuses a PUT after the URL expired (403) and stores nothing', async () => {
        const key = keyOf();
        const upload = await presign(key, 'image/png', 5000, 1);
        await sleep(2500);
        const answer = await send(url(upload.url), 'PUT', { ...upload.headers }, randomBytes(5000));
        assert.equal(answer.status, 403);
        assert.equal(await storage.stat(key), undefined);
      });

      it('refuses a PUT whose signature was changed (403) and stores nothing', async () => {
        const key = keyOf();
        const upload = await presign(key, 'image/png', 5000);
        const answer = await send(tampered(url(upload.url)), 'PUT', { ...upload.headers }, randomBytes(5000));
        assert.equal(answer.status, 403);
        assert.equal(await storage.stat(key), undefined);
      });
    });
  });
}
