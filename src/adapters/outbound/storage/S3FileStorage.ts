import { createHash } from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
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

export interface S3FileStorageOptions {
  /** The store's URL (`storage.s3.endpoint`, `https://s3.example.com`); undefined: AWS's own for the region. */
  readonly endpoint?: string;
  readonly region: string;
  readonly bucket: string;
  /** Undefined: the SDK's own chain (environment, profile, instance role). */
  readonly accessKeyId?: string;
  readonly secretAccessKey?: string;
  /** `https://host/bucket/key` rather than `https://bucket.host/key` (most S3-compatible stores). */
  readonly forcePathStyle?: boolean;
  /** How long a connection may take to open, in milliseconds (default 2 s). */
  readonly connectionTimeoutMs?: number;
  /** How long a request may wait on a silent store, in milliseconds (default 15 s): no byte either way. */
  readonly idleTimeoutMs?: number;
  /** The size of a multipart write's parts (at least S3's minimum, 5 MiB, the default). */
  readonly partBytes?: number;
}

/** S3's smallest part but the last (RGW's `rgw_multipart_min_part_size` too). */
const MIN_PART = 5 * 1024 * 1024;

/**
 * The `s3` engine (docs/files.md): objects in one bucket of any S3-compatible store through the AWS
 * SDK v3. A write streams the body in parts — one `PutObject` when it fits in one part, else a
 * multipart upload, one part held in memory at a time — and aborts the upload when it fails or
 * passes its limit, so no object and no pending upload is left. Links are SigV4 presigned URLs on
 * the store's own origin: a download signs the answer's `Content-Type` and `Content-Disposition`
 * (`response-content-type`, `response-content-disposition`), an upload signs its `Content-Type`
 * and `Content-Length` as headers the store checks.
 *
 * Failures: the store unreachable, timing out or answering 5xx — and any other answer the port has
 * no meaning for (a refused credential, a missing bucket) — is `ServiceUnavailableError`, after at
 * most one retry and short timeouts, so a call with the store down fails within seconds; a body's
 * own failure is passed on as it is.
 */
export class S3FileStorage implements FileStorage {
  readonly engine = 's3';
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly partBytes: number;

  constructor(options: S3FileStorageOptions) {
    this.bucket = options.bucket;
    this.partBytes = Math.max(options.partBytes ?? MIN_PART, MIN_PART);
    const { accessKeyId, secretAccessKey } = options;
    this.client = new S3Client({
      region: options.region,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      forcePathStyle: options.forcePathStyle ?? false,
      ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
      maxAttempts: 2,
      requestHandler: {
        connectionTimeout: options.connectionTimeoutMs ?? 2_000,
        // An idle limit, not a total one: a large part, or an object read by a slow client, takes
        // as long as it takes while bytes flow.
        socketTimeout: options.idleTimeoutMs ?? 15_000,
      },
      // Checksums only where an operation requires them: S3-compatible stores (RGW among them) do
      // not all take the CRC32 trailers the SDK adds by default, nor presigned URLs that carry them.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async write(key: string, body: AsyncIterable<Uint8Array>, options: WriteOptions): Promise<WrittenObject> {
    const { contentType, maxBytes, signal } = options;
    const hash = createHash('sha256');
    const part = Buffer.allocUnsafe(this.partBytes);
    let filled = 0;
    let size = 0;
    const upload: { id?: string; parts: CompletedPart[] } = { parts: [] };
    try {
      if (signal?.aborted) throw abortReason(signal);
      // Leaving the loop (a throw) ends the body's iterator: nothing more is read.
      for await (const chunk of body) {
        if (signal?.aborted) throw abortReason(signal);
        size += chunk.byteLength;
        if (size > maxBytes) throw new PayloadTooLargeError(`a file may be at most ${formatSize(maxBytes)}`);
        hash.update(chunk);
        for (let at = 0; at < chunk.byteLength;) {
          const copied = Buffer.from(chunk.buffer, chunk.byteOffset + at, chunk.byteLength - at).copy(part, filled);
          filled += copied;
          at += copied;
          if (filled === part.length) {
            await this.sendPart(key, contentType, upload, part, signal);
            filled = 0;
          }
        }
      }
      if (signal?.aborted) throw abortReason(signal);
      if (upload.id === undefined) {
        const bytes = part.subarray(0, filled);
        await this.call(
          (o) =>
            this.client.send(
              new PutObjectCommand({
                Bucket: this.bucket,
                Key: key,
                Body: bytes,
                ContentType: contentType,
                ContentLength: bytes.length,
              }),
              o,
            ),
          signal,
        );
      } else {
        if (filled > 0) await this.sendPart(key, contentType, upload, part.subarray(0, filled), signal);
        const { id, parts } = upload;
        await this.call(
          (o) =>
            this.client.send(
              new CompleteMultipartUploadCommand({
                Bucket: this.bucket,
                Key: key,
                UploadId: id,
                MultipartUpload: { Parts: parts },
              }),
              o,
            ),
          signal,
        );
      }
      return { size, sha256: hash.digest('hex') };
    } catch (error) {
      if (upload.id !== undefined) await this.abortUpload(key, upload.id);
      throw error;
    }
  }

  async stat(key: string): Promise<ObjectFacts | undefined> {
    const head = await this.found((o) => this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }), o));
    if (head === undefined) return undefined;
    return {
      size: head.ContentLength ?? 0,
      contentType: head.ContentType ?? 'application/octet-stream',
      lastModified: head.LastModified ?? new Date(0),
    };
  }

  async read(key: string): Promise<AsyncIterable<Uint8Array> | undefined> {
    const object = await this.found((o) =>
      this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }), o),
    );
    // In Node.js the body is the response stream (an IncomingMessage), itself an async iterable.
    return object?.Body as AsyncIterable<Uint8Array> | undefined;
  }

  async remove(key: string): Promise<void> {
    await this.call((o) => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }), o));
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    let token: string | undefined;
    do {
      const after = token;
      const page = await this.call((o) =>
        this.client.send(
          new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: after }),
          o,
        ),
      );
      for (const object of page.Contents ?? [])
        if (object.Key !== undefined) yield { key: object.Key, lastModified: object.LastModified ?? new Date(0) };
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  downloadUrl(key: string, options: DownloadOptions): Promise<string> {
    return getSignedUrl(
      this.client,
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: key,
        ResponseContentType: options.contentType,
        ...(options.attachment ? { ResponseContentDisposition: 'attachment' } : {}),
      }),
      { expiresIn: options.expiresInSeconds },
    );
  }

  async uploadUrl(key: string, options: UploadOptions): Promise<PresignedUpload> {
    const expiresAt = new Date(Date.now() + options.expiresInSeconds * 1000);
    const url = await getSignedUrl(
      this.client,
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        ContentType: options.contentType,
        ContentLength: options.size,
      }),
      {
        expiresIn: options.expiresInSeconds,
        // Signed as headers (not left out, not moved into the query): the store refuses a PUT whose
        // type or length differs from what was signed.
        signableHeaders: new Set(['content-type', 'content-length']),
        unhoistableHeaders: new Set(['content-type', 'content-length']),
      },
    );
    return {
      url,
      method: 'PUT',
      headers: { 'Content-Type': options.contentType, 'Content-Length': String(options.size) },
      expiresAt,
    };
  }

  async check(signal?: AbortSignal): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }), { abortSignal: signal });
    } catch (error) {
      const status = statusOf(error);
      if (status === 404) throw new ServiceUnavailableError(`the bucket ${JSON.stringify(this.bucket)} does not exist`);
      if (status === 401 || status === 403)
        throw new ServiceUnavailableError(
          `the store refuses these credentials for the bucket ${JSON.stringify(this.bucket)}`,
        );
      throw new ServiceUnavailableError('file storage cannot be reached');
    }
  }

  private async sendPart(
    key: string,
    contentType: string,
    upload: { id?: string; parts: CompletedPart[] },
    bytes: Buffer,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    if (upload.id === undefined) {
      const created = await this.call(
        (o) =>
          this.client.send(
            new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: contentType }),
            o,
          ),
        signal,
      );
      if (created.UploadId === undefined) throw new ServiceUnavailableError('file storage unavailable');
      upload.id = created.UploadId;
    }
    const number = upload.parts.length + 1;
    const id = upload.id;
    const sent = await this.call(
      (o) =>
        this.client.send(
          new UploadPartCommand({
            Bucket: this.bucket,
            Key: key,
            UploadId: id,
            PartNumber: number,
            Body: bytes,
            ContentLength: bytes.length,
          }),
          o,
        ),
      signal,
    );
    upload.parts.push({ PartNumber: number, ETag: sent.ETag });
  }

  /** Drops a multipart upload and its parts; a store that cannot be told is left to its own expiry rules. */
  private async abortUpload(key: string, uploadId: string): Promise<void> {
    await this.client
      .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId }))
      .catch(() => undefined);
  }

  /** Sends one request, every failure of the store as `ServiceUnavailableError`; an abort is passed on. */
  private async call<T>(send: (options: SendOptions) => Promise<T>, signal?: AbortSignal): Promise<T> {
    try {
      return await send({ abortSignal: signal });
    } catch (error) {
      if (signal?.aborted) throw abortReason(signal);
      throw unavailable(error);
    }
  }

  /** `call`, answering undefined when there is no such object (404). */
  private async found<T>(send: (options: SendOptions) => Promise<T>): Promise<T | undefined> {
    try {
      return await send({});
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw unavailable(error);
    }
  }
}

interface SendOptions {
  readonly abortSignal?: AbortSignal;
}

/** The store's failure as the port's: unreachable, slow, 5xx or an answer with no meaning here. */
function unavailable(error: unknown): Error {
  return error instanceof ServiceUnavailableError ? error : new ServiceUnavailableError('file storage unavailable');
}

/** The HTTP status the store answered with; undefined when it did not answer (network, timeout). */
function statusOf(error: unknown): number | undefined {
  return error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('the write was aborted');
}
