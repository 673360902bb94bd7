import { createHash } from 'node:crypto';
import type {
  DownloadOptions,
  FileStorage,
  ListedObject,
  ObjectFacts,
  PresignedUpload,
  UploadOptions,
  WriteOptions,
  WrittenObject,
} from '../../src/application/ports/FileStorage.js';
import { PayloadTooLargeError } from '../../src/domain/shared/files.js';
import { ServiceUnavailableError } from '../../src/domain/shared/DomainError.js';

interface StoredObject {
  readonly bytes: Buffer;
  readonly contentType: string;
  lastModified: Date;
}

/**
 * Objects in a map, for the file flows' tests: the port's promises (a write past its limit keeps
 * nothing, every read is async), how much of each body it read (`bytesRead`), presigned uploads it
 * can fulfil as a client would (`putPresigned`), and a switch that makes every call fail as an
 * unreachable store does (`down`).
 */
export class MemoryFileStorage implements FileStorage {
  readonly engine = 'memory';
  readonly objects = new Map<string, StoredObject>();
  /** Bytes taken from the last body written. */
  bytesRead = 0;
  /** Every call rejects with ServiceUnavailableError while set. */
  down = false;
  private readonly presigned = new Map<string, UploadOptions>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  async write(key: string, body: AsyncIterable<Uint8Array>, options: WriteOptions): Promise<WrittenObject> {
    this.reachable();
    const chunks: Buffer[] = [];
    let size = 0;
    this.bytesRead = 0;
    const hash = createHash('sha256');
    for await (const chunk of body) {
      this.bytesRead += chunk.length;
      size += chunk.length;
      if (size > options.maxBytes) throw new PayloadTooLargeError('too large');
      hash.update(chunk);
      chunks.push(Buffer.from(chunk));
    }
    this.objects.set(key, { bytes: Buffer.concat(chunks), contentType: options.contentType, lastModified: this.now() });
    return { size, sha256: hash.digest('hex') };
  }

  async stat(key: string): Promise<ObjectFacts | undefined> {
    this.reachable();
    const object = this.objects.get(key);
    return object && { size: object.bytes.length, contentType: object.contentType, lastModified: object.lastModified };
  }

  async read(key: string): Promise<AsyncIterable<Uint8Array> | undefined> {
    this.reachable();
    const object = this.objects.get(key);
    if (!object) return undefined;
    const { bytes } = object;
    return (async function* () {
      for (let at = 0; at < bytes.length; at += 1000) yield bytes.subarray(at, at + 1000);
    })();
  }

  async remove(key: string): Promise<void> {
    this.reachable();
    this.objects.delete(key);
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    this.reachable();
    for (const [key, object] of [...this.objects])
      if (key.startsWith(prefix)) yield { key, lastModified: object.lastModified };
  }

  async downloadUrl(key: string, options: DownloadOptions): Promise<string> {
    this.reachable();
    return `memory://${key}?type=${encodeURIComponent(options.contentType)}&attachment=${options.attachment}&ttl=${options.expiresInSeconds}`;
  }

  async uploadUrl(key: string, options: UploadOptions): Promise<PresignedUpload> {
    this.reachable();
    this.presigned.set(key, options);
    return {
      url: `memory://${key}?upload`,
      method: 'PUT',
      headers: { 'Content-Type': options.contentType, 'Content-Length': String(options.size) },
      expiresAt: new Date(this.now().getTime() + options.expiresInSeconds * 1000),
    };
  }

  async check(): Promise<void> {
    this.reachable();
  }

  /** A client's PUT to a presigned URL: stored as the store would, held to nothing (a test says what arrived). */
  putPresigned(url: string, bytes: Uint8Array, contentType?: string): void {
    const key = url.replace(/^memory:\/\//, '').replace(/\?upload$/, '');
    const signed = this.presigned.get(key);
    if (!signed) throw new Error(`no presigned upload for ${key}`);
    this.objects.set(key, {
      bytes: Buffer.from(bytes),
      contentType: contentType ?? signed.contentType,
      lastModified: this.now(),
    });
  }

  /** Makes an object older (as if written `ms` earlier). */
  age(key: string, ms: number): void {
    const object = this.objects.get(key);
    if (object) object.lastModified = new Date(object.lastModified.getTime() - ms);
  }

  private reachable(): void {
    if (this.down) throw new ServiceUnavailableError('file storage unreachable');
  }
}
