import {
  allowsType,
  mediaTypeOf,
  PayloadTooLargeError,
  tooLarge,
  typeNotAllowed,
  UnsupportedMediaTypeError,
} from '../../domain/shared/files.js';
import type { PresignedUpload } from '../ports/FileStorage.js';
import { fileField, invalid, objectKey, type FileHolder, type FileKit } from './FileKit.js';

/** A direct upload begun: where to `PUT` the file, and the id that completes it. */
export interface StartedUpload extends PresignedUpload {
  /** The id `POST …/uploads/{upload_id}` completes it with (the random part of the object's key). */
  readonly uploadId: string;
}

/**
 * Begins an upload straight to storage (docs/files.md): `contentType` must be a media type the field
 * allows (else UnsupportedMediaTypeError, 415; not a media type at all: ValidationError on
 * `content_type`), `size` a whole number of bytes (ValidationError on `size`) no larger than the
 * field's largest (PayloadTooLargeError, 413); the row must exist (with `owner`, be that owner's).
 * Answers a presigned `PUT` of a new key, `<plural>/<id>/<field>/<upload id>`, whose signature binds
 * that size and type, valid `ttlSeconds` (`storage.url_ttl`). Nothing is stored by the service: the
 * upload id names the key, so `CompleteUpload` finds it again; an upload never completed is removed
 * by `files.purge` a day later. Presigning needs no call to the store, so the store is checked first
 * (reached, its bucket there, the credentials taken): one that is not usable answers the upload itself
 * (ServiceUnavailableError, 503) rather than a link that would fail.
 */
export class StartUpload<E extends FileHolder> {
  constructor(
    private readonly kit: Pick<FileKit<E>, 'resource' | 'rows' | 'errors' | 'storage' | 'ids'> & {
      /** How long the presigned URL is valid (`storage.url_ttl`). */
      readonly ttlSeconds: number;
    },
  ) {}

  async execute(input: {
    readonly id: string;
    readonly field: string;
    readonly contentType: string;
    readonly size: number;
    readonly owner?: string;
  }): Promise<StartedUpload> {
    const { rows, errors, storage, ids, resource, ttlSeconds } = this.kit;
    const field = fileField(this.kit, input.field);
    const contentType = mediaTypeOf(input.contentType);
    if (contentType === undefined || contentType !== input.contentType.trim().toLowerCase())
      throw invalid('content_type', 'must be a media type (type/subtype)');
    if (!Number.isSafeInteger(input.size) || input.size < 0) throw invalid('size', 'must be a whole number of bytes');
    if (input.size > field.maxBytes) throw new PayloadTooLargeError(tooLarge(field.name, field.maxBytes));
    if (!allowsType(field.types, contentType))
      throw new UnsupportedMediaTypeError(typeNotAllowed(field.name, field.types));
    if (!(await rows.findById(input.id, input.owner))) throw errors.notFound(input.id);
    const uploadId = ids.newId();
    const key = objectKey(resource.plural, input.id, field.name, uploadId);
    await storage.check();
    const presigned = await storage.uploadUrl(key, {
      contentType,
      size: input.size,
      expiresInSeconds: ttlSeconds,
    });
    return { uploadId, ...presigned };
  }
}
