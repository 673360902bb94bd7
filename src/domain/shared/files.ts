import { DomainError } from './DomainError.js';

/**
 * A file a `file` field holds (docs/files.md): the object the service stored, named by a key the
 * service made (never a client's file name), with what was measured while it was stored.
 */
export interface StoredFile {
  /** The object's key in the file storage: `<plural>/<item id>/<field>/<random id>`. */
  readonly key: string;
  /** Its length in bytes. */
  readonly size: number;
  /** Its media type, lower case, without parameters (`image/png`). */
  readonly contentType: string;
  /** Its SHA-256, lower-case hex. */
  readonly sha256: string;
  readonly uploadedAt: Date;
}

const UNITS: Readonly<Record<string, number>> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };

/** `5MB` → 5,242,880 (units `B`, `KB`, `MB`, `GB`, powers of 1,024); undefined when not a positive size. */
export function parseSize(text: string): number | undefined {
  const match = /^(\d{1,7})\s*(B|KB|MB|GB)$/i.exec(text.trim());
  if (!match) return undefined;
  const bytes = Number(match[1]) * UNITS[match[2]!.toUpperCase()]!;
  return bytes > 0 && Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** 5,242,880 → `5MB`: the largest unit that divides the size exactly. */
export function formatSize(bytes: number): string {
  for (const unit of ['GB', 'MB', 'KB'] as const)
    if (bytes % UNITS[unit]! === 0) return `${bytes / UNITS[unit]!}${unit}`;
  return `${bytes}B`;
}

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;
const MEDIA_RANGE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/(\*|[a-z0-9][a-z0-9!#$&^_.+-]{0,126})$/;

/** A `Content-Type` header's media type, lower case and without parameters; undefined when it is not one. */
export function mediaTypeOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const type = header.split(';', 1)[0]!.trim().toLowerCase();
  return MEDIA_TYPE.test(type) ? type : undefined;
}

/** Whether a field's list of types (`image/png`, or a range `image/*`) allows a media type. */
export function allowsType(types: readonly string[], contentType: string): boolean {
  return types.some((t) => t === contentType || (t.endsWith('/*') && contentType.startsWith(t.slice(0, -1))));
}

/** Why a list of a file field's types cannot be one; undefined when every entry is a media type or range. */
export function typesProblem(types: readonly string[]): string | undefined {
  if (types.length === 0) return 'a file field needs at least one type';
  const wrong = types.find((t) => t !== t.toLowerCase() || !MEDIA_RANGE.test(t));
  return wrong === undefined ? undefined : `${JSON.stringify(wrong)} is not a media type (type/subtype, lower case)`;
}

/** Whether a media type is shown inline by browsers as a picture (a download of it is not an attachment). */
export const isImage = (contentType: string): boolean =>
  contentType.startsWith('image/') && contentType !== 'image/svg+xml';

/** A file larger than its field allows (or a request body larger than the service takes). */
export class PayloadTooLargeError extends DomainError {
  readonly code = 'PAYLOAD_TOO_LARGE';
  constructor(message: string) {
    super(message);
  }
}

/** A file of a type its field does not allow, or whose bytes are not of the type it claims. */
export class UnsupportedMediaTypeError extends DomainError {
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
  constructor(message: string) {
    super(message);
  }
}

/** `file(image/png|image/jpeg,5MB)`'s "too large" message. */
export const tooLarge = (field: string, maxBytes: number): string =>
  `${field}: a file may be at most ${formatSize(maxBytes)}`;

/** A file field's "type not allowed" message. */
export const typeNotAllowed = (field: string, types: readonly string[]): string =>
  `${field}: the type must be one of ${types.join(', ')}`;

const SHA256 = /^[0-9a-f]{64}$/;

/** Why a value is not a stored file of at most `maxBytes` of one of `types`; undefined when it is one. */
export function storedFileProblem(value: unknown, types: readonly string[], maxBytes: number): string | undefined {
  const message = 'must be a stored file';
  if (typeof value !== 'object' || value === null) return message;
  const f = value as Partial<StoredFile>;
  if (typeof f.key !== 'string' || f.key === '' || f.key.length > 512) return message;
  if (typeof f.size !== 'number' || !Number.isSafeInteger(f.size) || f.size < 0) return message;
  if (f.size > maxBytes) return `must be at most ${formatSize(maxBytes)}`;
  if (typeof f.contentType !== 'string' || !allowsType(types, f.contentType))
    return `must be of a type among ${types.join(', ')}`;
  if (typeof f.sha256 !== 'string' || !SHA256.test(f.sha256)) return message;
  if (!(f.uploadedAt instanceof Date) || Number.isNaN(f.uploadedAt.getTime())) return message;
  return undefined;
}
