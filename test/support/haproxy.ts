import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Debian's HAProxy, which the fault suites put in front of several instances. */
export const HAPROXY = '/usr/sbin/haproxy';

/**
 * A balancer as operators run one, in front of `backends` on `frontPort`: round robin, health
 * checks on /health/ready, and only what never reached a server retried — a 503 from the service is
 * passed on, so it counts. `forwardFor` adds the client's address in `X-Forwarded-For` (for
 * instances that trust the proxy).
 */
export function haproxyConfig(
  frontPort: number,
  backends: readonly number[],
  { maxconn = 4000, forwardFor = false }: { maxconn?: number; forwardFor?: boolean } = {},
): string {
  return `global
  maxconn ${maxconn}
defaults
  mode http
  timeout connect 1s
  timeout client 30s
  timeout server 30s
  retries 3
  option redispatch
  retry-on conn-failure empty-response
frontend portico
  bind 127.0.0.1:${frontPort}
${forwardFor ? '  option forwardfor\n' : ''}  default_backend instances
backend instances
  balance roundrobin
  option httpchk GET /health/ready
  http-check expect status 200
  # A busy instance may take longer than the check interval to answer; only a failed check counts.
  timeout check 2s
  default-server inter 200ms fall 2 rise 2
${backends.map((port, i) => `  server i${i} 127.0.0.1:${port} check`).join('\n')}
`;
}

/** Starts HAProxy in the foreground with that configuration, written into `dir`. */
export function startHaproxy(dir: string, config: string): ChildProcess {
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, config);
  return spawn(HAPROXY, ['-f', file, '-db'], { stdio: ['ignore', 'ignore', 'pipe'] });
}
