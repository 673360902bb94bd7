import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpApp, type HttpAppOptions } from '../../src/adapters/inbound/http/app.js';
import { silentLogger } from './logger.js';

/** The defaults of docs/configuration.md, as the HTTP adapter sees them. */
export function defaultHttpOptions(): HttpAppOptions {
  return {
    logger: silentLogger(),
    trustProxy: false,
    trustProxyHops: 1,
    requestTimeoutMs: 30_000,
    bodyLimitBytes: 1024 * 1024,
    cors: {
      allowedOrigins: ['*'],
      allowedMethods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
      allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-ID'],
      exposedHeaders: [
        'X-Request-ID',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'Retry-After',
      ],
      allowCredentials: false,
      maxAgeMs: 12 * 3600_000,
    },
    rateLimiter: null,
    newRequestId: randomUUID,
    routes: [],
  };
}

export interface RunningApp {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Starts the real Koa app on an ephemeral loopback port. */
export async function startHttpApp(overrides: Partial<HttpAppOptions> = {}): Promise<RunningApp> {
  const app = createHttpApp({ ...defaultHttpOptions(), ...overrides });
  const handle = app.callback();
  const server = createServer((req, res) => {
    void handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
