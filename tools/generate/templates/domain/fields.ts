import type { FieldModel } from '../../model.js';

/** Per-field fragments of the entity template: each field's declaration. */

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
    case 'file':
      return `[${(f.types ?? []).map((t) => `'${t}'`).join(', ')}], ${sizeLiteral(f.maxBytes ?? 0)}`;
    default:
      return '';
  }
}

const SIZE_UNITS = [
  ['GB', 1024 ** 3],
  ['MB', 1024 ** 2],
  ['KB', 1024],
] as const;

/** `5 * MB`: a file's largest size in the largest unit that divides it (bytes as they are otherwise). */
export function sizeLiteral(bytes: number): string {
  const unit = SIZE_UNITS.find(([, size]) => bytes % size === 0);
  return unit ? `${bytes / unit[1]} * ${unit[0]}` : String(bytes);
}

/** The size units (`MB`…) the file fields' declarations name, for the entity's import. */
export const sizeUnitsOf = (fields: readonly FieldModel[]): string[] =>
  SIZE_UNITS.map(([unit]) => unit).filter((unit) =>
    fields.some((f) => f.type === 'file' && sizeLiteral(f.maxBytes ?? 0).endsWith(` ${unit}`)),
  );

/** A default as a TypeScript literal of the field's value type (an instant as a Date). */
function defaultLiteral(f: FieldModel, value: string | number | boolean): string {
  if (typeof value !== 'string') return String(value);
  // JSON's escapes (a line break as \n), in the project's single quotes.
  const text = `'${JSON.stringify(value).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
  return f.type === 'datetime' ? `new Date(${text})` : text;
}

/**
 * `field.string(1, 200)`, `field.integer(0, 10).optional()`,
 * `field.enum(['draft', 'sent']).readonly().default('draft')`: a field as the declaration states it.
 */
export function fieldCall(f: FieldModel): string {
  return [
    `field.${f.type}(${fieldArguments(f)})`,
    ...(f.optional ? ['.optional()'] : []),
    ...(f.unique ? ['.unique()'] : []),
    ...(f.readonly ? ['.readonly()'] : []),
    ...(f.defaultValue !== undefined ? [`.default(${defaultLiteral(f, f.defaultValue)})`] : []),
  ].join('');
}

/** "a product", "an invoice": the indefinite article for a lower-case noun. */
export const withArticle = (noun: string): string => `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;
