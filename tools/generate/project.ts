import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { namesOf, pluralOf, SNAKE_CASE } from './model.js';
import { ROUTE_WORDS } from './reserved.js';
import { MAIN_EDITS } from './templates/main/index.js';

/** What the generator needs to know about the project it writes into. */
export interface ProjectState {
  /** Snake names of the resources that exist, sorted. */
  readonly resources: readonly string[];
  /** Words a new name or its plural may not be: the route words, their plurals, every resource and its plural. */
  readonly routeWords: readonly string[];
  /** The number the next migration gets: the highest `Migration<NNNN>` plus one (1 when there is none). */
  readonly nextMigrationNumber: number;
  /** The current text of the existing files a resource changes (the module list, the policy), by path. */
  readonly files?: Readonly<Record<string, string>>;
}

/** The existing files a new resource changes (the templates' edits say which). */
export const EDITED_FILES: readonly string[] = MAIN_EDITS.map((e) => e.path);

export const DOMAIN_DIR = 'src/domain';
export const MIGRATIONS_DIR = 'src/adapters/outbound/mikroorm/migrations';

const MIGRATION_FILE = /^Migration(\d{4})\w*\.ts$/;

const directories = (path: string): string[] =>
  existsSync(path)
    ? readdirSync(path, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
    : [];

const files = (path: string): string[] =>
  existsSync(path)
    ? readdirSync(path, { withFileTypes: true })
        .filter((e) => e.isFile())
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

/** Reads the project at `root`: its resources, the next migration's number, the files a resource changes. */
export function readProjectState(root: string): ProjectState {
  const resources = directories(join(root, DOMAIN_DIR))
    .filter((name) => SNAKE_CASE.test(name))
    .filter((name) => isResource(root, name))
    .sort();
  const numbers = files(join(root, MIGRATIONS_DIR)).flatMap((name) => {
    const match = MIGRATION_FILE.exec(name);
    return match ? [Number(match[1])] : [];
  });
  const texts: Record<string, string> = {};
  for (const path of EDITED_FILES)
    if (existsSync(join(root, path))) texts[path] = readFileSync(join(root, path), 'utf8');
  return { ...projectState(resources, Math.max(0, ...numbers) + 1), files: texts };
}

/** The state of a project with these resources: the route words follow from them. */
export function projectState(resources: readonly string[], nextMigrationNumber: number): ProjectState {
  const routeWords = new Set<string>();
  for (const word of [...ROUTE_WORDS, ...resources]) {
    routeWords.add(word);
    routeWords.add(pluralOf(word));
  }
  return { resources: [...resources].sort(), routeWords: [...routeWords].sort(), nextMigrationNumber };
}
