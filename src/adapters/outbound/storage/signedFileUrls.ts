import { createHmac, timingSafeEqual } from 'node:crypto';
import { mediaTypeOf } from '../../../domain/shared/files.js';

/** What a download link lets its holder have: the object served with this type, as an attachment or not. */
export interface DownloadGrant {
  readonly contentType: string;
  readonly attachment: boolean;
}

/** What a presigned upload lets its holder store: exactly `size` bytes of `contentType`. */
export interface UploadGrant {
  readonly contentType: string;
  readonly size: number;
}

/** A link's query parameters, as the request carried them. */
export type LinkQuery = Readonly<Record<string, string | string[] | undefined>>;

const single = (query: LinkQuery, name: string): string | undefined => {
  const value = query[name];
  return typeof value === 'string' ? value : undefined;
};

const WHOLE = /^(0|[1-9]\d{0,15})$/;

/** A media type as the links carry it: lower case, without parameters. */
const isMediaType = (type: string | undefined): type is string => type !== undefined && mediaTypeOf(type) === type;

/**
 * The local engine's signed links (`/files/<key>?expires=…&type=…&…&signature=…`): an HMAC-SHA256,
 * under `storage.signing_secret`, of the method, the key, the expiry (Unix seconds) and what the
 * link grants — the type and disposition of a download, the type and size of an upload — so none
 * of them can be changed, nor the link used for another key or another method. Compared in
 * constant time.
 */
export class FileUrlSigner {
  constructor(
    private readonly secret: string | Buffer,
    /** Now, in milliseconds (a test's clock). */
    private readonly now: () => number = Date.now,
  ) {}

  /** The query of a download link to `key`, valid `expiresInSeconds`. */
  downloadQuery(key: string, grant: DownloadGrant, expiresInSeconds: number): URLSearchParams {
    const expires = this.expiry(expiresInSeconds);
    const disposition = grant.attachment ? 'attachment' : 'inline';
    const signature = this.sign(['GET', key, String(expires), grant.contentType, disposition]);
    return new URLSearchParams({ expires: String(expires), type: grant.contentType, disposition, signature });
  }

  /** The query of a presigned upload to `key`, and when it expires. */
  uploadQuery(key: string, grant: UploadGrant, expiresInSeconds: number): { query: URLSearchParams; expiresAt: Date } {
    const expires = this.expiry(expiresInSeconds);
    const signature = this.sign(['PUT', key, String(expires), grant.contentType, String(grant.size)]);
    const query = new URLSearchParams({ expires: String(expires), type: grant.contentType, size: String(grant.size) });
    query.set('signature', signature);
    return { query, expiresAt: new Date(expires * 1000) };
  }

  /** What a download link grants; undefined when its signature does not hold or it expired. */
  verifyDownload(key: string, query: LinkQuery): DownloadGrant | undefined {
    const type = single(query, 'type');
    const disposition = single(query, 'disposition');
    if (!isMediaType(type) || (disposition !== 'attachment' && disposition !== 'inline')) return undefined;
    if (!this.holds(['GET', key, single(query, 'expires'), type, disposition], query)) return undefined;
    return { contentType: type, attachment: disposition === 'attachment' };
  }

  /** What a presigned upload grants; undefined when its signature does not hold or it expired. */
  verifyUpload(key: string, query: LinkQuery): UploadGrant | undefined {
    const type = single(query, 'type');
    const size = single(query, 'size');
    if (!isMediaType(type) || size === undefined || !WHOLE.test(size)) return undefined;
    if (!this.holds(['PUT', key, single(query, 'expires'), type, size], query)) return undefined;
    return { contentType: type, size: Number(size) };
  }

  private expiry(expiresInSeconds: number): number {
    return Math.floor(this.now() / 1000) + Math.max(1, Math.ceil(expiresInSeconds));
  }

  private holds(parts: readonly (string | undefined)[], query: LinkQuery): boolean {
    const expires = parts[2];
    const given = single(query, 'signature');
    if (expires === undefined || !WHOLE.test(expires) || given === undefined) return false;
    if (Number(expires) * 1000 <= this.now()) return false;
    const expected = Buffer.from(this.sign(parts as string[]), 'utf8');
    const actual = Buffer.from(given, 'utf8');
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  private sign(parts: readonly string[]): string {
    // Newlines cannot occur in a key, a number or a media type: the parts cannot run into each other.
    return createHmac('sha256', this.secret).update(parts.join('\n')).digest('base64url');
  }
}
