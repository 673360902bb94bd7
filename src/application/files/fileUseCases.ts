import { DeleteResource } from '../resources/DeleteResource.js';
import { ClearFile } from './ClearFile.js';
import { CompleteUpload } from './CompleteUpload.js';
import { DeleteWithFiles } from './DeleteWithFiles.js';
import { DownloadLink } from './DownloadLink.js';
import type { FileLinks } from './FileLinks.js';
import { fileFieldsOf, type FileHolder, type FileKit } from './FileKit.js';
import { StartUpload } from './StartUpload.js';
import { UploadFile } from './UploadFile.js';

/**
 * The file flows of a resource with `file` fields (docs/files.md), each taking the field by its JSON
 * name: upload through the service, clear, the download link, a direct upload's start and
 * completion — and `remove`, the delete that removes the row's files too (it replaces the generic
 * one). Undefined for a resource without `file` fields: it keeps the generic delete.
 */
export function fileUseCases<E extends FileHolder>(kit: FileKit<E> & { readonly links: FileLinks }) {
  if (fileFieldsOf(kit.resource).length === 0) return undefined;
  return {
    upload: new UploadFile(kit),
    clear: new ClearFile(kit),
    download: new DownloadLink(kit),
    startUpload: new StartUpload({ ...kit, ttlSeconds: kit.links.ttlSeconds }),
    completeUpload: new CompleteUpload(kit),
    remove: new DeleteWithFiles({ ...kit, remove: new DeleteResource(kit) }),
  };
}

export type FileUseCases<E extends FileHolder> = NonNullable<ReturnType<typeof fileUseCases<E>>>;
