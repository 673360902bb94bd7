import { expect } from 'chai';
import { discoverMigrations } from '../../src/adapters/outbound/mikroorm/migrationFiles.js';
import { moduleEntities } from '../../src/main/infrastructure/database.js';
import { MODULES } from '../../src/main/modules/index.js';

describe('the feature modules (src/main/modules)', () => {
  it('are health, auth, mfa, oidc, passkeys, users, access, account, jobs, storage, files and products, each once', () => {
    expect(MODULES.map((module) => module.name)).to.deep.equal([
      'health',
      'auth',
      'mfa',
      'oidc',
      'passkeys',
      'users',
      'access',
      'account',
      'jobs',
      'storage',
      'files',
      'products',
    ]);
  });

  it('leave the migrations to the files: the database finds the ones existing databases recorded, by the same names, legacy ones first in their order', async () => {
    const names = (await discoverMigrations()).map((migration) => migration.name);
    expect(new Set(names).size, 'a migration found twice').to.equal(names.length);
    expect(names.slice(0, 5)).to.deep.equal([
      'Migration0001Users',
      'Migration0002Products',
      'Migration0003AccountLifecycle',
      'Migration0004AccountMailLimits',
      'Migration0005Jobs',
    ]);
    expect(MODULES.some((module) => 'migrations' in module)).to.equal(false);
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
    expect(always).to.deep.equal([
      'health',
      'auth',
      'mfa',
      'oidc',
      'passkeys',
      'users',
      'access',
      'account',
      'jobs',
      'storage',
    ]);
    expect(MODULES.filter((module) => module.graphql).map((module) => module.name)).to.deep.equal(['products']);
  });
});
