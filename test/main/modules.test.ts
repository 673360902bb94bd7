import { expect } from 'chai';
import { moduleEntities, moduleMigrations } from '../../src/main/infrastructure/database.js';
import { MODULES } from '../../src/main/modules/index.js';

describe('the feature modules (src/main/modules)', () => {
  it('are health, auth, users, access, account, jobs and products, each once', () => {
    expect(MODULES.map((module) => module.name)).to.deep.equal([
      'health',
      'auth',
      'users',
      'access',
      'account',
      'jobs',
      'products',
    ]);
  });

  it('give the database the migrations existing databases already recorded, by the same names, in the same order', () => {
    // Module-list order, not number order: a migration runs after its own module's earlier ones.
    // Migrations generated later (a resource, a field) come after these, each module's after its own.
    const names = moduleMigrations().map((migration) => migration.name);
    expect(new Set(names).size, 'a migration listed twice').to.equal(names.length);
    expect(names.filter((name) => Number(/^Migration(\d{4})/.exec(name)?.[1]) <= 5)).to.deep.equal([
      'Migration0001Users',
      'Migration0003AccountLifecycle',
      'Migration0004AccountMailLimits',
      'Migration0005Jobs',
      'Migration0002Products',
    ]);
  });

  it('give the ORM the tables of the ORM-backed stores, each mapped once; a resource has its table description alone', () => {
    const tables = moduleEntities().map((schema) => schema.meta.tableName ?? schema.meta.className);
    expect([...tables].sort()).to.deep.equal([
      'access_rules',
      'app_meta',
      'email_tokens',
      'refresh_tokens',
      'sessions',
      'users',
    ]);
  });

  it('serve the core features over REST always, the resources only when api.mode asks', () => {
    const always = MODULES.filter((module) => module.rest?.always).map((module) => module.name);
    expect(always).to.deep.equal(['health', 'auth', 'users', 'access', 'account', 'jobs']);
    expect(MODULES.filter((module) => module.graphql).map((module) => module.name)).to.deep.equal(['products']);
  });
});
