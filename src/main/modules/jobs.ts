import { ContainerModule } from 'inversify';
import { Migration0005Jobs } from '../../adapters/outbound/mikroorm/migrations/Migration0005Jobs.js';
import type { FeatureModule } from './FeatureModule.js';

/**
 * Background jobs (docs/jobs.md): for now only the `jobs` table of the SQLite engine (on
 * PostgreSQL its migration does nothing: pg-boss owns its schema there); it binds nothing yet.
 */
export const jobs: FeatureModule = {
  name: 'jobs',
  bindings: new ContainerModule(() => undefined),
  migrations: [{ name: 'Migration0005Jobs', class: Migration0005Jobs }],
};
