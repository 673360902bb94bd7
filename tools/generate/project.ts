import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { migrationFileNames } from '../../src/adapters/outbound/mikroorm/migrationFiles.js';
import { namesOf, pluralOf, SNAKE_CASE } from './model.js';
import { ROUTE_WORDS } from './reserved.js';
import { MAIN_EDITS } from './templates/main/index.js';

/** What the generator needs to know about the project it writes into. */
export interface ProjectState {
  /** Snake names of the resources that exist, sorted. */
  readonly resources: readonly string[];
  /** Words a new name or its plural may not be: the route words, their plurals, every resource and its plural. */
  readonly routeWords: readonly string[];
  /**
   * The stamp the migrations this command writes get: its UTC creation time to the minute
   * (`20261127T0512`), to the second when a migration of that minute or later exists already (see
   * {@link migrationStampAt}).
   */
  readonly migrationStamp: string;
  /** The current text of the existing files a resource changes (the module list, the policy), by path. */
  readonly files?: Readonly<Record<string, string>>;
}

/** The existing files a new resource changes (the templates' edits say which). */
export const EDITED_FILES: readonly string[] = MAIN_EDITS.map((e) => e.path);

export const DOMAIN_DIR = 'src/domain';
export const MIGRATIONS_DIR = 'src/adapters/outbound/mikroorm/migrations';

const directories = (path: string): string[] =>
  existsSync(path)
    ? readdirSync(path, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
    : [];

/**
 * Whether `src/domain/<name>/` holds a resource: its entity declares one (`<Pascal>.ts` calls
 * `declareResource`, today `product`), or it is written by hand with a repository port of its own
 * (`<Pascal>Repository.ts`, today `user`).
 */
function isResource(root: string, name: string): boolean {
  const dir = join(root, DOMAIN_DIR, name);
  const { pascal } = namesOf(name);
  if (existsSync(join(dir, `${pascal}Repository.ts`))) return true;
  const entity = join(dir, `${pascal}.ts`);
  return existsSync(entity) && /\bdeclareResource\(/.test(readFileSync(entity, 'utf8'));
}

const digits = (date: Date): string => date.toISOString().replace(/[-:]/g, '').slice(0, 15);

/**
 * The stamp of migrations made at `now`, given the stamps the project's migrations have: `now` in
 * UTC to the minute (`20261127T0512`), so that two branches never write the same name (the slug
 * tells apart two of one minute on two branches); to the second (`20261127T051233`) when a
 * migration of that minute or later is there already, and past the latest when the clock is behind
 * it, so that a new migration always applies after every one the project has.
 */
export function migrationStampAt(now: Date, stamps: readonly string[]): string {
  const second = (stamp: string) => stamp.padEnd(15, '0');
  const latest = stamps
    .filter((stamp) => stamp.includes('T'))
    .map(second)
    .sort()
    .at(-1);
  const minute = digits(now).slice(0, 13);
  if (latest === undefined || second(minute) > latest) return minute;
  if (digits(now) > latest) return digits(now);
  const [, y, mo, d, h, mi, se] = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})$/.exec(latest) ?? [];
  return digits(new Date(Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +se! + 1)));
}

/** Reads the project at `root`: its resources, the stamp of migrations made `now`, the files a resource changes. */
export function readProjectState(root: string, now: Date = new Date()): ProjectState {
  const resources = directories(join(root, DOMAIN_DIR))
    .filter((name) => SNAKE_CASE.test(name))
    .filter((name) => isResource(root, name))
    .sort();
  const stamps = migrationFileNames(join(root, MIGRATIONS_DIR), 'ts').map((f) => f.name.split('_')[0] as string);
  const texts: Record<string, string> = {};
  for (const path of EDITED_FILES)
    if (existsSync(join(root, path))) texts[path] = readFileSync(join(root, path), 'utf8');
  return { ...projectState(resources, migrationStampAt(now, stamps)), files: texts };
}

/** The state of a project with these resources: the route words follow from them. */
export function projectState(resources: readonly string[], migrationStamp: string): ProjectState {
  const routeWords = new Set<string>();
  for (const word of [...ROUTE_WORDS, ...resources]) {
    routeWords.add(word);
    routeWords.add(pluralOf(word));
  }
  return { resources: [...resources].sort(), routeWords: [...routeWords].sort(), migrationStamp };
}
