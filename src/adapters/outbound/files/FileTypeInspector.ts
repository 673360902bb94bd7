import { createHash } from 'node:crypto';
import { fileTypeFromBuffer, supportedMimeTypes } from 'file-type';
import type { FileInspector, RunningDigest } from '../../../application/ports/FileInspector.js';

/**
 * Types `file-type` lists but whose files have no signature of their own (text that may start with
 * anything): bytes claimed to be of these are not required to show it.
 */
const TEXTUAL = (type: string): boolean => type.startsWith('text/') || type === 'application/xml';

/**
 * The `FileInspector` of the `file-type` package (signatures of PNG, JPEG, GIF, WebP, PDF, ZIP and
 * about 170 more, from a file's first 4 KiB) and Node's SHA-256.
 */
export class FileTypeInspector implements FileInspector {
  readonly headBytes = 4096;
  private readonly signed = new Set([...supportedMimeTypes].filter((type) => !TEXTUAL(type)));

  async detect(head: Uint8Array): Promise<string | undefined> {
    if (head.length === 0) return undefined;
    return (await fileTypeFromBuffer(head))?.mime;
  }

  hasSignature(contentType: string): boolean {
    return this.signed.has(contentType);
  }

  sha256(): RunningDigest {
    const hash = createHash('sha256');
    return {
      update: (chunk) => {
        hash.update(chunk);
      },
      hex: () => hash.digest('hex'),
    };
  }
}
