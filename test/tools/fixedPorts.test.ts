import { createServer } from 'node:net';
import { expect } from 'chai';
import { FIXED_PORTS, holdsPort } from '../support/fixedPorts.js';
import { childEnv } from '../support/process.js';

/** The error code of listening on `port` at `host`, or 'listening' when it could. */
function listenOn(port: number, host: string): Promise<string> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve('listening')));
  });
}

describe('tests never listen on fixed ports', () => {
  for (const port of FIXED_PORTS)
    for (const host of ['127.0.0.1', '0.0.0.0'])
      it(`a test that listens on ${host}:${port} fails: the run holds it`, async function () {
        // Another process held it first: the case the hook guards against, and not the run's to test.
        if (!holdsPort(port)) this.skip();
        expect(await listenOn(port, host)).to.equal('EADDRINUSE');
      });

  it('a child process gets ephemeral ports for the API and the metrics unless its test names others', () => {
    expect(childEnv({})).to.include({ SVC_SERVER_PORT: '0', SVC_METRICS_PORT: '0' });
    expect(childEnv({ SVC_SERVER_PORT: 'abc' })).to.include({ SVC_SERVER_PORT: 'abc', SVC_METRICS_PORT: '0' });
  });
});
