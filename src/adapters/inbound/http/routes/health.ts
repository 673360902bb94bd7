import type Router from '@koa/router';
import type { CheckHealth } from '../../../../application/health/CheckHealth.js';
import type { Probe } from '../../../../application/health/HealthCheckRegistry.js';
import type { HealthReport } from '../../../../domain/health/Health.js';
import { formatDuration } from '../../../../domain/shared/Duration.js';
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

/** `/health`, `/health/ready`, `/health/live`: 200 when up or degraded, 503 when down; never cached. */
export function healthRoutes(checkHealth: CheckHealth): (router: Router<RequestState>) => void {
  const probes: [string, Probe][] = [
    ['/health', 'all'],
    ['/health/ready', 'readiness'],
    ['/health/live', 'liveness'],
  ];
  return (router) => {
    for (const [path, probe] of probes) {
      router.get(path, async (ctx) => {
        const report = await checkHealth.execute(probe);
        ctx.set('Cache-Control', 'no-store');
        ctx.status = report.status === 'down' ? 503 : 200;
        ctx.body = presentHealthReport(report);
      });
    }
  };
}
