import { dirname } from 'node:path';
import { ContainerModule } from 'inversify';
import { bindBuilt, built } from './built.js';
import type { Redis } from 'ioredis';
import { HEALTH_OPERATIONS, healthRoutes } from '../../adapters/inbound/http/routes/health.js';
import { CacheHealthCheck } from '../../adapters/outbound/health/CacheHealthCheck.js';
import { DatabaseHealthCheck } from '../../adapters/outbound/health/DatabaseHealthCheck.js';
import { DiskHealthCheck } from '../../adapters/outbound/health/DiskHealthCheck.js';
import {
  EventLoopHealthCheck,
  type EventLoopDelayMonitor,
} from '../../adapters/outbound/health/EventLoopHealthCheck.js';
import { HttpHealthCheck } from '../../adapters/outbound/health/HttpHealthCheck.js';
import { ReplicaHealthCheck } from '../../adapters/outbound/health/ReplicaHealthCheck.js';
import { StorageHealthCheck } from '../../adapters/outbound/health/StorageHealthCheck.js';
import type { Database } from '../../adapters/outbound/mikroorm/database.js';
import { CheckHealth } from '../../application/health/CheckHealth.js';
import { HealthCheckRegistry } from '../../application/health/HealthCheckRegistry.js';
import { JobsHealthCheck } from '../../application/health/JobsHealthCheck.js';
import type { Clock } from '../../application/ports/Clock.js';
import type { FileStorage } from '../../application/ports/FileStorage.js';
import type { JobAdmin } from '../../application/ports/Jobs.js';
import type { Config } from '../config/schema.js';
import { token, TOKENS } from '../wiring/tokens.js';
import type { FeatureModule } from './FeatureModule.js';

export const HealthTokens = {
  Registry: token<HealthCheckRegistry>('health.Registry'),
  CheckHealth: token<CheckHealth>('health.CheckHealth'),
} as const;

/** The disk check's default: the SQLite file's directory (the database's own volume), else the working directory. */
function diskPathOf(target: Database['target']): string {
  return target.kind === 'sqlite' && target.file !== ':memory:' ? dirname(target.file) || '.' : '.';
}

function buildRegistry({
  config,
  database,
  redis,
  eventLoop,
  jobs,
  clock,
  storage,
}: {
  config: Config;
  database: Database;
  redis: Redis | null;
  eventLoop: EventLoopDelayMonitor;
  jobs: JobAdmin;
  clock: Clock;
  storage: FileStorage;
}): HealthCheckRegistry {
  const registry = new HealthCheckRegistry();
  // Liveness never depends on the database or other dependencies: a restart would not fix them.
  // Critical: without it no API call can succeed, so readiness must send traffic elsewhere. The
  // cache is not (the limiter fails open), nor is a slow event loop.
  registry.register(new DatabaseHealthCheck(database), 'readiness', { critical: true });
  if (redis) registry.register(new CacheHealthCheck(redis), 'readiness');
  // Reads a replica cannot serve go to the primary: `degraded` at worst, and readiness stays up.
  if (database.reads.replicas > 0) {
    registry.register(new ReplicaHealthCheck(database.reads, config.database.replicaMaxLagMs), 'readiness');
  }
  for (const http of config.health.http) {
    registry.register(new HttpHealthCheck(http.name, http.url, http.timeoutMs), 'readiness', {
      critical: http.critical,
    });
  }
  const diskPath = config.health.disk.path || diskPathOf(database.target);
  registry.register(new DiskHealthCheck(diskPath, config.health.disk.minFreeBytes), 'readiness', { critical: true });
  registry.register(new EventLoopHealthCheck(200, eventLoop), 'both');
  // Only uploads and downloads need the file storage: `degraded` at worst, and readiness stays up.
  registry.register(new StorageHealthCheck(storage), 'readiness');
  // The whole service's jobs, not this instance's fitness for traffic: in the report only.
  registry.register(new JobsHealthCheck(jobs, clock, config.jobs.maxLagMs), 'report');
  return registry;
}

/** Health probes (README: Health): the checks, the use case and `/health*`, always served. */
export const health: FeatureModule = {
  name: 'health',
  bindings: new ContainerModule(({ bind }) => {
    bindBuilt(
      bind(HealthTokens.Registry),
      built(
        {
          config: TOKENS.Config,
          database: TOKENS.Database,
          redis: TOKENS.Redis,
          eventLoop: TOKENS.EventLoop,
          jobs: TOKENS.JobAdmin,
          clock: TOKENS.Clock,
          storage: TOKENS.FileStorage,
        },
        buildRegistry,
      ),
    );
    bindBuilt(
      bind(HealthTokens.CheckHealth),
      built(
        {
          registry: HealthTokens.Registry,
          clock: TOKENS.Clock,
          lifecycle: TOKENS.Lifecycle,
          config: TOKENS.Config,
          startedAt: TOKENS.StartedAt,
        },
        ({ registry, clock, lifecycle, config, startedAt }) =>
          new CheckHealth(registry, clock, lifecycle, { checkTimeoutMs: config.health.checkTimeoutMs, startedAt }),
      ),
    );
  }),
  rest: {
    always: true,
    operations: HEALTH_OPERATIONS,
    routes: built({ uses: HealthTokens.CheckHealth }, ({ uses }) => healthRoutes(uses)),
  },
};
