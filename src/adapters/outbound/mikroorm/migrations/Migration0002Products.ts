import { Migration } from '@mikro-orm/migrations';

/**
 * Products, with an index per allowed sort (each ending in `id`, the tie-breaker, so every page
 * is one index range) and, on PostgreSQL, a trigram index for the case-insensitive name search
 * when the `pg_trgm` extension can be had (SQLite scans: `like '%q%'` cannot use a b-tree).
 */
export class Migration0002Products extends Migration {
  override async up(): Promise<void> {
    const statements = this.getKnex()
      .schema.createTable('products', (t) => {
        t.string('id', 36).primary();
        t.string('name', 200).notNullable();
        t.double('price').notNullable();
        t.integer('version').notNullable().defaultTo(1);
        t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable();
        t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable();
        t.index(['name', 'id'], 'products_name_id_index');
        t.index(['price', 'id'], 'products_price_id_index');
        t.index(['created_at', 'id'], 'products_created_at_id_index');
        t.index(['updated_at', 'id'], 'products_updated_at_id_index');
      })
      .toSQL();
    for (const statement of statements) this.addSql(statement.sql);
    if (this.getKnex().client.dialect === 'postgresql') {
      this.addSql(`do $$ begin
  create extension if not exists pg_trgm;
exception when others then
  raise notice 'pg_trgm is not available: product search will scan';
end $$;`);
      this.addSql(`do $$ begin
  if exists (select 1 from pg_extension where extname = 'pg_trgm') then
    execute 'create index products_name_trgm_index on products using gin (lower(name) gin_trgm_ops)';
  end if;
end $$;`);
    }
  }

  override async down(): Promise<void> {
    this.addSql(this.getKnex().schema.dropTableIfExists('products').toQuery());
  }
}
