import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Header } from '../http/runtime/index.js';
import type { ServiceMetrics } from './ServiceMetrics.js';

/** The health probes the management listener also serves, answered by the public app's own handler. */
export interface ProbeRoutes {
  paths: readonly string[];
  handle(req: IncomingMessage, res: ServerResponse): void;
}

/** The metrics listener, listening. */
export interface MetricsServer {
  /** `http://host:port/metrics`. */
  readonly url: string;
  /** `http://host:port`: where the health probes are served too. */
  readonly origin: string;
  close(): Promise<void>;
}

/** Raised when the metrics listener cannot listen; its message names `metrics.host`/`metrics.port`. */
export class MetricsListenError extends Error {}

/**
 * The management listener: serves `GET /metrics` (and HEAD) in the Prometheus text format on a
 * listener of its own, apart from the public app, so the API port never exposes them; and, when
 * `probes` is given, the health probes too, answered by the public app's handler exactly as on the
 * public port. A probe on this listener never queues behind the public port's connections, so it
 * answers within a turn or two of the event loop however many clients the public port holds (see
 * docs/adr/0015-load-shedding.md). Anything else there is 404. Every answer carries the service's
 * security headers (`headers`), as the API's do.
 */
export async function startMetricsServer(
  metrics: ServiceMetrics,
  host: string,
  port: number,
  headers: readonly Header[] = [],
  probes?: ProbeRoutes,
): Promise<MetricsServer> {
  const probePaths = new Set(probes?.paths ?? []);
  const server: Server = createServer((req, res) => {
    const path = req.url?.split('?')[0];
    if (probes && path !== undefined && probePaths.has(path)) {
      probes.handle(req, res);
      return;
    }
    for (const [name, value] of headers) res.setHeader(name, value);
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    metrics.text().then(
      (text) => {
        res.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n'),
    );
  });
  // A scrape is one short request; never let an idle connection hold the listener's close.
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    const fail = (error: NodeJS.ErrnoException): void => {
      const why =
        error.code === 'EADDRINUSE'
          ? 'is already in use'
          : ['ENOTFOUND', 'EADDRNOTAVAIL', 'EAI_AGAIN'].includes(error.code ?? '')
            ? 'is not an address this machine can listen on'
            : `cannot be listened on (${error.message})`;
      reject(
        new MetricsListenError(
          `metrics.port: ${host}:${port} ${why} (metrics.host/metrics.port; metrics.enabled false turns them off)`,
        ),
      );
    };
    server.once('error', fail);
    server.listen({ port, host }, () => {
      server.off('error', fail);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const origin = `http://${shown === '0.0.0.0' ? 'localhost' : shown === '[::]' ? 'localhost' : shown}:${address.port}`;
  return {
    url: `${origin}/metrics`,
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
