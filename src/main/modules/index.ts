import { access } from './access.js';
import { account } from './account.js';
import { auth } from './auth.js';
import type { FeatureModule } from './FeatureModule.js';
import { health } from './health.js';
import { jobs } from './jobs.js';
import { products } from './products.js';
import { users } from './users.js';

/**
 * Every feature of the service, in order: the composition root loads their bindings, the database
 * their entities and migrations (concatenated in this order), the HTTP app their routes and the
 * GraphQL schema their fragments. A new resource is registered here and nowhere else.
 */
export const MODULES: readonly FeatureModule[] = [health, auth, users, access, account, jobs, products];
