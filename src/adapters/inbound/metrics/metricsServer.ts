import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Header } from '../http/middleware/securityHeaders.js';
import type { ServiceMetrics } from './ServiceMetrics.js';

/** The metrics listener, listening. */
export interface MetricsServer {
  /** `http://host:port/metrics`. */
  readonly url: string;
  close(): Promise<void>;
}

/** Raised when the metrics listener cannot listen; its message names `metrics.host`/`metrics.port`. */
export class MetricsListenError extends Error {}

/**
 * Serves `GET /metrics` (and HEAD) in the Prometheus text format on a listener of its own, apart
 * from the public app, so the API port never exposes them. Anything else there is 404. Every
 * answer carries the service's security headers (`headers`), as the API's do.
 */
export async function startMetricsServer(
  metrics: ServiceMetrics,
  host: string,
  port: number,
  headers: readonly Header[] = [],
): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    const path = req.url?.split('?')[0];
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
  const url = `http://${shown === '0.0.0.0' ? 'localhost' : shown === '[::]' ? 'localhost' : shown}:${address.port}/metrics`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
