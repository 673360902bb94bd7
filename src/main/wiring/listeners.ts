import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Container } from 'inversify';
import { HEALTH_PATHS } from '../../adapters/inbound/http/routes/health.js';
import {
  createHttpServer,
  securityHeaderList,
  type Header,
  type HttpServer,
} from '../../adapters/inbound/http/runtime/index.js';
import { startMetricsServer, type MetricsServer } from '../../adapters/inbound/metrics/metricsServer.js';
import type { ServiceMetrics } from '../../adapters/inbound/metrics/ServiceMetrics.js';
import type { Config } from '../config/schema.js';
import { TOKENS } from './tokens.js';

/** The accept queue asked of the kernel (which caps it at net.core.somaxconn, 4096 by default). */
const LISTEN_BACKLOG = 4096;

/** What both listeners answer with: the HTTP app's handler and the headers every answer carries. */
export interface Serving {
  readonly serve: (req: IncomingMessage, res: ServerResponse) => void;
  readonly securityHeaders: readonly Header[];
}

/** The API's server, listening, and where: `http://host:port` (`0.0.0.0` shown as `localhost`). */
export interface ApiListener extends HttpServer {
  readonly url: string;
}

/** The container's HTTP app as a Node request handler, and the configured security headers. */
export function servingOf(container: Container, config: Config): Serving {
  const handle = container.get(TOKENS.HttpApp).callback();
  return {
    serve: (req, res) => void handle(req, res),
    securityHeaders: securityHeaderList({ hsts: config.server.hsts }),
  };
}

/** The API's HTTP server, listening on `server.host:server.port`. */
export async function listenApi({ serve, securityHeaders }: Serving, config: Config): Promise<ApiListener> {
  const created = createHttpServer(serve, {
    headersTimeoutMs: config.server.headersTimeoutMs,
    requestTimeoutMs: config.server.requestTimeoutMs,
    maxConnectionsPerIp: config.server.maxConnectionsPerIp,
    securityHeaders,
  });
  const { server } = created;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A connection storm past Node's default accept queue of 511 has its SYNs dropped (clients
    // retry after 1, 3, 7, 15 s); the kernel caps the backlog at somaxconn.
    server.listen({ port: config.server.port, host: config.server.host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return { ...created, url: urlOf(server) };
}

/** The metrics listener on `metrics.host:metrics.port`, which answers the health probes too. */
export function listenMetrics(metrics: ServiceMetrics, serving: Serving, config: Config): Promise<MetricsServer> {
  return startMetricsServer(metrics, config.metrics.host, config.metrics.port, serving.securityHeaders, {
    paths: HEALTH_PATHS,
    handle: serving.serve,
  });
}

function urlOf(server: Server): string {
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host === '0.0.0.0' ? 'localhost' : host}:${address.port}`;
}
