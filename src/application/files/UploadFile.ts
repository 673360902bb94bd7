import {
  allowsType,
  mediaTypeOf,
  PayloadTooLargeError,
  tooLarge,
  typeNotAllowed,
  UnsupportedMediaTypeError,
  type StoredFile,
} from '../../domain/shared/files.js';
import { attachFile, bytesProblem, fileField, objectKey, peek, type FileHolder, type FileKit } from './FileKit.js';

/**
 * Uploads a file through the service into a row's `file` field (docs/files.md): the row must exist
 * (with `owner`, be that owner's; else the resource's NotFoundError) and be at one of
 * `expectedVersions` when given; the declared type must be one the field allows, else
 * UnsupportedMediaTypeError (415). The body is streamed once: its first bytes are read ahead and
 * checked against the declared type (a type with a signature — PNG, JPEG, GIF, WebP, PDF… — must
 * show it; bytes showing another type are refused, 415, before anything is stored), then the whole
 * of it goes to storage under a new key (`<plural>/<id>/<field>/<uuid>`), which measures its size
 * and SHA-256 and stops past the field's largest size (PayloadTooLargeError, 413, nothing kept).
 * The row is then changed by the resource's own change (`apply`, the version bumped) as one atomic
 * read-modify-write, like an update: concurrent uploads all succeed, the last one stays. A change
 * that fails (the row gone, a stale version) removes the new object. Once the change committed, the
 * object it replaced is removed by a `files.delete` job; if that enqueue fails, the orphan is
 * removed by `files.purge` a day later.
 */
export class UploadFile<E extends FileHolder> {
  constructor(private readonly kit: FileKit<E>) {}

  async execute(input: {
    readonly id: string;
    /** The field's JSON name (`photo`). */
    readonly field: string;
    /** The `Content-Type` the client declared. */
    readonly contentType: string | undefined;
    readonly body: AsyncIterable<Uint8Array>;
    readonly expectedVersions?: readonly number[];
    /** Only this owner's row (a caller whose rule reaches only their own rows). */
    readonly owner?: string;
    /** Aborts the write (the client went away): nothing is kept. */
    readonly signal?: AbortSignal;
  }): Promise<E> {
    const { rows, errors, storage, inspector, clock, ids, resource } = this.kit;
    const field = fileField(this.kit, input.field);
    const contentType = mediaTypeOf(input.contentType);
    if (contentType === undefined || !allowsType(field.types, contentType))
      throw new UnsupportedMediaTypeError(typeNotAllowed(field.name, field.types));
    const current = await rows.findById(input.id, input.owner);
    if (!current) throw errors.notFound(input.id);
    current.requireVersion(input.expectedVersions);

    const peeked = await peek(input.body, inspector.headBytes);
    const problem = await bytesProblem(inspector, contentType, peeked.head);
    if (problem !== undefined) {
      await peeked.close();
      throw new UnsupportedMediaTypeError(`${field.name}: ${problem}`);
    }
    const key = objectKey(resource.plural, input.id, field.name, ids.newId());
    let written;
    try {
      written = await storage.write(key, peeked.body, {
        contentType,
        maxBytes: field.maxBytes,
        ...(input.signal ? { signal: input.signal } : {}),
      });
    } catch (error) {
      await peeked.close();
      if (error instanceof PayloadTooLargeError) throw new PayloadTooLargeError(tooLarge(field.name, field.maxBytes));
      throw error;
    }
    const stored: StoredFile = {
      key,
      size: written.size,
      contentType,
      sha256: written.sha256,
      uploadedAt: clock.now(),
    };
    return attachFile(this.kit, field, input, stored, true);
  }
}
