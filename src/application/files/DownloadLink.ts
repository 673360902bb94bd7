import { NotFoundError } from '../../domain/shared/DomainError.js';
import { humanName } from '../../domain/shared/resourceErrors.js';
import type { FileLinks } from './FileLinks.js';
import { fileField, fileOf, type FileHolder, type FileKit } from './FileKit.js';

/**
 * The signed link that serves a row's file (docs/files.md), valid `storage.url_ttl`: what
 * `GET …/{id}/<field>` redirects to. The resource's NotFoundError for an unknown row (with `owner`,
 * another owner's too); a NotFoundError naming the field when it is empty, or when its object is
 * gone. The object is looked up before the link is made, so a store that cannot be reached answers
 * the download itself (ServiceUnavailableError, 503) rather than a link that would fail.
 */
export class DownloadLink<E extends FileHolder> {
  constructor(
    private readonly kit: Pick<FileKit<E>, 'resource' | 'rows' | 'errors' | 'storage'> & { readonly links: FileLinks },
  ) {}

  async execute(input: { readonly id: string; readonly field: string; readonly owner?: string }): Promise<string> {
    const { rows, errors, links, resource, storage } = this.kit;
    const field = fileField(this.kit, input.field);
    const row = await rows.findById(input.id, input.owner);
    if (!row) throw errors.notFound(input.id);
    const file = fileOf(row, field);
    const missing = () => new NotFoundError(`${humanName(resource.name)} ${field.name.replace(/_/g, ' ')}`, input.id);
    if (file === null || (await storage.stat(file.key)) === undefined) throw missing();
    return links.url(file);
  }
}
