import { expect } from 'chai';
import { CheckHealth, type Lifecycle } from '../../../src/application/health/CheckHealth.js';
import { HealthCheckRegistry } from '../../../src/application/health/HealthCheckRegistry.js';
import type { CheckOutcome, HealthCheck } from '../../../src/application/ports/HealthCheck.js';
import type { HealthReport } from '../../../src/domain/health/Health.js';
import { FixedClock } from '../../support/FixedClock.js';

const TIMEOUT_MS = 2000;

/** A check that answers after `afterMs` on the test clock (0: on the next microtask), like a real async probe. */
class FakeCheck implements HealthCheck {
  calls = 0;
  signals: AbortSignal[] = [];
  constructor(
    readonly name: string,
    private readonly outcome: CheckOutcome,
    private readonly clock?: FixedClock,
    private readonly afterMs = 0,
  ) {}

  async check(signal: AbortSignal): Promise<CheckOutcome> {
    this.calls += 1;
    this.signals.push(signal);
    if (this.clock && this.afterMs > 0) await this.clock.delay(this.afterMs).promise;
    else await Promise.resolve();
    return this.outcome;
  }
}

/** A check that rejects with `error`, asynchronously like a failed driver call. */
class FailingCheck implements HealthCheck {
  constructor(
    readonly name: string,
    private readonly error: unknown,
  ) {}

  async check(): Promise<CheckOutcome> {
    await Promise.resolve();
    throw this.error;
  }
}

/** A check that never answers by itself; it gives up (rejects) only when its signal aborts. */
class HangingCheck implements HealthCheck {
  signal: AbortSignal | undefined;
  constructor(readonly name: string) {}

  check(signal: AbortSignal): Promise<CheckOutcome> {
    this.signal = signal;
    return new Promise((_resolve, reject) => {
      signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    });
  }
}

class FakeLifecycle implements Lifecycle {
  shuttingDown = false;
  isShuttingDown(): boolean {
    return this.shuttingDown;
  }
}

/** Lets pending promise callbacks run (no timers involved). */
async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

describe('CheckHealth', () => {
  let clock: FixedClock;
  let registry: HealthCheckRegistry;
  let lifecycle: FakeLifecycle;
  let startedAt: Date;
  let useCase: CheckHealth;

  beforeEach(() => {
    clock = new FixedClock(new Date('2026-01-01T00:00:00Z'));
    registry = new HealthCheckRegistry();
    lifecycle = new FakeLifecycle();
    startedAt = new Date('2025-12-31T23:00:00Z');
    useCase = new CheckHealth(registry, clock, lifecycle, { checkTimeoutMs: TIMEOUT_MS, startedAt });
  });

  describe('probe selection', () => {
    beforeEach(() => {
      registry
        .register(new FakeCheck('database', { status: 'up' }), 'readiness')
        .register(new FakeCheck('event_loop', { status: 'up' }), 'both')
        .register(new FakeCheck('process', { status: 'up' }), 'liveness')
        .register(new FakeCheck('disk', { status: 'up' }))
        .register(new FakeCheck('jobs', { status: 'degraded' }), 'report');
    });

    it('registers a check for both probes by default', () => {
      expect(registry.checksFor('readiness').map((c) => c.name)).to.include('disk');
      expect(registry.checksFor('liveness').map((c) => c.name)).to.include('disk');
    });

    it('readiness runs the readiness and both-probe checks, in registration order', async () => {
      const report = await useCase.execute('readiness');
      expect(Object.keys(report.checks)).to.deep.equal(['database', 'event_loop', 'disk']);
      expect(report.status).to.equal('up');
    });

    it('liveness runs the liveness and both-probe checks, never a readiness-only one', async () => {
      const report = await useCase.execute('liveness');
      expect(Object.keys(report.checks)).to.deep.equal(['event_loop', 'process', 'disk']);
    });

    it('all runs every registered check', async () => {
      const report = await useCase.execute('all');
      expect(Object.keys(report.checks)).to.deep.equal(['database', 'event_loop', 'process', 'disk', 'jobs']);
      expect(report.status).to.equal('degraded');
    });
  });

  it('refuses a second check with the same name', () => {
    registry.register(new FakeCheck('database', { status: 'up' }), 'readiness');
    expect(() => registry.register(new FakeCheck('database', { status: 'down' }), 'liveness')).to.throw(
      'health check "database" is already registered',
    );
    expect(registry.checksFor('all')).to.have.length(1);
  });

  it('reports no checks as up, with timestamp and uptime from the clock', async () => {
    const report = await useCase.execute('all');
    expect(report).to.deep.equal({
      status: 'up',
      timestamp: new Date('2026-01-01T00:00:00Z'),
      uptimeMs: 3_600_000,
      checks: {},
    } satisfies HealthReport);
  });

  it('measures uptime from startedAt as the clock moves', async () => {
    clock.advance(15_000);
    const report = await useCase.execute('liveness');
    expect(report.uptimeMs).to.equal(3_615_000);
    expect(report.timestamp).to.deep.equal(new Date('2026-01-01T00:00:15Z'));
  });

  it('reports each check with its outcome and the latency measured on the clock', async () => {
    registry
      .register(new FakeCheck('database', { status: 'up' }, clock, 5))
      .register(
        new FakeCheck('event_loop', { status: 'degraded', message: 'event-loop delay p99 is 250ms' }, clock, 12),
      );
    const pending = useCase.execute('all');
    clock.advance(5);
    await flush();
    clock.advance(7);
    const report = await pending;
    expect(report.status).to.equal('degraded');
    expect(report.checks).to.deep.equal({
      database: { status: 'up', latencyMs: 5 },
      event_loop: { status: 'degraded', message: 'event-loop delay p99 is 250ms', latencyMs: 12 },
    });
  });

  it('runs the checks of a probe concurrently', async () => {
    const a = new FakeCheck('a', { status: 'up' }, clock, 100);
    const b = new FakeCheck('b', { status: 'down', message: 'refused' }, clock, 100);
    registry.register(a).register(b);
    const pending = useCase.execute('all');
    expect([a.calls, b.calls]).to.deep.equal([1, 1]);
    clock.advance(100);
    const report = await pending;
    expect(report.checks).to.deep.equal({
      a: { status: 'up', latencyMs: 100 },
      b: { status: 'down', message: 'refused', latencyMs: 100 },
    });
    expect(report.status).to.equal('degraded');
  });

  it('reports a check that rejects as down with its message', async () => {
    registry
      .register(new FakeCheck('disk', { status: 'up' }))
      .register(new FailingCheck('cache', new Error('connection refused')));
    const report = await useCase.execute('all');
    expect(report.status).to.equal('degraded');
    expect(report.checks['cache']).to.deep.equal({ status: 'down', message: 'connection refused', latencyMs: 0 });
  });

  it('reports a check that throws synchronously as down with its message', async () => {
    const throwing: HealthCheck = {
      name: 'broken',
      check: () => {
        throw new Error('not configured');
      },
    };
    registry.register(throwing);
    const report = await useCase.execute('all');
    expect(report).to.deep.include({
      status: 'down',
      checks: { broken: { status: 'down', message: 'not configured', latencyMs: 0 } },
    });
    expect(clock.pendingDelays()).to.equal(0);
  });

  it('reports a rejection without a message as down with a generic message', async () => {
    registry.register(new FailingCheck('odd', 'a string, not an Error'));
    const report = await useCase.execute('all');
    expect(report.checks['odd']).to.deep.equal({ status: 'down', message: 'check failed', latencyMs: 0 });
  });

  it('reports a check that hangs past the check timeout as down with message timeout, and aborts it', async () => {
    const hanging = new HangingCheck('search');
    registry.register(hanging).register(new FakeCheck('disk', { status: 'up' }));
    let settled = false;
    const pending = useCase.execute('all').then((r) => {
      settled = true;
      return r;
    });
    await flush(); // disk answers at once
    clock.advance(TIMEOUT_MS - 1);
    await flush();
    expect(settled, 'settled before the timeout').to.equal(false);
    expect(hanging.signal?.aborted).to.equal(false);
    clock.advance(1);
    const report = await pending;
    expect(report.checks).to.deep.equal({
      search: { status: 'down', message: 'timeout', latencyMs: TIMEOUT_MS },
      disk: { status: 'up', latencyMs: 0 },
    });
    expect(report.status).to.equal('degraded');
    expect(hanging.signal?.aborted).to.equal(true);
    expect(clock.pendingDelays()).to.equal(0);
  });

  it('does not time out a check that answers just inside the timeout', async () => {
    const slow = new FakeCheck('slow', { status: 'up' }, clock, TIMEOUT_MS - 1);
    registry.register(slow);
    const pending = useCase.execute('all');
    clock.advance(TIMEOUT_MS - 1);
    const report = await pending;
    expect(report.checks).to.deep.equal({ slow: { status: 'up', latencyMs: TIMEOUT_MS - 1 } });
    expect(slow.signals[0]?.aborted).to.equal(false);
  });

  it('cancels the timeout timer once a check has answered', async () => {
    registry.register(new FakeCheck('a', { status: 'up' })).register(new FakeCheck('b', { status: 'up' }, clock, 3));
    const pending = useCase.execute('all');
    expect(clock.pendingDelays()).to.equal(3); // two timeouts and b's own work
    clock.advance(3);
    await pending;
    expect(clock.pendingDelays()).to.equal(0);
  });

  describe('critical checks (README: Health)', () => {
    it('a critical check down makes the report down, whatever the others say', async () => {
      registry
        .register(new FakeCheck('database', { status: 'down', message: 'database unreachable' }), 'readiness', {
          critical: true,
        })
        .register(new FakeCheck('cache', { status: 'up' }), 'readiness')
        .register(new FakeCheck('event_loop', { status: 'up' }));
      const report = await useCase.execute('readiness');
      expect(report.status).to.equal('down');
      expect(report.checks['database']).to.deep.equal({
        status: 'down',
        message: 'database unreachable',
        latencyMs: 0,
      });
    });

    it('a non-critical check down beside others makes it degraded at worst', async () => {
      registry
        .register(new FakeCheck('database', { status: 'up' }), 'readiness', { critical: true })
        .register(new FakeCheck('cache', { status: 'down', message: 'connection refused' }), 'readiness');
      expect((await useCase.execute('readiness')).status).to.equal('degraded');
    });

    it('a critical check that is only degraded makes the report degraded, not down', async () => {
      registry
        .register(new FakeCheck('disk', { status: 'degraded' }), 'readiness', { critical: true })
        .register(new FakeCheck('cache', { status: 'up' }), 'readiness');
      expect((await useCase.execute('readiness')).status).to.equal('degraded');
    });

    it('a critical check that times out is down and so is the report', async () => {
      registry
        .register(new HangingCheck('database'), 'readiness', { critical: true })
        .register(new FakeCheck('event_loop', { status: 'up' }));
      const pending = useCase.execute('readiness');
      await flush();
      clock.advance(TIMEOUT_MS);
      const report = await pending;
      expect(report.status).to.equal('down');
      expect(report.checks['database']?.message).to.equal('timeout');
    });

    it('a critical readiness check does not reach liveness', async () => {
      registry
        .register(new FakeCheck('database', { status: 'down' }), 'readiness', { critical: true })
        .register(new FakeCheck('event_loop', { status: 'up' }));
      const report = await useCase.execute('liveness');
      expect(report.status).to.equal('up');
      expect(report.checks).to.deep.equal({ event_loop: { status: 'up', latencyMs: 0 } });
    });
  });

  describe('while the service shuts down', () => {
    beforeEach(() => {
      registry
        .register(new FakeCheck('database', { status: 'up' }), 'readiness')
        .register(new FakeCheck('event_loop', { status: 'up' }));
      lifecycle.shuttingDown = true;
    });

    const shutdownEntry = { status: 'down', message: 'service is shutting down', latencyMs: 0 };

    it('readiness is down with a shutdown entry beside the checks', async () => {
      const report = await useCase.execute('readiness');
      expect(report.status).to.equal('down');
      expect(report.checks).to.deep.equal({
        database: { status: 'up', latencyMs: 0 },
        event_loop: { status: 'up', latencyMs: 0 },
        shutdown: shutdownEntry,
      });
    });

    it('the full report is down with a shutdown entry', async () => {
      const report = await useCase.execute('all');
      expect(report.status).to.equal('down');
      expect(report.checks['shutdown']).to.deep.equal(shutdownEntry);
    });

    it('liveness is unaffected', async () => {
      const report = await useCase.execute('liveness');
      expect(report.status).to.equal('up');
      expect(report.checks).to.deep.equal({ event_loop: { status: 'up', latencyMs: 0 } });
    });

    it('readiness is down even with no checks registered', async () => {
      const empty = new CheckHealth(new HealthCheckRegistry(), clock, lifecycle, {
        checkTimeoutMs: TIMEOUT_MS,
        startedAt,
      });
      const report = await empty.execute('readiness');
      expect(report.status).to.equal('down');
      expect(report.checks).to.deep.equal({ shutdown: shutdownEntry });
    });
  });

  it('readiness is up again when the service is not shutting down', async () => {
    registry.register(new FakeCheck('database', { status: 'up' }));
    const report = await useCase.execute('readiness');
    expect(report.status).to.equal('up');
    expect(report.checks).to.not.have.property('shutdown');
  });
});
