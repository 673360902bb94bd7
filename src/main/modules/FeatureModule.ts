import type { EntitySchema } from '@mikro-orm/core';
import type { ContainerModule } from 'inversify';
import type { GraphQLFragment } from '../../adapters/inbound/graphql/resolverKit.js';
import type { RouteModule } from '../../adapters/inbound/http/app.js';
import type { Operation } from '../../adapters/inbound/http/operations.js';
import type { JobHandler } from '../../application/ports/Jobs.js';
import type { FieldDeclarations, ResourceEntityClass } from '../../domain/shared/resource.js';
import type { Built } from './built.js';

/** What one feature contributes; the composition root composes the list in src/main/modules/index.ts. */
export interface FeatureModule {
  readonly name: string;
  /** A declared resource's entity class (its declaration and errors), for a module made by `resourceModule`. */
  readonly resource?: ResourceEntityClass<FieldDeclarations>;
  /** Its Inversify bindings (its own tokens live in its module file). */
  readonly bindings: ContainerModule;
  /** MikroORM entity schemas it maps. */
  readonly entities?: readonly EntitySchema[];
  /**
   * REST routes. Core features (health, auth, users) always; resources only when api.mode is
   * rest/both. `operations` are every route it registers, for the API document (README: API document).
   */
  readonly rest?: {
    readonly always: boolean;
    readonly operations: readonly Operation[];
    /** Its routes, built from what it names (never the container itself). */
    readonly routes: Built<RouteModule>;
  };
  /** GraphQL contribution (resources): an SDL fragment and its resolver map, when api.mode is graphql/both. */
  readonly graphql?: Built<GraphQLFragment>;
  /** The background jobs it runs (docs/jobs.md): a handler by job name, built from what it names. */
  readonly jobs?: Built<Readonly<Record<string, JobHandler>>>;
}
