import { Product } from '../../domain/product/Product.js';
import { access } from './access.js';
import { account } from './account.js';
import { auth } from './auth.js';
import type { FeatureModule } from './FeatureModule.js';
import { files } from './files.js';
import { health } from './health.js';
import { jobs } from './jobs.js';
import { mfa } from './mfa.js';
import { oidc } from './oidc.js';
import { passkeys } from './passkeys.js';
import { resourceModule } from './resource.js';
import { storage } from './storage.js';
import { users } from './users.js';

/**
 * Every feature of the service, in order: the composition root loads their bindings, the database
 * their entities, the HTTP app their routes and the GraphQL schema their fragments (the migrations
 * are files, every one found: src/adapters/outbound/mikroorm/migrationFiles.ts). A declared resource
 * is one line here, `resourceModule(Entity)`, served by the shared cores; a referenced resource
 * comes before those naming it.
 */
export const MODULES: readonly FeatureModule[] = [
  health,
  auth,
  mfa,
  oidc,
  passkeys,
  users,
  access,
  account,
  jobs,
  storage,
  files,
  resourceModule(Product),
];
