import { expect } from 'chai';
import { healthRoutes } from '../../../../src/adapters/inbound/http/routes/health.js';
import { SystemClock } from '../../../../src/adapters/outbound/system/SystemClock.js';
import { CheckHealth } from '../../../../src/application/health/CheckHealth.js';
import { HealthCheckRegistry, type CheckScope } from '../../../../src/application/health/HealthCheckRegistry.js';
import type { CheckOutcome, HealthCheck } from '../../../../src/application/ports/HealthCheck.js';
import type { HealthStatus } from '../../../../src/domain/health/Health.js';
import { startHttpApp, type RunningApp } from '../../../support/httpApp.js';

interface WireCheck {
  status: HealthStatus;
  message?: string;
  latency: string;
}

interface WireReport {
  status: HealthStatus;
  timestamp: string;
  uptime: string;
  checks: Record<string, WireCheck>;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const LATENCY = /^\d+(\.\d+)?(µs|ms|ns|s)$/;
const UPTIME = /^(\d+h)?(\d+m)?\d+s$/;

/** A check that answers whatever it is told to, after an optional delay. */
class FakeCheck implements HealthCheck {
  constructor(
    readonly name: string,
    public outcome: CheckOutcome | Error,
    private readonly delayMs = 0,
  ) {}

  async check(signal: AbortSignal): Promise<CheckOutcome> {
    if (this.delayMs > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.delayMs);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    if (this.outcome instanceof Error) throw this.outcome;
    return this.outcome;
  }
}

describe('HTTP adapter: health routes', () => {
  let app: RunningApp;
  let shuttingDown: boolean;

  async function start(
    checks: [HealthCheck, CheckScope?][],
    options: { startedAt?: Date; checkTimeoutMs?: number } = {},
  ): Promise<void> {
    const registry = new HealthCheckRegistry();
    for (const [check, scope] of checks) registry.register(check, scope);
    const checkHealth = new CheckHealth(
      registry,
      new SystemClock(),
      { isShuttingDown: () => shuttingDown },
      {
        checkTimeoutMs: options.checkTimeoutMs ?? 1000,
        startedAt: options.startedAt ?? new Date(),
      },
    );
    app = await startHttpApp({ routes: [healthRoutes(checkHealth)] });
  }

  async function get(path: string): Promise<{ res: Response; report: WireReport }> {
    const res = await fetch(`${app.url}${path}`);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    return { res, report: (await res.json()) as WireReport };
  }

  beforeEach(() => {
    shuttingDown = false;
  });
  afterEach(async () => {
    await app.close();
  });

  describe('status codes', () => {
    it('answers 200 `up` with no checks at all', async () => {
      await start([]);
      for (const path of ['/health', '/health/ready', '/health/live']) {
        const { res, report } = await get(path);
        expect(res.status, path).to.equal(200);
        expect(report.status).to.equal('up');
        expect(report.checks).to.deep.equal({});
      }
    });

    it('answers 200 `up` when every check is up', async () => {
      await start([[new FakeCheck('database', { status: 'up' })], [new FakeCheck('disk', { status: 'up' })]]);
      const { res, report } = await get('/health');
      expect(res.status).to.equal(200);
      expect(report.status).to.equal('up');
      expect(Object.keys(report.checks)).to.have.members(['database', 'disk']);
    });

    it('answers 200 `degraded` when one check is degraded', async () => {
      await start([
        [new FakeCheck('database', { status: 'up' })],
        [new FakeCheck('event_loop', { status: 'degraded', message: 'p99 delay 250ms' })],
      ]);
      const { res, report } = await get('/health');
      expect(res.status).to.equal(200);
      expect(report.status).to.equal('degraded');
      expect(report.checks.event_loop).to.include({ status: 'degraded', message: 'p99 delay 250ms' });
    });

    it('answers 200 `degraded` when some checks are down and others up', async () => {
      await start([
        [new FakeCheck('database', { status: 'up' })],
        [new FakeCheck('cache', { status: 'down', message: 'unreachable' })],
      ]);
      const { res, report } = await get('/health');
      expect(res.status).to.equal(200);
      expect(report.status).to.equal('degraded');
    });

    it('answers 503 `down` when every check is down', async () => {
      await start([
        [new FakeCheck('database', { status: 'down', message: 'unreachable' })],
        [new FakeCheck('disk', new Error('disk gone'))],
      ]);
      const { res, report } = await get('/health');
      expect(res.status).to.equal(503);
      expect(report.status).to.equal('down');
      expect(report.checks.database).to.include({ status: 'down', message: 'unreachable' });
      expect(report.checks.disk).to.include({ status: 'down', message: 'disk gone' });
    });

    it('reports a check that runs past the check timeout as down with message `timeout`', async () => {
      await start([[new FakeCheck('http', { status: 'up' }, 2000)]], { checkTimeoutMs: 50 });
      const started = performance.now();
      const { res, report } = await get('/health');
      expect(performance.now() - started).to.be.below(1000);
      expect(res.status).to.equal(503);
      expect(report.checks.http).to.include({ status: 'down', message: 'timeout' });
    });
  });

  describe('headers and body', () => {
    it('sends Cache-Control: no-store on every probe, whatever the status', async () => {
      await start([[new FakeCheck('database', { status: 'up' })]]);
      for (const path of ['/health', '/health/ready', '/health/live']) {
        const res = await fetch(`${app.url}${path}`);
        expect(res.headers.get('cache-control'), path).to.equal('no-store');
      }
      await app.close();
      await start([[new FakeCheck('database', { status: 'down' })]]);
      const down = await fetch(`${app.url}/health`);
      expect(down.status).to.equal(503);
      expect(down.headers.get('cache-control')).to.equal('no-store');
    });

    it('has the HealthReport shape: status, RFC 3339 timestamp, uptime, checks', async () => {
      await start([
        [new FakeCheck('database', { status: 'up' })],
        [new FakeCheck('event_loop', { status: 'degraded', message: 'slow' })],
      ]);
      const before = Date.now();
      const { report } = await get('/health');
      expect(report).to.have.all.keys('status', 'timestamp', 'uptime', 'checks');
      expect(report.timestamp).to.match(RFC3339);
      const at = Date.parse(report.timestamp);
      expect(at).to.be.within(before - 1000, Date.now() + 1000);
      expect(report.uptime).to.equal('0s');
      expect(Object.keys(report.checks)).to.have.members(['database', 'event_loop']);
      expect(report.checks.database).to.have.all.keys('status', 'latency');
      expect(report.checks.event_loop).to.have.all.keys('status', 'message', 'latency');
      for (const check of Object.values(report.checks)) expect(check.latency).to.match(LATENCY);
    });

    it('prints the uptime in whole seconds, Go style', async () => {
      await start([], { startedAt: new Date(Date.now() - 1500) });
      expect((await get('/health')).report.uptime).to.equal('1s');
      await app.close();
      await start([], { startedAt: new Date(Date.now() - (72 * 3600 + 30 * 60 + 15) * 1000 - 400) });
      const { report } = await get('/health');
      expect(report.uptime).to.match(UPTIME);
      expect(report.uptime).to.equal('72h30m15s');
    });

    it('omits the message of a check when it is empty', async () => {
      await start([
        [new FakeCheck('database', { status: 'up', message: '' })],
        [new FakeCheck('disk', { status: 'up' })],
      ]);
      const { report } = await get('/health');
      expect(report.checks.database).to.not.have.property('message');
      expect(report.checks.disk).to.not.have.property('message');
    });

    it('prints a measured latency like a Go duration', async () => {
      await start([[new FakeCheck('http', { status: 'up' }, 20)]]);
      const { report } = await get('/health');
      const latency = report.checks.http!.latency;
      expect(latency).to.match(LATENCY);
      expect(latency, 'about 20ms').to.match(/^\d+(\.\d{1,3})?ms$/);
      expect(Number.parseFloat(latency)).to.be.within(15, 1000);
    });
  });

  describe('probes', () => {
    const scoped = (): [HealthCheck, CheckScope?][] => [
      [new FakeCheck('database', { status: 'down', message: 'unreachable' }), 'readiness'],
      [new FakeCheck('event_loop', { status: 'up' }), 'liveness'],
      [new FakeCheck('disk', { status: 'up' })],
    ];

    it('readiness runs the readiness checks: a down database beside an up disk is 200 `degraded`', async () => {
      await start(scoped());
      const { res, report } = await get('/health/ready');
      expect(Object.keys(report.checks)).to.have.members(['database', 'disk']);
      expect(report.checks.database!.status).to.equal('down');
      expect(report.status).to.equal('degraded');
      expect(res.status).to.equal(200);
    });

    it('liveness never depends on the database', async () => {
      await start(scoped());
      const { res, report } = await get('/health/live');
      expect(res.status).to.equal(200);
      expect(report.status).to.equal('up');
      expect(Object.keys(report.checks)).to.have.members(['event_loop', 'disk']);
    });

    it('/health runs every check', async () => {
      await start(scoped());
      const { report } = await get('/health');
      expect(Object.keys(report.checks)).to.have.members(['database', 'event_loop', 'disk']);
    });

    it('readiness is 503 `down` while the service is shutting down; liveness stays 200', async () => {
      await start([[new FakeCheck('database', { status: 'up' })]]);
      expect((await get('/health/ready')).res.status).to.equal(200);
      shuttingDown = true;
      const ready = await get('/health/ready');
      expect(ready.res.status).to.equal(503);
      expect(ready.report.status).to.equal('down');
      expect(ready.res.headers.get('cache-control')).to.equal('no-store');
      const live = await get('/health/live');
      expect(live.res.status).to.equal(200);
      expect(live.report.status).to.equal('up');
    });

    it('answers HEAD on liveness like GET', async () => {
      await start([]);
      const res = await fetch(`${app.url}/health/live`, { method: 'HEAD' });
      expect(res.status).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('no-store');
    });
  });
});
