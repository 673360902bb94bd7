import type { AccessChange } from '../../../../src/adapters/outbound/mikroorm/migrations/tableChangeMigration.js';
import { changedFields, type TableChange } from '../../../../src/adapters/outbound/mikroorm/resourceTableChange.js';
import { namesOf } from '../../model.js';
import { MIGRATIONS_DIR } from '../../project.js';
import type { FileContents } from '../../writer.js';
import { docBlock, docList } from './source.js';

/** `Migration0007InvoicesFields`: a change of a resource's table, named after its table (and `what` it is for). */
export const tableChangeMigrationName = (number: number, table: string, what = 'Fields'): string =>
  `Migration${String(number).padStart(4, '0')}${namesOf(table).pascal}${what}`;

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
      return `adds \`${c.name}\`${rows ? ` (${rows})` : ''};`;
    }),
    ...removed.map(
      (c) => `removes \`${c.name}\`${c.spec?.kind === 'ref' ? ' and its foreign key' : ''} (its values are dropped);`,
    ),
    ...kept.flatMap((c) =>
      JSON.stringify(before.get(c.prop)) === JSON.stringify(c.spec)
        ? []
        : [`restates \`${c.name}\` (its width or values);`],
    ),
  ];
  if (change.before.search !== change.after.search) items.push('moves the search index;');
  return items;
}

/**
 * `migrations/Migration<NNNN><PluralPascal>Fields.ts`: changes a resource's table from what the
 * migrations so far made (`before`) to what its declaration says (`after`), with the rows kept —
 * its own literal copies of both (ADR 0016), read back by the generator as the table's new state.
 */
export function tableChangeMigrationFile(
  number: number,
  change: TableChange,
  access: AccessChange = {},
  what?: string,
): FileContents {
  const name = tableChangeMigrationName(number, change.after.table, what);
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
  return { path: `${MIGRATIONS_DIR}/${name}.ts`, contents };
}
