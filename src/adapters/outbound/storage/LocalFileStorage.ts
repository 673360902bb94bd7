import { createHash, randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, open, opendir, readFile, rename, rmdir, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import type { Readable } from 'node:stream';
import type {
  DownloadOptions,
  FileStorage,
  ListedObject,
  ObjectFacts,
  PresignedUpload,
  UploadOptions,
  WriteOptions,
  WrittenObject,
} from '../../../application/ports/FileStorage.js';
import { ServiceUnavailableError } from '../../../domain/shared/DomainError.js';
import { formatSize, PayloadTooLargeError } from '../../../domain/shared/files.js';
import { FileUrlSigner, type DownloadGrant, type LinkQuery, type UploadGrant } from './signedFileUrls.js';

/** One segment of a key: what the service's keys are made of (`products`, an id, `photo`, a UUID); never `.`-led. */
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;
const MAX_KEY = 512;

/** Whether a string is a key this engine takes: `/`-separated segments, none empty, `.` or `..`, none hidden. */
export function isStorageKey(key: string): boolean {
  return key.length > 0 && key.length <= MAX_KEY && key.split('/').every((s) => SEGMENT.test(s));
}

/** The sidecar beside an object, holding the type it was stored with: hidden, so never a key. */
const sidecarOf = (path: string): string => join(dirname(path), `.${path.slice(dirname(path).length + 1)}.meta.json`);

const missing = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === 'ENOENT';
const notDirectory = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === 'ENOTDIR';

/** An object the `/files/` route serves: its size and its bytes. */
export interface OpenedObject {
  readonly size: number;
  readonly body: Readable;
}

export interface LocalFileStorageOptions {
  /** The folder objects live in (`storage.path`). */
  readonly root: string;
  /** What links are signed with (`storage.signing_secret`). */
  readonly signingSecret: string | Buffer;
  /** The service's public origin links start with (`https://api.example.com`); empty: relative links (`/files/…`). */
  readonly publicUrl: string;
  /** Now, in milliseconds (a test's clock). */
  readonly now?: () => number;
}

/** The path the `/files/` routes are served under. */
export const FILES_PATH = '/files/';

/**
 * The `local` engine (docs/files.md): objects as files under one folder, each key a relative path.
 * A write goes to a hidden temporary file in the object's own folder and is renamed into place once
 * whole — an object appears whole or not at all; its type is kept in a hidden sidecar written the
 * same way. Links point at the service's own `/files/` routes, signed with HMAC
 * (`FileUrlSigner`), which verify them with {@link allowedDownload} / {@link allowedUpload}.
 *
 * The disk failing (full, read-only, gone) is `ServiceUnavailableError`; a body's own failure is
 * passed on as it is.
 */
export class LocalFileStorage implements FileStorage {
  readonly engine = 'local';
  private readonly signer: FileUrlSigner;
  private readonly now: () => number;

  constructor(private readonly options: LocalFileStorageOptions) {
    this.now = options.now ?? Date.now;
    this.signer = new FileUrlSigner(options.signingSecret, this.now);
  }

  async write(key: string, body: AsyncIterable<Uint8Array>, options: WriteOptions): Promise<WrittenObject> {
    const path = this.pathOf(key);
    const temporary = join(dirname(path), `.${randomUUID()}.tmp`);
    const handle = await this.create(temporary);
    let committed = false;
    try {
      const written = await this.copy(body, handle, options);
      await disk(() => handle.close());
      await this.writeSidecar(path, options.contentType);
      if (options.signal?.aborted) throw abortReason(options.signal);
      await disk(() => rename(temporary, path));
      committed = true;
      return written;
    } finally {
      if (!committed) {
        await handle.close().catch(() => undefined);
        await unlink(temporary).catch(() => undefined);
      }
    }
  }

  async stat(key: string): Promise<ObjectFacts | undefined> {
    const path = this.pathOf(key);
    const facts = await disk(() => stat(path)).catch((error: unknown) => {
      if (missing(error) || notDirectory(error)) return undefined;
      throw error;
    });
    if (!facts?.isFile()) return undefined;
    return { size: facts.size, contentType: await this.typeOf(path), lastModified: facts.mtime };
  }

  async read(key: string): Promise<AsyncIterable<Uint8Array> | undefined> {
    return (await this.open(key))?.body;
  }

  /** The object's size and bytes from one open file (a later removal cannot cut it short); undefined when none. */
  async open(key: string): Promise<OpenedObject | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(this.pathOf(key), 'r');
    } catch (error) {
      if (missing(error) || notDirectory(error) || (error as NodeJS.ErrnoException).code === 'EISDIR') return undefined;
      throw unavailable(error);
    }
    try {
      const facts = await handle.stat();
      if (!facts.isFile()) throw Object.assign(new Error('not a file'), { code: 'EISDIR' });
      return { size: facts.size, body: handle.createReadStream() };
    } catch (error) {
      await handle.close();
      if ((error as NodeJS.ErrnoException).code === 'EISDIR') return undefined;
      throw unavailable(error);
    }
  }

  async remove(key: string): Promise<void> {
    const path = this.pathOf(key);
    for (const file of [path, sidecarOf(path)]) {
      await disk(() => unlink(file)).catch((error: unknown) => {
        if (!missing(error) && !notDirectory(error)) throw error;
      });
    }
    await this.pruneFolders(dirname(path));
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    const folder = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
    if (folder !== '' && !isStorageKey(folder)) return;
    yield* this.walk(folder === '' ? this.options.root : join(this.options.root, ...folder.split('/')), folder, prefix);
  }

  downloadUrl(key: string, options: DownloadOptions): Promise<string> {
    const query = this.signer.downloadQuery(
      this.checked(key),
      { contentType: options.contentType, attachment: options.attachment },
      options.expiresInSeconds,
    );
    return Promise.resolve(`${this.urlOf(key)}?${query.toString()}`);
  }

  uploadUrl(key: string, options: UploadOptions): Promise<PresignedUpload> {
    const { query, expiresAt } = this.signer.uploadQuery(
      this.checked(key),
      { contentType: options.contentType, size: options.size },
      options.expiresInSeconds,
    );
    return Promise.resolve({
      url: `${this.urlOf(key)}?${query.toString()}`,
      method: 'PUT',
      headers: { 'Content-Type': options.contentType, 'Content-Length': String(options.size) },
      expiresAt,
    });
  }

  async check(): Promise<void> {
    try {
      await mkdir(this.options.root, { recursive: true });
      await access(this.options.root, constants.R_OK | constants.W_OK);
    } catch {
      throw new ServiceUnavailableError('the storage folder cannot be written');
    }
  }

  /** What a download link to `key` grants; undefined when the key is not one or the link does not hold. */
  allowedDownload(key: string, query: LinkQuery): DownloadGrant | undefined {
    return isStorageKey(key) ? this.signer.verifyDownload(key, query) : undefined;
  }

  /** What a presigned upload to `key` grants; undefined when the key is not one or the link does not hold. */
  allowedUpload(key: string, query: LinkQuery): UploadGrant | undefined {
    return isStorageKey(key) ? this.signer.verifyUpload(key, query) : undefined;
  }

  private checked(key: string): string {
    if (!isStorageKey(key)) throw new Error(`not a storage key: ${JSON.stringify(key)}`);
    return key;
  }

  private pathOf(key: string): string {
    return join(this.options.root, ...this.checked(key).split('/'));
  }

  private urlOf(key: string): string {
    return `${this.options.publicUrl}${FILES_PATH}${key.split('/').map(encodeURIComponent).join('/')}`;
  }

  /** Opens a new temporary file, making its folder (again, should a removal have pruned it meanwhile). */
  private async create(temporary: string): Promise<FileHandle> {
    for (let attempt = 0; ; attempt++) {
      try {
        await mkdir(dirname(temporary), { recursive: true });
        return await open(temporary, 'wx');
      } catch (error) {
        if (!missing(error) || attempt === 2) throw unavailable(error);
      }
    }
  }

  /** Copies the body into the file, measuring it; stops at the first chunk past `maxBytes`. */
  private async copy(
    body: AsyncIterable<Uint8Array>,
    handle: FileHandle,
    options: WriteOptions,
  ): Promise<WrittenObject> {
    const hash = createHash('sha256');
    let size = 0;
    const { signal, maxBytes } = options;
    if (signal?.aborted) throw abortReason(signal);
    // Leaving the loop (a throw) ends the body's iterator: nothing more is read.
    for await (const chunk of body) {
      if (signal?.aborted) throw abortReason(signal);
      size += chunk.byteLength;
      if (size > maxBytes) throw new PayloadTooLargeError(`a file may be at most ${formatSize(maxBytes)}`);
      hash.update(chunk);
      await disk(() => handle.write(chunk));
    }
    if (signal?.aborted) throw abortReason(signal);
    return { size, sha256: hash.digest('hex') };
  }

  private async writeSidecar(path: string, contentType: string): Promise<void> {
    const sidecar = sidecarOf(path);
    const temporary = join(dirname(path), `.${randomUUID()}.tmp`);
    try {
      await disk(async () => {
        const handle = await open(temporary, 'wx');
        try {
          await handle.writeFile(JSON.stringify({ contentType }));
        } finally {
          await handle.close();
        }
        await rename(temporary, sidecar);
      });
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }

  private async typeOf(path: string): Promise<string> {
    try {
      const kept = JSON.parse(await readFile(sidecarOf(path), 'utf8')) as { contentType?: unknown };
      if (typeof kept.contentType === 'string') return kept.contentType;
    } catch (error) {
      if (!missing(error) && !(error instanceof SyntaxError)) throw unavailable(error);
    }
    return 'application/octet-stream';
  }

  /** Removes the object's folders left empty, up to the root (an item's folders once its files are gone). */
  private async pruneFolders(folder: string): Promise<void> {
    const root = this.options.root.endsWith(sep) ? this.options.root : `${this.options.root}${sep}`;
    for (let at = folder; at.startsWith(root); at = dirname(at)) {
      try {
        await rmdir(at);
      } catch {
        return; // not empty (or already gone): its parents are not empty either
      }
    }
  }

  private async *walk(folder: string, key: string, prefix: string): AsyncIterable<ListedObject> {
    let entries;
    try {
      entries = await opendir(folder);
    } catch (error) {
      if (missing(error) || notDirectory(error)) return;
      throw unavailable(error);
    }
    for await (const entry of entries) {
      if (entry.name.startsWith('.')) continue; // temporary files and sidecars
      const child = key === '' ? entry.name : `${key}/${entry.name}`;
      if (entry.isDirectory()) {
        if (prefix.startsWith(`${child}/`) || child.startsWith(prefix))
          yield* this.walk(join(folder, entry.name), child, prefix);
      } else if (entry.isFile() && child.startsWith(prefix)) {
        const facts = await stat(join(folder, entry.name)).catch(() => undefined);
        if (facts) yield { key: child, lastModified: facts.mtime };
      }
    }
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('the write was aborted');
}

/** The disk's own failures (full, read-only, gone) as the port's `ServiceUnavailableError`. */
function unavailable(error: unknown): Error {
  if (error instanceof ServiceUnavailableError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  return typeof code === 'string' && code !== 'ENOENT' && code !== 'ENOTDIR'
    ? new ServiceUnavailableError('file storage unavailable')
    : (error as Error);
}

/** Runs a disk operation, its failures (but a missing file) as `ServiceUnavailableError`. */
async function disk<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw unavailable(error);
  }
}
