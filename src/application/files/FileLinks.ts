import { isImage, type StoredFile } from '../../domain/shared/files.js';
import type { FileStorage } from '../ports/FileStorage.js';

/**
 * The links a stored file is answered with (an item's `photo.url`, a download's redirect): signed by
 * the storage, valid `storage.url_ttl`, serving the stored type, as an attachment unless it is an
 * image — so an uploaded HTML or SVG page never runs as a page.
 */
export class FileLinks {
  constructor(
    private readonly storage: FileStorage,
    /** How long a link is valid (`storage.url_ttl`). */
    readonly ttlSeconds: number,
  ) {}

  /** A signed link to the file, valid `ttlSeconds` from now. */
  url(file: StoredFile): Promise<string> {
    return this.storage.downloadUrl(file.key, {
      contentType: file.contentType,
      attachment: !isImage(file.contentType),
      expiresInSeconds: this.ttlSeconds,
    });
  }
}
