import { request } from 'node:http';

/** How long `/health/live` takes on a new connection (a probe), in ms; Infinity when it fails or is not 200. */
export function probeLive(url: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(`${url}/health/live`, { agent: false, timeout: 30_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200 ? performance.now() - started : Infinity));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(Infinity));
    req.end();
  });
}
