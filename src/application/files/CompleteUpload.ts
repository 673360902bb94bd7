import { ConflictError, NotFoundError } from '../../domain/shared/DomainError.js';
import { allowsType, formatSize, mediaTypeOf, typeNotAllowed, type StoredFile } from '../../domain/shared/files.js';
import {
  attachFile,
  bytesProblem,
  fileField,
  fileOf,
  forget,
  isUuid,
  objectKey,
  peek,
  type FileHolder,
  type FileKit,
} from './FileKit.js';

/**
 * Completes an upload straight to storage (docs/files.md): the object `StartUpload` named by
 * `uploadId` must be there (else ConflictError, 409 "no object was uploaded"), no larger than the
 * field's largest, of a type the field allows, its first bytes showing that type (a refused object
 * is removed, and the ConflictError names what is wrong). The store itself held the upload to the
 * size and type `StartUpload` signed. The object is read once, streaming, for its SHA-256; then the
 * row's field is set by the resource's own change (the version bumped), and the object it replaced
 * is removed by a `files.delete` job once the change committed (a failed enqueue: `files.purge`).
 *
 * Completing an upload the field already holds answers the row as it is (idempotent: a client may
 * retry a completion whose answer it lost). An upload id that is not a UUID names no upload: a
 * NotFoundError. The row must exist (with `owner`, be that owner's; else the resource's NotFoundError).
 */
export class CompleteUpload<E extends FileHolder> {
  constructor(private readonly kit: FileKit<E>) {}

  async execute(input: {
    readonly id: string;
    readonly field: string;
    readonly uploadId: string;
    readonly expectedVersions?: readonly number[];
    readonly owner?: string;
  }): Promise<E> {
    const { rows, errors, storage, inspector, clock, resource } = this.kit;
    const field = fileField(this.kit, input.field);
    if (!isUuid(input.uploadId)) throw new NotFoundError('Upload', input.uploadId);
    const uploadId = input.uploadId.toLowerCase();
    const current = await rows.findById(input.id, input.owner);
    if (!current) throw errors.notFound(input.id);
    const key = objectKey(resource.plural, input.id, field.name, uploadId);
    if (fileOf(current, field)?.key === key) return current;
    current.requireVersion(input.expectedVersions);

    const facts = await storage.stat(key);
    if (!facts) throw new ConflictError(`${field.name}: no object was uploaded`, `upload_id: ${uploadId}`);
    const refuse = async (problem: string): Promise<never> => {
      await forget(storage, key);
      throw new ConflictError(`${field.name}: ${problem}`, `upload_id: ${uploadId}`);
    };
    if (facts.size > field.maxBytes) await refuse(`the object is larger than ${formatSize(field.maxBytes)}`);
    const contentType = mediaTypeOf(facts.contentType);
    if (contentType === undefined || !allowsType(field.types, contentType))
      return refuse(
        `the object's type ${contentType ?? facts.contentType} is not allowed: ${typeNotAllowed(field.name, field.types)}`,
      );

    const body = await storage.read(key);
    if (!body) throw new ConflictError(`${field.name}: no object was uploaded`, `upload_id: ${uploadId}`);
    const peeked = await peek(body, inspector.headBytes);
    const problem = await bytesProblem(inspector, contentType, peeked.head);
    if (problem !== undefined) {
      await peeked.close();
      await refuse(problem);
    }
    const digest = inspector.sha256();
    let size = 0;
    for await (const chunk of peeked.body) {
      digest.update(chunk);
      size += chunk.length;
    }
    if (size > field.maxBytes) await refuse(`the object is larger than ${formatSize(field.maxBytes)}`);

    const stored: StoredFile = { key, size, contentType, sha256: digest.hex(), uploadedAt: clock.now() };
    // The object is the client's upload: a change that fails keeps it, so completing again can succeed.
    return attachFile(this.kit, field, input, stored, false);
  }
}
