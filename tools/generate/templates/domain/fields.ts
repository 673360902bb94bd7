import type { FieldModel, ResourceModel } from '../../model.js';

/** Per-field fragments of the domain templates: each field's declaration, and list helpers. */

/** `{ min: 0, minExclusive: true }`: a number range as written in the declaration; empty for none. */
function rangeLiteral(f: FieldModel): string {
  const { min, max, minExclusive, maxExclusive } = f.bounds;
  const parts = [
    ...(min !== undefined ? [`min: ${min}`] : []),
    ...(minExclusive ? ['minExclusive: true'] : []),
    ...(max !== undefined ? [`max: ${max}`] : []),
    ...(maxExclusive ? ['maxExclusive: true'] : []),
  ];
  return parts.length === 0 ? '' : `{ ${parts.join(', ')} }`;
}

/** The arguments of a field's declaration: its bounds, its values or the resource it names. */
function fieldArguments(f: FieldModel): string {
  switch (f.type) {
    case 'string':
    case 'text':
    case 'integer':
      return `${f.bounds.min}, ${f.bounds.max}`;
    case 'number':
      return rangeLiteral(f);
    case 'decimal':
      return [`${f.precision}, ${f.scale}`, ...(rangeLiteral(f) === '' ? [] : [rangeLiteral(f)])].join(', ');
    case 'enum':
      return `[${(f.values ?? []).map((v) => `'${v}'`).join(', ')}]`;
    case 'ref':
      return f.ref ? `'${f.ref.snake}', '${f.ref.pluralSnake}'` : '';
    default:
      return '';
  }
}

/** `field.string(1, 200)`, `field.integer(0, 10).optional()`: a field as the declaration states it. */
export function fieldCall(f: FieldModel): string {
  const call = `field.${f.type}(${fieldArguments(f)})`;
  return f.optional ? `${call}.optional()` : call;
}

/** The reference fields of a resource (each a list filter). */
export const refFields = (m: ResourceModel): FieldModel[] => m.fields.filter((f) => f.type === 'ref');

/** Lines joined with a new line and indented by `indent` spaces after the first. */
export const lines = (items: readonly string[], indent: number): string => items.join(`\n${' '.repeat(indent)}`);

/** "a product", "an invoice": the indefinite article for a lower-case noun. */
export const withArticle = (noun: string): string => `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;

/**
 * A bracketed, comma-separated list as a formatter would print it: on one line when it fits in 120
 * characters (at `indent`), else one item a line with a trailing comma. `open` ends with `{`, `[` or
 * `(`, `close` starts with the matching bracket; braces get inner spaces on one line.
 */
export function wrap(open: string, items: readonly string[], close: string, indent = 0): string {
  const pad = open.endsWith('{') ? ' ' : '';
  const oneLine = `${open}${pad}${items.join(', ')}${pad}${close}`;
  if (indent + oneLine.length <= 120) return oneLine;
  const inner = ' '.repeat(indent + 2);
  return `${open}\n${items.map((item) => `${inner}${item},`).join('\n')}\n${' '.repeat(indent)}${close}`;
}
