import { nestedListPaths, type ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import {
  arrayLiteral,
  docBlock,
  docList,
  indented,
  lowerHuman,
  migrationNaming,
  quoted,
  sortFields,
  tableColumn,
} from './source.js';

/**
 * The access rules every resource gets (README: Add a resource): `moderator` all actions, `user`
 * GET, on the collection and item paths; for an owned resource `user` may also create, update and
 * delete, with scope `own` (only its own rows).
 */
export function accessGrants(m: ResourceModel): AccessRule[] {
  const collection = `/api/v1/${m.names.pluralKebab}`;
  const nested = nestedListPaths(m);
  const own = m.owned ? { scope: 'own' as const } : {};
  return [
    { role: 'moderator', path: collection, action: '.*' },
    { role: 'moderator', path: `${collection}/{id}`, action: '.*' },
    ...nested.map((path) => ({ role: 'moderator', path, action: '.*' })),
    { role: 'user', path: collection, action: m.owned ? 'GET|POST' : 'GET', ...own },
    { role: 'user', path: `${collection}/{id}`, action: m.owned ? 'GET|PUT|DELETE' : 'GET', ...own },
    ...nested.map((path) => ({ role: 'user', path, action: 'GET', ...own })),
  ];
}

/** One rule a resource brings: a `p` line of policy.csv, and a grant of its migration. */
export interface AccessRule {
  readonly role: string;
  readonly path: string;
  readonly action: string;
  /** `own` only (an owned resource's `user` rules); absent is `all`. */
  readonly scope?: 'own';
}

/**
 * `migrations/<stamp>_<plural>.ts` (class `Migration<stamp><PluralPascal>`): creates the table from the migration's own literal
 * copy of its spec (ADR 0016: a later change of the resource cannot change what it created) and
 * grants the resource's access rules to a database seeded before it (migrations/accessRules.ts).
 */
export function migrationFile(m: ResourceModel): FileContents {
  const { pluralSnake, pluralHuman } = m.names;
  const spec = pluralSnake.toUpperCase();
  const { name, path } = migrationNaming(m.migrationStamp, pluralSnake);
  const search = m.search ? `\n  search: ${quoted(m.search.camel)},` : '';
  const references = m.fields.flatMap((field) => (field.ref ? [`${field.name} → ${field.ref.pluralSnake}`] : []));
  const unique = m.fields.filter((field) => field.unique).map((field) => field.name);
  const doc = docList(`${pluralHuman}:`, [
    `the \`${pluralSnake}\` table, with an index per allowed sort (each ending in \`id\`, the tie-breaker, so every page is one index range);`,
    ...(references.length > 0
      ? [`a foreign key (\`on delete restrict\`) and an index for each reference (${references.join(', ')});`]
      : []),
    ...(unique.length > 0
      ? [`a unique index for each unique field (${unique.join(', ')}), nulls apart: one row per value;`]
      : []),
    ...(m.search
      ? [
          `on PostgreSQL, a trigram index for the case-insensitive ${m.search.name} search when the \`pg_trgm\` extension can be had (else search scans, as on SQLite);`,
        ]
      : []),
    ...(m.owned
      ? [
          `the owner of each row (\`owner_id\`, no foreign key: a user's deletion keeps their rows), leading a twin of each sort index, so one owner's page is one index range too;`,
        ]
      : []),
    `the ${lowerHuman(m.names)} access rules, for a database whose policy was seeded before (a fresh one is seeded from policy/policy.csv, which lists them too).`,
  ]);
  const grants = accessGrants(m).map(
    (grant) =>
      `{ role: ${quoted(grant.role)}, path: ${quoted(grant.path)}, action: ${quoted(grant.action)}${grant.scope ? `, scope: ${quoted(grant.scope)}` : ''} },`,
  );
  const contents = `import { Migration } from '@mikro-orm/migrations';
import { createResourceTable, type TableSpec } from '../resourceTable.js';
import { grantResourceAccess } from './accessRules.js';

${docBlock(`The \`${pluralSnake}\` table as this migration creates it: its own copy, so that a later change of ${pluralHuman.toLowerCase()} cannot change what this migration created.`)}
const ${spec}: TableSpec = {
  table: '${pluralSnake}',
  columns: {
    ${indented(m.fields.map(tableColumn), 4)}
  },
  sortable: ${arrayLiteral(sortFields(m).map(quoted), 'sortable: ', 2)},${search}${m.owned ? '\n  owned: true,' : ''}
};

${doc}
export class ${name} extends Migration {
  /** What it creates, read back by \`generate field\` and \`generate migration\`. */
  static readonly creates = ${spec};

  override async up(): Promise<void> {
    for (const statement of createResourceTable(this.getKnex(), ${spec})) this.addSql(statement);
    grantResourceAccess(this, [
      ${indented(grants, 6)}
    ]);
  }

  override async down(): Promise<void> {
    this.addSql(this.getKnex().schema.dropTableIfExists('${pluralSnake}').toQuery());
  }
}
`;
  return { path, contents };
}
