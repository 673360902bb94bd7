import type { ResourceModel } from '../../model.js';

/** Names and fragments the inbound and main templates share; each is spelled here once. */

/** `purchase_order` → `PURCHASE_ORDER` (the prefix of `<UPPER>_PATHS`, `<UPPER>_SORT_FIELDS`). */
export const upper = (m: ResourceModel): string => m.names.snake.toUpperCase();

/** Where a resource's layers live, from `src/` (imports add the `../` they need). */
export const domainDir = (m: ResourceModel): string => `domain/${m.names.snake}`;
export const applicationDir = (m: ResourceModel): string => `application/${m.names.snake}`;

/** The use case classes, in the order the use-cases interface lists them. */
export function useCaseClasses(m: ResourceModel): { key: string; name: string }[] {
  const { pascal, pluralPascal } = m.names;
  return [
    { key: 'create', name: `Create${pascal}` },
    { key: 'get', name: `Get${pascal}` },
    { key: 'list', name: `List${pluralPascal}` },
    ...(m.search ? [{ key: 'search', name: `Search${pluralPascal}` }] : []),
    { key: 'update', name: `Update${pascal}` },
    { key: 'remove', name: `Delete${pascal}` },
  ];
}

/** The line length the project aims at. */
export const MAX_LINE = 120;

/** "a customer", "an invoice". */
export const withArticle = (word: string): string => `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;

/** `import { a, b, type C } from '…';`, the names sorted as the project sorts them (types last). */
export function importLine(names: string[], from: string, typeOnly = false): string {
  const byName = (a: string, b: string) => a.replace(/^type /, '').localeCompare(b.replace(/^type /, ''), 'en');
  const sorted = [
    ...names.filter((n) => !n.startsWith('type ')).sort(byName),
    ...names.filter((n) => n.startsWith('type ')).sort(byName),
  ];
  const line = `import ${typeOnly ? 'type ' : ''}{ ${sorted.join(', ')} } from '${from}';`;
  return line.length <= MAX_LINE
    ? line
    : `import ${typeOnly ? 'type ' : ''}{\n${sorted.map((n) => `  ${n},`).join('\n')}\n} from '${from}';`;
}

/** The use case classes sorted by name, as their imports are. */
export const useCaseImports = (m: ResourceModel): { key: string; name: string }[] =>
  [...useCaseClasses(m)].sort((a, b) => a.name.localeCompare(b.name, 'en'));
