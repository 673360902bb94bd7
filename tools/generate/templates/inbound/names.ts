import { INT32_MAX, INT32_MIN, pascalOf, type Bounds, type FieldModel, type ResourceModel } from '../../model.js';

/** Names and fragments the inbound and main templates share; each is spelled here once. */

/** `due_at` → `DueAt`. */
export const fieldPascal = (f: FieldModel): string => pascalOf(f.name);

/** `purchase_order` → `PURCHASE_ORDER` (the prefix of `<UPPER>_PATHS`, `<UPPER>_SORT_FIELDS`). */
export const upper = (m: ResourceModel): string => m.names.snake.toUpperCase();

/** Names the domain rule of a field. */
export type RuleName = (m: ResourceModel, f: FieldModel) => string;
/** The domain's rule of a field, which gives its message and its facts: `PRODUCT_FIELD_RULES.name`. */
export const domainRuleName: RuleName = (m, f) => `${fieldRulesName(m)}.${f.name}`;

/** The domain's map of field rules: `PRODUCT_FIELD_RULES`. */
export const fieldRulesName = (m: ResourceModel): string => `${upper(m)}_FIELD_RULES`;

/** The field codec: `ProductNameField`. */
export const codecName = (m: ResourceModel, f: FieldModel): string => `${m.names.pascal}${fieldPascal(f)}Field`;

/** The domain's (and GraphQL's) name of an enum field's type: `InvoiceTier`. */
export const enumTypeName = (m: ResourceModel, f: FieldModel): string => `${m.names.pascal}${fieldPascal(f)}`;

export const refFields = (m: ResourceModel): FieldModel[] => m.fields.filter((f) => f.type === 'ref');
export const enumFields = (m: ResourceModel): FieldModel[] => m.fields.filter((f) => f.type === 'enum');

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

/** `{ a: 1, b: 2 }` on one line after `prefix` when it fits, else one entry a line. */
export function objectLiteral(prefix: string, entries: string[], suffix = ';'): string {
  const line = `${prefix}{ ${entries.join(', ')} }${suffix}`;
  return line.length <= MAX_LINE ? line : `${prefix}{\n${entries.map((e) => `  ${e},`).join('\n')}\n}${suffix}`;
}

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

/** A range in words: `greater than 0`, `from 0 to 10`, `at most 100`; empty when unbounded. */
export function rangeText(bounds: Bounds, integer: boolean): string {
  const { min, max, minExclusive, maxExclusive } = bounds;
  if (integer && min === INT32_MIN && max === INT32_MAX) return 'in the signed 32-bit range';
  if (min !== undefined && max !== undefined && !minExclusive && !maxExclusive) return `from ${min} to ${max}`;
  const parts = [
    ...(min === undefined ? [] : [minExclusive ? `greater than ${min}` : `at least ${min}`]),
    ...(max === undefined ? [] : [maxExclusive ? `less than ${max}` : `at most ${max}`]),
  ];
  return parts.join(' and ');
}

/** Lines joined, each indented by `indent` spaces (empty lines dropped). */
export const block = (lines: string[], indent: number): string =>
  lines
    .filter((line) => line !== '')
    .map((line) => ' '.repeat(indent) + line)
    .join('\n');

/** The use case classes sorted by name, as their imports are. */
export const useCaseImports = (m: ResourceModel): { key: string; name: string }[] =>
  [...useCaseClasses(m)].sort((a, b) => a.name.localeCompare(b.name, 'en'));
