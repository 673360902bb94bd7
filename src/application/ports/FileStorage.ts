/**
 * Where files live (docs/files.md): an object store — a folder of the local disk, or any
 * S3-compatible store — holding objects by keys the service makes. One contract suite holds every
 * engine to this (test/support/fileStorageContract.ts).
 *
 * Failures: a store that cannot be reached (or answers with a server error) rejects with
 * `ServiceUnavailableError` (503); a write past its size limit with `PayloadTooLargeError` (413),
 * having kept nothing. Every other method but `write` is idempotent.
 */
export interface FileStorage {
  /** The engine's name (`local`, `s3`), for logs and the health check. */
  readonly engine: string;
  /**
   * Streams `body` into the object `key` (replacing none: keys are new), measuring its size and
   * SHA-256 on the way, never holding it whole in memory. Once more than `maxBytes` have arrived it
   * stops reading, removes what it wrote (no object, no partial object is left) and rejects with
   * `PayloadTooLargeError`. An object appears whole or not at all.
   */
  write(key: string, body: AsyncIterable<Uint8Array>, options: WriteOptions): Promise<WrittenObject>;
  /** The object's size, type and time of writing; undefined when there is none. */
  stat(key: string): Promise<ObjectFacts | undefined>;
  /** The object's bytes as a stream (undefined when there is none): what a check of a direct upload reads. */
  read(key: string): Promise<AsyncIterable<Uint8Array> | undefined>;
  /** Removes the object; nothing when there is none. */
  remove(key: string): Promise<void>;
  /** The objects whose key starts with `prefix`, in any order, each with its time of writing. */
  list(prefix: string): AsyncIterable<ListedObject>;
  /**
   * A link that serves the object for `expiresInSeconds`, answering with `contentType` and, when
   * `attachment`, `Content-Disposition: attachment` — a signature over the key, expiry and those
   * answers, so a tampered, expired or another key's link is refused (403).
   */
  downloadUrl(key: string, options: DownloadOptions): Promise<string>;
  /**
   * A presigned `PUT` that stores the object `key` only with exactly `size` bytes of `contentType`,
   * before it expires; the store itself refuses anything else (another size or type, too late: 403).
   */
  uploadUrl(key: string, options: UploadOptions): Promise<PresignedUpload>;
  /**
   * Resolves when the store can be reached and is usable (its folder written, its bucket there);
   * otherwise rejects with `ServiceUnavailableError` saying why, in words safe to publish.
   */
  check(signal?: AbortSignal): Promise<void>;
}

export interface WriteOptions {
  /** The media type it is stored with (and later served with). */
  readonly contentType: string;
  /** The most bytes it may have. */
  readonly maxBytes: number;
  /** Aborts the write: what was written is removed. */
  readonly signal?: AbortSignal;
}

export interface WrittenObject {
  readonly size: number;
  /** Lower-case hex. */
  readonly sha256: string;
}

export interface ObjectFacts {
  readonly size: number;
  /** The type it was stored with, as the store reports it. */
  readonly contentType: string;
  readonly lastModified: Date;
}

export interface ListedObject {
  readonly key: string;
  readonly lastModified: Date;
}

export interface DownloadOptions {
  readonly contentType: string;
  /** `Content-Disposition: attachment` (every type but images). */
  readonly attachment: boolean;
  readonly expiresInSeconds: number;
}

export interface UploadOptions {
  readonly contentType: string;
  readonly size: number;
  readonly expiresInSeconds: number;
}

/** What a client is given to upload straight to the store. */
export interface PresignedUpload {
  readonly url: string;
  readonly method: 'PUT';
  /** The headers the PUT must carry, exactly (`Content-Type`, `Content-Length`, …). */
  readonly headers: Readonly<Record<string, string>>;
  readonly expiresAt: Date;
}
