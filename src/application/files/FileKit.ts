import { ValidationError } from '../../domain/shared/DomainError.js';
import type { StoredFile } from '../../domain/shared/files.js';
import { snakeCase, type ResourceDeclaration } from '../../domain/shared/resource.js';
import type { ResourceErrors } from '../../domain/shared/resourceErrors.js';
import type { ResourceRepository } from '../../domain/shared/ResourceRepository.js';
import type { Clock } from '../ports/Clock.js';
import type { FileInspector } from '../ports/FileInspector.js';
import type { FileStorage } from '../ports/FileStorage.js';
import type { IdGenerator } from '../ports/IdGenerator.js';
import type { JobQueue } from '../ports/Jobs.js';

/** The job that removes one object (`{key}`) once the change that dropped it committed. */
export const FILES_DELETE_JOB = 'files.delete';
/** The job, scheduled hourly by default, that removes objects no row names (uploads never completed, lost removals). */
export const FILES_PURGE_JOB = 'files.purge';

/** One `file` field of a resource, in the spellings the flows use. */
export interface FileField {
  /** Its TypeScript name, the entity's property (`coverImage`). */
  readonly key: string;
  /** Its JSON name, in paths and object keys (`cover_image`). */
  readonly name: string;
  readonly types: readonly string[];
  readonly maxBytes: number;
}

/** A resource's `file` fields, in declaration order (none for most resources). */
export function fileFieldsOf(declaration: Pick<ResourceDeclaration, 'fields'>): FileField[] {
  return Object.entries(declaration.fields).flatMap(([key, f]) =>
    f.type === 'file' && f.types && f.maxBytes !== undefined
      ? [{ key, name: snakeCase(key), types: f.types, maxBytes: f.maxBytes }]
      : [],
  );
}

/** `products/<id>/photo/<upload id>`: where a file of a row's field is stored; the service makes every part. */
export const objectKey = (plural: string, id: string, field: string, uploadId: string): string =>
  `${plural}/${id}/${field}/${uploadId}`;

/** The parts of a key `objectKey` made; undefined for any other key. */
export function keyParts(key: string): { plural: string; id: string; field: string; uploadId: string } | undefined {
  const parts = key.split('/');
  if (parts.length !== 4 || parts.some((part) => part === '')) return undefined;
  const [plural, id, field, uploadId] = parts as [string, string, string, string];
  return { plural, id, field, uploadId };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `text` is a UUID (an upload's id, an item's id). */
export const isUuid = (text: string): boolean => UUID.test(text);

/** What the file flows ask of a row: its version check, the resource's own change, its fields' values. */
export interface FileHolder {
  readonly id: string;
  requireVersion(versions: readonly number[] | undefined): void;
  apply(changes: Readonly<Record<string, unknown>>, now: Date): this;
}

/** The stored file a row's field holds; null when empty. */
export const fileOf = (row: FileHolder, field: FileField): StoredFile | null =>
  ((row as unknown as Record<string, unknown>)[field.key] as StoredFile | null | undefined) ?? null;

/** What every file flow of one resource works with. */
export interface FileKit<E extends FileHolder> {
  readonly resource: Pick<ResourceDeclaration, 'name' | 'plural' | 'fields'>;
  readonly rows: ResourceRepository<E>;
  readonly errors: ResourceErrors;
  readonly storage: FileStorage;
  readonly inspector: FileInspector;
  readonly jobs: JobQueue;
  readonly clock: Clock;
  readonly ids: IdGenerator;
}

/** The resource's file field named `name` (its JSON name); a programming error (thrown) when it has none. */
export function fileField(kit: Pick<FileKit<FileHolder>, 'resource'>, name: string): FileField {
  const found = fileFieldsOf(kit.resource).find((f) => f.name === name);
  if (!found) throw new Error(`${kit.resource.name} has no file field ${name}`);
  return found;
}

/**
 * Why bytes whose first ones are `head` are not of `declared`, or undefined when they may be: when
 * their signature shows a type, it must be `declared`; when `declared` is a type with a signature,
 * they must show it (an HTML page sent as `image/png` shows none).
 */
export async function bytesProblem(
  inspector: FileInspector,
  declared: string,
  head: Uint8Array,
): Promise<string | undefined> {
  const shown = await inspector.detect(head);
  if (shown !== undefined && shown !== declared) return `the bytes are ${shown}, not ${declared}`;
  if (shown === undefined && inspector.hasSignature(declared)) return `the bytes are not ${declared}`;
  return undefined;
}

/**
 * The first `bytes` bytes of `body` (fewer when it is shorter), read ahead, and the whole body
 * again — those chunks, then the rest as it arrives — so it is read once.
 */
export async function peek(
  body: AsyncIterable<Uint8Array>,
  bytes: number,
): Promise<{ head: Uint8Array; body: AsyncIterable<Uint8Array>; close(): Promise<void> }> {
  const iterator = body[Symbol.asyncIterator]();
  const read: Uint8Array[] = [];
  let length = 0;
  let done = false;
  while (length < bytes) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    read.push(next.value);
    length += next.value.length;
  }
  const joined = new Uint8Array(Math.min(length, bytes));
  let at = 0;
  for (const chunk of read) {
    if (at >= joined.length) break;
    const part = chunk.subarray(0, joined.length - at);
    joined.set(part, at);
    at += part.length;
  }
  async function* whole(): AsyncGenerator<Uint8Array> {
    yield* read;
    read.length = 0;
    if (done) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return {
    head: joined,
    body: whole(),
    close: async () => {
      if (!done) await iterator.return?.();
    },
  };
}

/**
 * Enqueues `files.delete` for each key, after the change that dropped them committed. A failed
 * enqueue is not the caller's failure (its change stands): the object is then an orphan, which
 * `files.purge` removes once it is a day old.
 */
export async function removeLater(jobs: JobQueue, keys: readonly string[]): Promise<void> {
  for (const key of keys) {
    try {
      await jobs.enqueue({ name: FILES_DELETE_JOB, payload: { key } });
    } catch {
      // Left to files.purge (see above).
    }
  }
}

/**
 * Removes an object no row will name (a change that failed after it was stored); if the store
 * fails now, `files.purge` removes it a day later, and the caller's own failure is what it hears.
 */
export async function forget(storage: FileStorage, key: string): Promise<void> {
  try {
    await storage.remove(key);
  } catch {
    // Left to files.purge (see above).
  }
}

/**
 * Sets a row's file field to the object just stored, by the resource's own change (`apply`, the
 * version bumped) as one atomic read-modify-write: at one of `expectedVersions` when given, with
 * `owner` that owner's row only. A row that names the object already is answered as it is (a direct
 * upload completed twice). When no row is changed (it is gone: the resource's NotFoundError), and
 * with `removeOnFailure` when the change throws, the new object is removed; once the change
 * committed, the object it replaced is removed by a `files.delete` job.
 */
export async function attachFile<E extends FileHolder>(
  kit: Pick<FileKit<E>, 'rows' | 'errors' | 'storage' | 'clock' | 'jobs'>,
  field: FileField,
  input: { readonly id: string; readonly expectedVersions?: readonly number[]; readonly owner?: string },
  stored: StoredFile,
  removeOnFailure: boolean,
): Promise<E> {
  const { rows, errors, storage, clock, jobs } = kit;
  let replaced: StoredFile | null = null;
  let changed: E | undefined;
  try {
    changed = await rows.update(
      input.id,
      (row) => {
        replaced = fileOf(row, field);
        if (replaced?.key === stored.key) return row;
        row.requireVersion(input.expectedVersions);
        return row.apply({ [field.key]: stored }, clock.now());
      },
      input.owner,
    );
  } catch (error) {
    if (removeOnFailure) await forget(storage, stored.key);
    throw error;
  }
  if (!changed) {
    await forget(storage, stored.key);
    throw errors.notFound(input.id);
  }
  const old = replaced as StoredFile | null;
  if (old !== null && old.key !== stored.key) await removeLater(jobs, [old.key]);
  return changed;
}

/** A 400 naming one input field. */
export const invalid = (field: string, message: string): ValidationError => new ValidationError([{ field, message }]);
