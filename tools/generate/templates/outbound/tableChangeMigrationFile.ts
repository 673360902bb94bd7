import type { AccessChange } from '../../../../src/adapters/outbound/mikroorm/migrations/tableChangeMigration.js';
import type { Column } from '../../../../src/adapters/outbound/mikroorm/resourceTable.js';
import { changedFields, type TableChange } from '../../../../src/adapters/outbound/mikroorm/resourceTableChange.js';
import type { FileContents } from '../../writer.js';
import { docBlock, docList, migrationNaming } from './source.js';

/**
 * `invoices_add_due_at_notes`, `invoices_remove_notes`, `invoices_add_due_at_remove_notes`,
 * `invoices_change` (a width or the search moved): what a change of a table does, as its
 * migration's slug; `invoices_fields` when the fields would make it long.
 */
export function tableChangeSlug(change: TableChange): string {
  const { added, removed } = changedFields(change);
  const table = change.after.table;
  const parts = [
    ...(added.length > 0 ? ['add', ...added.map((c) => c.name)] : []),
    ...(removed.length > 0 ? ['remove', ...removed.map((c) => c.name)] : []),
  ];
  const slug = `${table}_${parts.length > 0 ? parts.join('_') : 'change'}`;
  return slug.length <= 60 ? slug : `${table}_fields`;
}

/** `Migration20261127T0512InvoicesAddDueAt`: the class of the migration that makes `change` at `stamp`. */
export const tableChangeMigrationName = (stamp: string, change: TableChange, slug = tableChangeSlug(change)): string =>
  migrationNaming(stamp, slug).name;

/** A value as a TypeScript literal (the formatter lays it out). */
const literal = (value: unknown): string => JSON.stringify(value);

/** What a change does, one item a field, for the migration's doc comment. */
function changeItems(change: TableChange): string[] {
  const { added, removed, kept } = changedFields(change);
  const before = new Map(Object.entries(change.before.columns));
  const items = [
    ...added.map((c) => {
      const value = change.defaults?.[c.prop];
      const rows =
        value !== undefined
          ? `the rows stored before get ${JSON.stringify(value)}`
          : c.optional
            ? 'null on the rows stored before'
            : '';
      return `adds \`${c.name}\`${c.spec?.unique ? ', unique' : ''}${rows ? ` (${rows})` : ''};`;
    }),
    ...removed.map(
      (c) => `removes \`${c.name}\`${c.spec?.kind === 'ref' ? ' and its foreign key' : ''} (its values are dropped);`,
    ),
    ...kept.flatMap((c) => {
      const was = before.get(c.prop);
      const [wasUnique, isUnique] = [was?.unique === true, c.spec?.unique === true];
      const shape = (column: Column | undefined) => JSON.stringify({ ...column, unique: undefined });
      return [
        ...(shape(was) === shape(c.spec) ? [] : [`restates \`${c.name}\` (its width or values);`]),
        ...(isUnique && !wasUnique
          ? [`makes \`${c.name}\` unique: a unique index (it fails, changing nothing, while two rows hold one value);`]
          : []),
        ...(wasUnique && !isUnique ? [`drops the unique index of \`${c.name}\`;`] : []),
      ];
    }),
  ];
  if (change.before.search !== change.after.search) items.push('moves the search index;');
  return items;
}

/**
 * `migrations/<stamp>_<slug>.ts` (`20261127T0512_invoices_add_due_at.ts`, see
 * {@link tableChangeSlug}): changes a resource's table from what the
 * migrations so far made (`before`) to what its declaration says (`after`), with the rows kept —
 * its own literal copies of both (ADR 0016), read back by the generator as the table's new state.
 */
export function tableChangeMigrationFile(
  stamp: string,
  change: TableChange,
  access: AccessChange = {},
  slug = tableChangeSlug(change),
): FileContents {
  const { name, path } = migrationNaming(stamp, slug);
  const plural = change.after.table.replace(/_/g, ' ');
  const grants = access.grant ?? [];
  const revokes = access.revoke ?? [];
  const items = [
    ...changeItems(change),
    ...(grants.length > 0
      ? [`grants the rules of ${[...new Set(grants.map((g) => g.path))].join(', ')} to a database seeded before;`]
      : []),
    ...(revokes.length > 0
      ? [`takes back the rules of ${[...new Set(revokes.map((g) => g.path))].join(', ')} (the route is gone);`]
      : []),
  ];
  const hasAccess = grants.length + revokes.length > 0;
  const last = items.length - 1;
  const doc = docList(
    `The \`${change.after.table}\` table, with its rows kept:`,
    items.map((item, i) => (i === last ? `${item.slice(0, -1)}.` : item)),
  );
  const contents = `import type { TableChange } from '../resourceTableChange.js';
import { tableChangeMigration${hasAccess ? ', type AccessChange' : ''} } from './tableChangeMigration.js';

${docBlock(`The change as this migration makes it: its own copy of the table before and after, so that a later change of ${plural} cannot change what it does.`)}
const CHANGE: TableChange = ${literal(change)};
${hasAccess ? `\n/** The access rules it grants and takes back on a database seeded before (a fresh one is seeded from policy/policy.csv). */\nconst ACCESS: AccessChange = ${literal(access)};\n` : ''}
${doc}
export class ${name} extends tableChangeMigration(CHANGE${hasAccess ? ', ACCESS' : ''}) {}
`;
  return { path, contents };
}
