import type Router from '@koa/router';
import type { CheckHealth } from '../../../../application/health/CheckHealth.js';
import type { Probe } from '../../../../application/health/HealthCheckRegistry.js';
import type { HealthReport } from '../../../../domain/health/Health.js';
import { formatDuration } from '../../../../domain/shared/Duration.js';
import { closedObject, WIRE, type JsonSchema } from '../../codecs/jsonSchema.js';
import { operation, raw, RestRoutes, type Operation } from '../operations.js';
import type { RequestState } from '../state.js';

/** The seed's HealthReport on the wire: RFC 3339 timestamp, Go-style durations. */
export function presentHealthReport(report: HealthReport): Record<string, unknown> {
  const checks: Record<string, Record<string, string>> = {};
  for (const [name, result] of Object.entries(report.checks)) {
    checks[name] = {
      status: result.status,
      ...(result.message ? { message: result.message } : {}),
      // Go prints latencies to the microsecond here.
      latency: formatDuration(Math.round(result.latencyMs * 1000) / 1000),
    };
  }
  return {
    status: report.status,
    timestamp: report.timestamp.toISOString(),
    uptime: formatDuration(Math.floor(report.uptimeMs / 1000) * 1000),
    checks,
  };
}

export const HEALTH_PATHS = ['/health', '/health/ready', '/health/live'] as const;

const STATUS: JsonSchema = { type: 'string', enum: ['up', 'degraded', 'down'] };
const GO_DURATION: JsonSchema = {
  type: 'string',
  pattern: '^([0-9.]+(h|m|s|ms|µs|ns))+$|^0s$',
  description: 'A Go time.Duration (`72h30m15s`, `1.234ms`, `850µs`)',
};

/** The HealthReport `presentHealthReport` writes. */
const HEALTH_REPORT_SCHEMA: JsonSchema = {
  title: 'HealthReport',
  ...closedObject({
    status: {
      ...STATUS,
      description: 'up; degraded (a check is down or degraded but the service works); down (a critical check is down)',
    },
    timestamp: WIRE.dateTime,
    uptime: { ...GO_DURATION, description: 'Time since start, in whole seconds', examples: ['72h30m15s'] },
    checks: {
      type: 'object',
      description: 'Each check by its name (database, cache, disk, event_loop, and every health.http entry)',
      additionalProperties: {
        type: 'object',
        properties: { status: STATUS, message: { type: 'string' }, latency: { ...GO_DURATION, examples: ['1.234ms'] } },
        required: ['status', 'latency'],
        additionalProperties: false,
      },
    },
  }),
};

const tag = {
  name: 'health',
  description: 'Probes for load balancers and orchestrators (README: Health); never rate limited, never need a token',
};

const probe = (id: string, path: (typeof HEALTH_PATHS)[number], summary: string, description: string) =>
  operation({
    id,
    method: 'GET',
    path,
    tag,
    summary,
    description: `${description} Never cached (\`Cache-Control: no-store\`).`,
    access: 'public',
    rateLimited: false,
    answers: [raw(200, 'Up or degraded', HEALTH_REPORT_SCHEMA), raw(503, 'Down', HEALTH_REPORT_SCHEMA)],
  });

/** The three probes, and which checks each runs. */
export const HEALTH_OPERATIONS: readonly (Operation & { readonly probe: Probe })[] = [
  { ...probe('health', '/health', 'Every check', 'Every check, liveness and readiness.'), probe: 'all' },
  {
    ...probe(
      'readiness',
      '/health/ready',
      'Readiness',
      'Whether to send traffic here: the database, Redis when configured, the disk; down while shutting down.',
    ),
    probe: 'readiness',
  },
  {
    ...probe(
      'liveness',
      '/health/live',
      'Liveness',
      'Whether the process works (never the database): a restart is the cure when down.',
    ),
    probe: 'liveness',
  },
];

/** `/health`, `/health/ready`, `/health/live`: 200 when up or degraded, 503 when down; never cached. */
export function healthRoutes(checkHealth: CheckHealth): (router: Router<RequestState>) => void {
  return (router) => {
    const api = new RestRoutes(router);
    for (const op of HEALTH_OPERATIONS) {
      api.on(op, async (ctx) => {
        const report = await checkHealth.execute(op.probe);
        ctx.set('Cache-Control', 'no-store');
        ctx.status = report.status === 'down' ? 503 : 200;
        ctx.body = presentHealthReport(report);
      });
    }
  };
}
