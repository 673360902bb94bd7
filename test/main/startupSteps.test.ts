import { AsyncResource, createHook, executionAsyncId } from 'node:async_hooks';
import { expect } from 'chai';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startService } from '../../src/main/wiring/service.js';
import { startProcess } from '../../src/main/wiring/startup.js';
import { step, Steps } from '../../src/main/wiring/steps.js';
import { testConfig } from '../support/config.js';
import { externalService } from '../support/env.js';
import { silentLogger } from '../support/logger.js';

const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('Steps: start-up as one ordered list, each step with its stop', () => {
  it('stops what started, last first, when a step fails, and reports that step’s error', async () => {
    const log: string[] = [];
    const steps = new Steps();
    await steps.run(
      'a',
      () => 'A',
      (v) => log.push(`stop ${v}`),
    );
    await steps.run('b', () => 'B');
    await steps.run(
      'c',
      async () => 'C',
      async (v) => void log.push(`stop ${v}`),
    );
    const failure = new Error('d broke');
    expect(
      await rejection(
        steps.run('d', () => {
          throw failure;
        }),
      ),
    ).to.equal(failure);
    expect(log).to.deep.equal(['stop C', 'stop A']);
    await steps.stopAll();
    expect(log, 'each stop runs once').to.deep.equal(['stop C', 'stop A']);
  });

  it('a stop that fails is reported and the others still run', async () => {
    const log: string[] = [];
    const steps = new Steps();
    await steps.run(
      'a',
      () => 1,
      () => log.push('stop a'),
    );
    await steps.run(
      'b',
      () => 2,
      () => {
        throw new Error('b would not close');
      },
    );
    await steps.run(
      'c',
      () => 3,
      () => log.push('stop c'),
    );
    const failed: string[] = [];
    await steps.stopAll((name, error) => failed.push(`${name}: ${(error as Error).message}`));
    expect(log).to.deep.equal(['stop c', 'stop a']);
    expect(failed).to.deep.equal(['b: b would not close']);
  });
});

describe('declared steps: each started from what it is given, stopped with it, in reverse whatever failed', () => {
  it('stops the declared steps started before the one that fails, last first, each given what it started from', async () => {
    const log: string[] = [];
    const opened = (name: string) =>
      step(
        name,
        (input: { port: number }) => `${name}@${input.port}`,
        (value, input) => void log.push(`stop ${value} (given ${input.port})`),
      );
    const broken = step('broken', (): string => {
      throw new Error('broken would not start');
    });
    const steps = new Steps((name) => log.push(`start ${name}`));
    expect(await steps.start(opened('database'), { port: 1 })).to.equal('database@1');
    await steps.start(
      step('migrations', () => ['0001']),
      undefined,
    );
    expect(await steps.start(opened('listener'), { port: 2 })).to.equal('listener@2');
    const error = await rejection(steps.start(broken, undefined));
    expect((error as Error).message).to.equal('broken would not start');
    expect(log).to.deep.equal([
      'start database',
      'start migrations',
      'start listener',
      'start broken',
      'stop listener@2 (given 2)',
      'stop database@1 (given 1)',
    ]);
  });
});

/** Sockets, listeners and timers: what keeps running after a start that failed or a stop. */
const WATCHED = new Set(['TCPWRAP', 'TCPSERVERWRAP', 'Timeout']);

/**
 * Records every socket, listener and timer that `work` creates — directly or from anything it set
 * going (followed through async_hooks' trigger ids, so what other tests left running is not
 * counted) — and answers those still alive once it is done and they had up to `graceMs` to close
 * (a timer that fires is gone, a cleared one too; an interval never stops by itself). The grace
 * is past the database's bound of 5 s: a wait for a pooled connection that a closing pool leaves
 * behind runs out within it.
 */
async function leftBehind(work: () => Promise<unknown>, graceMs = 6000): Promise<string[]> {
  const live = new Map<number, string>();
  const ours = new Set<number>();
  let recording = true;
  const hook = createHook({
    init(id, type, triggerId) {
      if (!recording || !(ours.has(triggerId) || ours.has(executionAsyncId()))) return;
      ours.add(id);
      if (WATCHED.has(type)) live.set(id, type);
    },
    destroy(id) {
      live.delete(id);
    },
  }).enable();
  try {
    const root = new AsyncResource('startup-under-test');
    ours.add(root.asyncId());
    await root.runInAsyncScope(work);
    recording = false; // the waiting below makes timers of its own
    const until = Date.now() + graceMs;
    while (live.size > 0 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    hook.disable();
  }
  const counts = new Map<string, number>();
  for (const type of live.values()) counts.set(type, (counts.get(type) ?? 0) + 1);
  return [...counts].map(([type, n]) => `${type} ×${n}`);
}

/**
 * The service with every step it has (PostgreSQL and Redis when the suite has them, tracing,
 * metrics): started once to learn the steps, then once per step with that step failing. Each
 * failed start rejects with the step's error and leaves no socket, listener or timer of its own
 * running; nor does a start and a stop.
 */
describe('startService: whichever start-up step fails, nothing is left running', function () {
  this.timeout(180_000);
  const postgres = externalService('SVC_TEST_POSTGRES_URL');
  const redis = externalService('SVC_TEST_REDIS_URL');
  const config = () =>
    testConfig({
      ...(postgres ? { SVC_DATABASE_URL: postgres } : {}),
      ...(redis ? { SVC_REDIS_URL: redis, SVC_RATE_LIMIT_STORE: 'redis' } : {}),
      SVC_TRACING_OTLP_ENDPOINT: 'http://127.0.0.1:1/v1/traces',
      SVC_AUTH_BCRYPT_COST: '4',
    });
  const start = (onStep?: (name: string) => void) =>
    startService(config(), {
      logger: silentLogger(),
      spanProcessor: new SimpleSpanProcessor(new InMemorySpanExporter()),
      ...(onStep ? { onStep } : {}),
    });
  const names: string[] = [];

  it('starts every step in order, each once, and a stop leaves nothing running', async () => {
    const left = await leftBehind(async () => {
      const service = await start((name) => names.push(name));
      await service.stop();
    });
    expect(names).to.deep.equal([
      'mailer',
      'database',
      'migrations',
      'cache',
      'access policy',
      'redis',
      'access policy sync',
      'event loop monitor',
      'tracing',
      'jobs',
      'container',
      'job runner',
      'job schedules',
      'metrics listener',
      'api listener',
    ]);
    expect(left, 'left running after a stop').to.deep.equal([]);
  });

  it('for every N, a start whose N-th step fails rejects with that error and leaves nothing running', async () => {
    expect(names, 'the steps, from the test above').to.have.length.greaterThan(0);
    for (const failing of names) {
      const failure = new Error(`step ${failing} failed`);
      let error: unknown;
      const left = await leftBehind(async () => {
        error = await rejection(
          start((name) => {
            if (name === failing) throw failure;
          }),
        );
      });
      expect(error, failing).to.equal(failure);
      expect(left, `left running after "${failing}" failed`).to.deep.equal([]);
    }
  });

  it('a command (the CLI’s start: nothing listens) started and stopped, or failing at any of its steps, leaves nothing running', async () => {
    const command = (onStep: (name: string) => void) =>
      startProcess(config(), { listen: false, logger: silentLogger(), onStep });
    const steps: string[] = [];
    expect(await leftBehind(async () => (await command((name) => steps.push(name))).stop())).to.deep.equal([]);
    expect(steps.at(-1)).to.equal('container');
    for (const failing of steps) {
      const failure = new Error(`step ${failing} failed`);
      let error: unknown;
      const left = await leftBehind(async () => {
        error = await rejection(
          command((name) => {
            if (name === failing) throw failure;
          }),
        );
      });
      expect(error, failing).to.equal(failure);
      expect(left, `left running after "${failing}" failed`).to.deep.equal([]);
    }
  });
});
