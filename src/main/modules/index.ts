import { Migration0002Products } from '../../adapters/outbound/mikroorm/migrations/Migration0002Products.js';
import { Product } from '../../domain/product/Product.js';
import { access } from './access.js';
import { account } from './account.js';
import { auth } from './auth.js';
import type { FeatureModule } from './FeatureModule.js';
import { health } from './health.js';
import { jobs } from './jobs.js';
import { resourceModule } from './resource.js';
import { users } from './users.js';

/**
 * Every feature of the service, in order: the composition root loads their bindings, the database
 * their entities and migrations (concatenated in this order), the HTTP app their routes and the
 * GraphQL schema their fragments. A declared resource is one line here, `resourceModule(Entity,
 * ...its migrations)`, served by the shared cores; a referenced resource comes before those naming it.
 */
export const MODULES: readonly FeatureModule[] = [
  health,
  auth,
  users,
  access,
  account,
  jobs,
  resourceModule(Product, Migration0002Products),
];
