import { migrationClassName } from '../../../../src/adapters/outbound/mikroorm/migrationFiles.js';
import type { FieldModel, ResourceModel, ResourceNames } from '../../model.js';

/** "purchase order": the resource's name inside a sentence. */
export const lowerHuman = (names: ResourceNames): string => names.human.toLowerCase();

/**
 * A migration's class and file, from its stamp and slug: `Migration20261127T0512BooksAddSubtitle` in
 * `migrations/20261127T0512_books_add_subtitle.ts`; a legacy counter's, `Migration0002Products` in
 * `migrations/Migration0002Products.ts` (src/adapters/outbound/mikroorm/migrationFiles.ts).
 */
export function migrationNaming(stamp: string, slug: string): { name: string; path: string } {
  const name = migrationClassName(stamp, slug);
  return {
    name,
    path: `src/adapters/outbound/mikroorm/migrations/${stamp.includes('T') ? `${stamp}_${slug}` : name}.ts`,
  };
}

/** `Migration20261127T0512Invoices`: the class (and recorded name) of the migration that creates the resource's table. */
export const migrationName = (m: ResourceModel): string => migrationNaming(m.migrationStamp, m.names.pluralSnake).name;

/** A string as a single-quoted TypeScript literal. */
export const quoted = (value: string): string => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** A `string` field's column width: its longest allowed value. */
const stringLength = (field: FieldModel): number => field.bounds.max ?? 200;

/** `, optional: true` for an optional field. */
const optionally = (field: FieldModel): string => (field.optional ? ', optional: true' : '');

/** `, default: 'draft'` for a field with a default (the column's, in the domain's form). */
const defaulted = (field: FieldModel): string =>
  field.defaultValue === undefined
    ? ''
    : `, default: ${typeof field.defaultValue === 'string' ? quoted(field.defaultValue) : String(field.defaultValue)}`;

/** The `Column` of a field in a table spec (resourceTable.ts): what a migration creates and the repository reads. */
export function tableColumn(field: FieldModel): string {
  const kind = `kind: ${quoted(field.type)}`;
  const detail =
    field.type === 'string'
      ? `, length: ${stringLength(field)}`
      : field.type === 'decimal'
        ? `, precision: ${field.precision}, scale: ${field.scale}`
        : field.type === 'enum'
          ? `, values: [${(field.values ?? []).map(quoted).join(', ')}]`
          : field.ref
            ? `, references: { table: ${quoted(field.ref.pluralSnake)}, target: ${quoted(lowerHuman(field.ref))} }`
            : '';
  return `${field.camel}: { ${kind}${detail}${optionally(field)}${defaulted(field)}${field.unique ? ', unique: true' : ''} },`;
}

/** The sortable fields in snake case, as the list's `sort` names them: every field but `text`, then the timestamps. */
export const sortFields = (m: ResourceModel): string[] => [
  ...m.fields.filter((field) => field.sortable).map((field) => field.name),
  'created_at',
  'updated_at',
];

/** Indents every line but the first of a multi-line fragment. */
export const indented = (lines: readonly string[], spaces: number): string => lines.join(`\n${' '.repeat(spaces)}`);

/**
 * An array literal on one line when `prefix` and it fit in 120 characters at `spaces` indentation,
 * else one item a line (as a formatter would lay it out).
 */
export function arrayLiteral(items: readonly string[], prefix: string, spaces: number): string {
  const line = `[${items.join(', ')}]`;
  if (spaces + prefix.length + line.length + 1 <= 120) return line;
  const pad = ' '.repeat(spaces + 2);
  return `[\n${items.map((item) => `${pad}${item},`).join('\n')}\n${' '.repeat(spaces)}]`;
}

/** Words laid out in lines of at most `width` characters (a word longer than that gets a line of its own). */
export function wrapped(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** A TSDoc block of prose, wrapped to the project's line length. */
export function docBlock(text: string): string {
  const lines = wrapped(text, 100);
  return lines.length === 1 ? `/** ${lines[0]} */` : ['/**', ...lines.map((line) => ` * ${line}`), ' */'].join('\n');
}

/** A TSDoc block of an introduction and a bulleted list, each item wrapped (continuation lines indented). */
export function docList(intro: string, items: readonly string[]): string {
  const bullets = items.flatMap((item) =>
    wrapped(item, 100).map((line, i) => (i === 0 ? ` * - ${line}` : ` *   ${line}`)),
  );
  return ['/**', ` * ${intro}`, ...bullets, ' */'].join('\n');
}
