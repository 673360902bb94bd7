import type { FieldModel, ResourceModel } from '../../model.js';
import { pascalOf } from '../../model.js';

/** Per-field fragments of the domain templates: TypeScript types, field rules, and list helpers. */

/** `INVOICE_TIER_VALUES`: the listed values of an enum field, declared once in the entity file. */
export const enumValuesName = (m: ResourceModel, f: FieldModel): string =>
  `${m.names.snake.toUpperCase()}_${f.name.toUpperCase()}_VALUES`;

/** `InvoiceTier`: the union type of an enum field's values. */
export const enumTypeName = (m: ResourceModel, f: FieldModel): string => `${m.names.pascal}${pascalOf(f.name)}`;

/** The TypeScript type of a field's value, without the `| null` of an optional field. */
export function valueType(m: ResourceModel, f: FieldModel): string {
  switch (f.type) {
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'datetime':
      return 'Date';
    case 'enum':
      return enumTypeName(m, f);
    default:
      return 'string';
  }
}

/** The TypeScript type of a stored field: `| null` when optional. */
export const storedType = (m: ResourceModel, f: FieldModel): string =>
  f.optional ? `${valueType(m, f)} | null` : valueType(m, f);

/** The name of the shared rule a field type uses (src/domain/shared/fieldRules.ts). */
function ruleName(f: FieldModel): string {
  return f.type === 'ref' ? 'uuidRule' : `${f.type}Rule`;
}

/** `{ min: 0, minExclusive: true }`: a number range as written in the rule call; empty for none. */
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

/** The arguments of a field's rule call: its bounds or its values. */
function ruleArguments(m: ResourceModel, f: FieldModel): string {
  switch (f.type) {
    case 'string':
    case 'text':
    case 'integer':
      return `${f.bounds.min}, ${f.bounds.max}`;
    case 'number':
      return rangeLiteral(f);
    case 'enum':
      return enumValuesName(m, f);
    default:
      return '';
  }
}

/** `stringRule(1, 200)`, `optional(integerRule(0, 10))`: the rule guarding a field. */
export function ruleCall(m: ResourceModel, f: FieldModel): string {
  const call = `${ruleName(f)}(${ruleArguments(m, f)})`;
  return f.optional ? `optional(${call})` : call;
}

/** The names the entity imports from the shared field rules, sorted. */
export function ruleImports(m: ResourceModel): string[] {
  const names = new Set(['guardFields', ...m.fields.map(ruleName)]);
  if (m.fields.some((f) => f.optional)) names.add('optional');
  return [...names].sort();
}

/** The reference fields of a resource (each a list filter). */
export const refFields = (m: ResourceModel): FieldModel[] => m.fields.filter((f) => f.type === 'ref');

/** The sortable fields' JSON names, then `created_at` and `updated_at`. */
export const sortFields = (m: ResourceModel): string[] => [
  ...m.fields.filter((f) => f.sortable).map((f) => f.name),
  'created_at',
  'updated_at',
];

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
