import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { Api } from '../support/api.js';
import { testConfig } from '../support/config.js';
import { silentLogger } from '../support/logger.js';
import { runEntry, startEntry } from '../support/process.js';

interface Report {
  status: string;
  uptime: string;
  timestamp: string;
  checks: Record<string, { status: string; message?: string; latency: string }>;
}

describe('the service (end to end)', () => {
  describe('started in process on SQLite in memory', () => {
    let service: RunningService;
    before(async () => {
      service = await startService(testConfig(), { logger: silentLogger() });
    });
    after(async () => service.stop());

    it('is ready, with the database up, and lists every built-in check on /health', async () => {
      const api = new Api(service.url);
      const ready = await api.get('/health/ready');
      expect(ready.status).to.equal(200);
      expect(ready.headers.get('cache-control')).to.equal('no-store');
      const report = ready.body as Report;
      expect(report.status).to.equal('up');
      expect(report.checks.database!.status).to.equal('up');
      expect(Object.keys(report.checks).sort()).to.deep.equal(['database', 'disk', 'event_loop', 'storage']);
      const all = (await api.get('/health')).body as Report;
      // The jobs check is in the full report only: jobs are the service's, not this instance's readiness.
      expect(Object.keys(all.checks).sort()).to.deep.equal(['database', 'disk', 'event_loop', 'jobs', 'storage']);
      expect(all.checks.jobs!.status).to.equal('up');
    });

    it('keeps liveness free of the database', async () => {
      const live = (await new Api(service.url).get('/health/live')).body as Report;
      expect(Object.keys(live.checks)).to.deep.equal(['event_loop']);
    });
  });

  describe('graceful shutdown', () => {
    let slow: Server;
    let slowUrl: string;
    let release: () => void = () => undefined;

    before(async () => {
      slow = createServer((_req, res) => {
        release = () => res.writeHead(200).end('ok');
      });
      await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
      slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/`;
    });
    after(() => {
      slow.closeAllConnections();
      slow.close();
    });

    it('lets an in-flight request finish, refuses new connections, and reports readiness down meanwhile', async () => {
      const service = await startService(
        testConfig({
          SVC_HEALTH_HTTP: JSON.stringify([{ name: 'upstream', url: slowUrl, timeout: '5s' }]),
          SVC_HEALTH_CHECK_TIMEOUT: '5s',
        }),
        { logger: silentLogger() },
      );
      // A keep-alive connection opened before the shutdown, to watch readiness during it.
      const inFlight = fetch(`${service.url}/health/ready`);
      await new Promise((r) => setTimeout(r, 100));
      const stopped = service.stop();
      await new Promise((r) => setTimeout(r, 50));
      const refused = await fetch(`${service.url}/health/live`).then(
        () => 'answered',
        () => 'refused',
      );
      expect(refused).to.equal('refused');
      release();
      const response = await inFlight;
      expect(response.status).to.equal(503);
      const report = (await response.json()) as Report;
      expect(report.checks.upstream!.status).to.equal('up');
      expect(report.checks.shutdown).to.deep.include({ status: 'down', message: 'service is shutting down' });
      await stopped;
    });

    it('does not wait past server.shutdown_timeout for a request that never ends', async () => {
      const service = await startService(
        testConfig({
          SVC_HEALTH_HTTP: JSON.stringify([{ name: 'upstream', url: slowUrl, timeout: '30s' }]),
          SVC_HEALTH_CHECK_TIMEOUT: '30s',
          SVC_SERVER_SHUTDOWN_TIMEOUT: '300ms',
        }),
        { logger: silentLogger() },
      );
      const hanging = new Promise<string>((resolve) => {
        const req = request(`${service.url}/health`, (res) => resolve(String(res.statusCode)));
        req.on('error', () => resolve('cut'));
        req.end();
      });
      await new Promise((r) => setTimeout(r, 100));
      const started = Date.now();
      await service.stop();
      expect(Date.now() - started).to.be.lessThan(2000);
      expect(await hanging).to.equal('cut');
      release();
    });
  });

  describe('npm start (the process)', function () {
    this.timeout(60_000);
    const dir = mkdtempSync(join(tmpdir(), 'portico-e2e-'));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('prints where it listens, serves /health/ready on a SQLite file, and exits 0 on SIGTERM', async () => {
      const { child, match } = await startEntry(
        'src/main/server.ts',
        {
          SVC_SERVER_PORT: '0',
          SVC_SERVER_HOST: '127.0.0.1',
          SVC_DATABASE_URL: `sqlite:${join(dir, 'db', 'portico.sqlite')}`,
          SVC_LOG_LEVEL: 'warn',
        },
        /Portico listening on (http:\/\/127\.0\.0\.1:\d+) \(api: rest, database: sqlite \S+portico\.sqlite, env: development\)/,
      );
      const ready = await fetch(`${match[1]}/health/ready`);
      expect(ready.status).to.equal(200);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).to.equal(0);
    });

    it('exits 1 naming server.host when the host cannot be listened on', async () => {
      const result = await runEntry('src/main/server.ts', [], {
        SVC_SERVER_HOST: 'not..a..host',
        SVC_SERVER_PORT: '0',
        SVC_DATABASE_URL: `sqlite:${join(dir, 'host.sqlite')}`,
        SVC_LOG_LEVEL: 'silent',
      });
      expect(result.code).to.equal(1);
      expect(result.stderr.trim()).to.equal(
        'portico: server.host: "not..a..host" is not an address this machine can listen on',
      );
    });

    it('exits 1 with one clear line when the database cannot be reached', async () => {
      const result = await runEntry('src/main/server.ts', [], {
        SVC_DATABASE_URL: 'postgres://portico:pw-secret@127.0.0.1:9/portico',
        SVC_SERVER_PORT: '0',
      });
      expect(result.code).to.equal(1);
      const lines = result.stderr.trim().split('\n');
      expect(lines).to.have.length(1);
      expect(lines[0]).to.match(/^portico: database: cannot connect to postgresql 127\.0\.0\.1:9\/portico: /);
      expect(result.stderr).not.to.include('pw-secret');
    });
  });

  describe('npm run cli', function () {
    this.timeout(60_000);
    const dir = mkdtempSync(join(tmpdir(), 'portico-cli-'));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('migrate applies pending migrations and exits 0', async () => {
      const result = await runEntry('src/main/cli.ts', ['migrate'], {
        SVC_DATABASE_URL: `sqlite:${join(dir, 'cli.sqlite')}`,
      });
      expect(result.stderr).to.equal('');
      expect(result.code).to.equal(0);
      expect(result.stdout).to.match(/^(no pending migrations|applied \d+ migration\(s\)) /);
    });

    it('--help lists the commands', async () => {
      const result = await runEntry('src/main/cli.ts', ['--help'], {});
      expect(result.code).to.equal(0);
      expect(result.stdout).to.include('usage: npm run cli -- <command>');
      expect(result.stdout).to.match(/^\s+migrate\s+apply pending database migrations/m);
    });

    it('refuses an unknown command and stray arguments with a non-zero exit', async () => {
      const unknown = await runEntry('src/main/cli.ts', ['frobnicate'], {});
      expect(unknown.code).to.equal(2);
      expect(unknown.stderr).to.include('unknown command "frobnicate"');
      const stray = await runEntry('src/main/cli.ts', ['migrate', '--now'], {});
      expect(stray.code).to.equal(2);
      expect(stray.stderr).to.include('migrate takes no arguments');
    });

    it('exits 1 with one line when the database cannot be reached', async () => {
      const result = await runEntry('src/main/cli.ts', ['migrate'], {
        SVC_DATABASE_URL: 'postgres://u:p@127.0.0.1:9/x',
      });
      expect(result.code).to.equal(1);
      expect(result.stderr.trim().split('\n')).to.have.length(1);
      expect(result.stderr).to.match(/^portico: database: cannot connect/);
    });
  });
});
