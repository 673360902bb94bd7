import { Migration } from '@mikro-orm/migrations';
import { createResourceTable, type TableSpec } from '../resourceTable.js';
import { grantResourceAccess } from './accessRules.js';

/**
 * The `products` table as this migration creates it: its own copy, so that a later change of products
 * cannot change what this migration created.
 */
const PRODUCTS: TableSpec = {
  table: 'products',
  columns: {
    name: { kind: 'string', length: 200 },
    price: { kind: 'number' },
  },
  sortable: ['name', 'price', 'created_at', 'updated_at'],
  search: 'name',
};

/**
 * Products:
 * - the `products` table, with an index per allowed sort (each ending in `id`, the tie-breaker, so every
 *   page is one index range);
 * - on PostgreSQL, a trigram index for the case-insensitive name search when the `pg_trgm` extension can
 *   be had (else search scans, as on SQLite);
 * - the product access rules, for a database whose policy was seeded before (a fresh one is seeded from
 *   policy/policy.csv, which lists them too).
 */
export class Migration0002Products extends Migration {
  /** What it creates, read back by `generate field` and `generate migration`. */
  static readonly creates = PRODUCTS;

  override async up(): Promise<void> {
    for (const statement of createResourceTable(this.getKnex(), PRODUCTS)) this.addSql(statement);
    grantResourceAccess(this, [
      { role: 'moderator', path: '/api/v1/products', action: '.*' },
      { role: 'moderator', path: '/api/v1/products/{id}', action: '.*' },
      { role: 'user', path: '/api/v1/products', action: 'GET' },
      { role: 'user', path: '/api/v1/products/{id}', action: 'GET' },
    ]);
  }

  override async down(): Promise<void> {
    this.addSql(this.getKnex().schema.dropTableIfExists('products').toQuery());
  }
}
