import { createServer, type Server } from 'node:net';

/** The ports the service listens on by default: the API's and the metrics'. */
export const FIXED_PORTS = [8080, 9464] as const;
/** Where they are held: every IPv4 address, then loopback (taken already when the first is held). */
const HOSTS = ['0.0.0.0', '127.0.0.1'] as const;

/** Listens on `port` at `host`; `undefined` when it cannot (another process holds it: quietly). */
function hold(port: number, host: string): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const server = createServer((socket) => socket.destroy());
    server.once('error', () => resolve(undefined));
    server.listen({ port, host, exclusive: true }, () => resolve(server));
  });
}

let held: Server[] = [];

/** Whether this run holds `port` (not when another process held it first, and may let it go meanwhile). */
export const holdsPort = (port: number): boolean =>
  held.some((server) => {
    const address = server.address();
    return typeof address === 'object' && address?.port === port;
  });

/**
 * Mocha root hooks (.mocharc.json `require`): for the whole run, this process holds the service's
 * fixed ports where they are free, so a test that binds one — or starts a service that inherits
 * one — fails at once, here as it would beside a running `npm start` or a second checkout's tests.
 * A port another process holds already is left to it: that is the case this guards against.
 */
export const mochaHooks = {
  async beforeAll(): Promise<void> {
    for (const port of FIXED_PORTS)
      for (const host of HOSTS) {
        const server = await hold(port, host);
        if (server) held.push(server);
      }
  },
  async afterAll(): Promise<void> {
    await Promise.all(held.map((server) => new Promise((resolve) => server.close(resolve))));
    held = [];
  },
};
