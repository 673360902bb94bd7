import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { MigrationObject } from '@mikro-orm/core';

/**
 * Where the migrations are, and how they are found: every file of the folder named as a migration
 * is one, with no list to edit (two branches that each add one merge without a conflict).
 *
 * - `Migration<NNNN><Pascal>` (`Migration0002Products`): the migrations written before migrations
 *   were named by time; their names stay recorded as applied in existing databases.
 * - `<YYYYMMDDTHHMM>_<snake_slug>` (`20261127T0512_books_add_subtitle`, seconds added when two would
 *   share a minute: `20261127T051233_…`): every migration since, named by its UTC creation time;
 *   its class is `Migration<stamp><PascalSlug>` (`Migration20261127T0512BooksAddSubtitle`).
 *
 * Any other file of the folder (`accessRules.ts`, `tableChangeMigration.ts`) is a helper.
 */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('./migrations/', import.meta.url));

const LEGACY = /^Migration(\d{4})[A-Za-z0-9]*$/;
const STAMPED = /^(\d{8}T\d{4}(?:\d{2})?)_([a-z0-9]+(?:_[a-z0-9]+)*)$/;

/** A migration file's name (no extension) and the key it is applied in order of. */
export interface MigrationFileName {
  readonly name: string;
  /** Legacy ones first in their counter's order, then by time (a minute's stamp as its second 00), then by name. */
  readonly order: string;
  /** The class the file must export, recorded by that name in the database. */
  readonly className: string;
}

const pascalOfSlug = (slug: string): string =>
  slug
    .split('_')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

/** A file's name (without its extension) read as a migration's, or `undefined` for a helper. */
export function migrationFileName(name: string): MigrationFileName | undefined {
  const legacy = LEGACY.exec(name);
  if (legacy) return { name, order: `0:${legacy[1]}:${name}`, className: name };
  const stamped = STAMPED.exec(name);
  if (!stamped) return undefined;
  const stamp = stamped[1] as string;
  return {
    name,
    order: `1:${stamp.padEnd(15, '0')}:${name}`,
    className: `Migration${stamp}${pascalOfSlug(stamped[2] as string)}`,
  };
}

/** `Migration20261127T0512BooksAddSubtitle`: the class of the timestamped migration `<stamp>_<slug>`. */
export const migrationClassName = (stamp: string, slug: string): string => `Migration${stamp}${pascalOfSlug(slug)}`;

/** The migration files' names in `folder` with extension `extension` (`ts` or `js`), in the order they apply. */
export function migrationFileNames(folder: string, extension: string): MigrationFileName[] {
  if (!existsSync(folder)) return [];
  const suffix = `.${extension}`;
  return readdirSync(folder)
    .filter((file) => file.endsWith(suffix))
    .flatMap((file) => {
      const parsed = migrationFileName(file.slice(0, -suffix.length));
      return parsed ? [parsed] : [];
    })
    .sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
}

/** A discovered migration: the migrator's object (its recorded name is its class's) and the file it came from. */
export interface DiscoveredMigration extends MigrationObject {
  readonly file: string;
}

/**
 * Every migration in `folder`, imported, in the order they apply: `.ts` files when this code runs
 * from its TypeScript sources (tsx), `.js` files when it runs from the build. A migration file that
 * does not export its class (named after the file) is refused with the file's name, as are two files
 * giving one class name.
 */
export async function discoverMigrations(
  folder: string = MIGRATIONS_FOLDER,
  extension: string = import.meta.url.endsWith('.ts') ? 'ts' : 'js',
): Promise<DiscoveredMigration[]> {
  const found: DiscoveredMigration[] = [];
  const names = new Set<string>();
  for (const { name, className } of migrationFileNames(folder, extension)) {
    const file = join(folder, `${name}.${extension}`);
    const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    const migration = module[className];
    if (typeof migration !== 'function')
      throw new Error(`migration ${name}.${extension}: it must export its class ${className}`);
    if (names.has(className)) throw new Error(`migration ${name}.${extension}: ${className} is named twice`);
    names.add(className);
    found.push({ name: className, class: migration as MigrationObject['class'], file });
  }
  return found;
}
