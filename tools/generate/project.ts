import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { namesOf, pluralOf, SNAKE_CASE } from './model.js';
import { ROUTE_WORDS } from './reserved.js';

/** What the generator needs to know about the project it writes into. */
export interface ProjectState {
  /** Snake names of the resources that exist, sorted. */
  readonly resources: readonly string[];
  /** Words a new name or its plural may not be: the route words, their plurals, every resource and its plural. */
  readonly routeWords: readonly string[];
  /** The number the next migration gets: the highest `Migration<NNNN>` plus one (1 when there is none). */
  readonly nextMigrationNumber: number;
}

export const DOMAIN_DIR = 'src/domain';
export const MIGRATIONS_DIR = 'src/adapters/outbound/mikroorm/migrations';

const MIGRATION_FILE = /^Migration(\d{4})\w*\.ts$/;

const directories = (path: string): string[] =>
  existsSync(path) ? readdirSync(path, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name) : [];

const files = (path: string): string[] =>
  existsSync(path) ? readdirSync(path, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name) : [];

/**
 * Reads the project at `root`: a resource `<x>` exists when `src/domain/<x>/` holds
 * `<Pascal>Repository.ts` (today `product` and `user`).
 */
export function readProjectState(root: string): ProjectState {
  const resources = directories(join(root, DOMAIN_DIR))
    .filter((name) => SNAKE_CASE.test(name))
    .filter((name) => existsSync(join(root, DOMAIN_DIR, name, `${namesOf(name).pascal}Repository.ts`)))
    .sort();
  const numbers = files(join(root, MIGRATIONS_DIR)).flatMap((name) => {
    const match = MIGRATION_FILE.exec(name);
    return match ? [Number(match[1])] : [];
  });
  return projectState(resources, Math.max(0, ...numbers) + 1);
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
