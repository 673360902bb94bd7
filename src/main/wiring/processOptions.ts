import type { SpanProcessor } from '@opentelemetry/sdk-trace-node';
import type { Logger } from 'pino';
import type { Config } from '../config/schema.js';
import type { FeatureModule } from '../modules/FeatureModule.js';

/** Who runs jobs (docs/jobs.md): `both` serves and runs them, `web` only stores them, `worker` runs them and serves only health. */
export type JobsMode = Config['jobs']['mode'];

/** What a process starts; the server, the worker and the CLI each say theirs. */
export interface ProcessOptions {
  /**
   * Whether the process serves: it listens (the API, or for a worker only the health paths; the
   * metrics), keeps in step with the other instances through Redis, traces, and runs jobs and
   * schedules. Without it the process is a command: it starts what its work needs, nothing that
   * listens or runs in the background.
   */
  readonly listen: boolean;
  /** Who runs jobs; `jobs.mode` by default. The worker says `worker`, whatever the configuration says. */
  readonly jobs?: JobsMode;
  /** Whether pending migrations are applied once the database is open; `database.migrate_on_start` by default. */
  readonly migrate?: boolean;
  /** Only the database and its migrations: for the commands that need nothing else (`migrate`, `policies:reset`). */
  readonly databaseOnly?: boolean;
  /** Defaults to a logger built from `log.level` / `log.format`. */
  readonly logger?: Logger;
  /**
   * With `tracing.otlp_endpoint` set: where the spans go instead of the OTLP exporter (tests give
   * an in-memory exporter's processor). Ignored while tracing is off.
   */
  readonly spanProcessor?: SpanProcessor;
  /** Bound on each SMTP phase (connect, greeting, socket silence); default 5000 ms (tests shorten it). */
  readonly smtpTimeoutMs?: number;
  /**
   * The feature modules it serves; the module list (`MODULES`, src/main/modules/index.ts) by default
   * (tests serve resources of their own beside it).
   */
  readonly modules?: readonly FeatureModule[];
  /** Told the name of each start-up step before it starts (tests make the N-th one fail). */
  readonly onStep?: (name: string) => void;
}
