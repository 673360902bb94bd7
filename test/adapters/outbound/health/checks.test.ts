import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { DiskHealthCheck } from '../../../../src/adapters/outbound/health/DiskHealthCheck.js';
import {
  EventLoopDelayMonitor,
  type LoopWindow,
  EventLoopHealthCheck,
} from '../../../../src/adapters/outbound/health/EventLoopHealthCheck.js';
import { HttpHealthCheck } from '../../../../src/adapters/outbound/health/HttpHealthCheck.js';
import { ReplicaHealthCheck } from '../../../../src/adapters/outbound/health/ReplicaHealthCheck.js';

const live = () => new AbortController().signal;

describe('HttpHealthCheck', () => {
  let server: Server;
  let base: string;

  before(async () => {
    server = createServer((req, res) => {
      if (req.url === '/ok') res.writeHead(200).end('ok');
      else if (req.url === '/moved') res.writeHead(302, { Location: '/ok' }).end();
      else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end('late'), 1_000);
      else res.writeHead(500).end('broken');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('is up on a 2xx and on a 3xx answer', async () => {
    expect(await new HttpHealthCheck('svc', `${base}/ok`, 1000).check(live())).to.deep.equal({ status: 'up' });
    expect(await new HttpHealthCheck('svc', `${base}/moved`, 1000).check(live())).to.deep.equal({ status: 'up' });
  });

  it('is down with the status on a 5xx answer', async () => {
    expect(await new HttpHealthCheck('svc', `${base}/fail`, 1000).check(live())).to.deep.equal({
      status: 'down',
      message: 'HTTP 500',
    });
  });

  it('is down with `timeout` past its own timeout', async () => {
    const started = Date.now();
    expect(await new HttpHealthCheck('svc', `${base}/slow`, 100).check(live())).to.deep.equal({
      status: 'down',
      message: 'timeout',
    });
    expect(Date.now() - started).to.be.lessThan(900);
  });

  it('stops when the caller aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect(await new HttpHealthCheck('svc', `${base}/slow`, 5000).check(controller.signal)).to.deep.equal({
      status: 'down',
      message: 'timeout',
    });
  });

  it('is down when nothing listens, naming the error code', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const outcome = await new HttpHealthCheck('svc', `http://127.0.0.1:${port}/`, 1000).check(live());
    expect(outcome).to.deep.equal({ status: 'down', message: 'ECONNREFUSED' });
  });
});

describe('DiskHealthCheck', () => {
  it('is up when the free space is above the minimum', async () => {
    expect(await new DiskHealthCheck('.', 1).check()).to.deep.equal({ status: 'up' });
  });

  it('is down, saying how much is free, below the minimum', async () => {
    const outcome = await new DiskHealthCheck('.', Number.MAX_SAFE_INTEGER).check();
    expect(outcome.status).to.equal('down');
    expect(outcome.message).to.match(/^\d+ bytes free, below the minimum of 9007199254740991$/);
  });

  it('is down when the path does not exist, without echoing the path', async () => {
    const outcome = await new DiskHealthCheck('/no/such/path/here', 1).check();
    expect(outcome).to.deep.equal({ status: 'down', message: 'cannot read file system statistics' });
  });
});

describe('EventLoopHealthCheck', () => {
  it('is up on an idle loop and degraded after the loop was blocked past the threshold', async () => {
    const check = new EventLoopHealthCheck(50);
    try {
      await new Promise((r) => setTimeout(r, 60));
      expect(await check.check()).to.deep.equal({ status: 'up' });
      // The monitor samples on a 10 ms timer: let it tick before blocking.
      await new Promise((r) => setTimeout(r, 25));
      const until = Date.now() + 150;
      while (Date.now() < until) {
        // Block the event loop on purpose.
      }
      await new Promise((r) => setTimeout(r, 30));
      const outcome = await check.check();
      expect(outcome.status).to.equal('degraded');
      expect(outcome.message).to.match(/^event loop delay p99 \d+\.\dms above 50ms$/);
      // The window restarts after each check.
      await new Promise((r) => setTimeout(r, 60));
      expect(await check.check()).to.deep.equal({ status: 'up' });
    } finally {
      check.close();
    }
  });
});

describe('EventLoopDelayMonitor (shared by the event_loop check and load shedding)', () => {
  it("hands each closed window to its listeners with the window's worst delay and the loop's utilisation", async () => {
    const monitor = new EventLoopDelayMonitor(100);
    const windows: LoopWindow[] = [];
    monitor.onWindow((window) => windows.push(window));
    try {
      await new Promise((r) => setTimeout(r, 230));
      const idle = windows.splice(0);
      expect(idle.length).to.be.greaterThan(0);
      for (const window of idle) expect(window.maxDelayMs).to.be.lessThan(80);
      // An idle window is seen as idle: the quietest one. (Any one of them may hold a garbage
      // collection the tests before left due, which counts as the loop's work, up to ~half a window.)
      expect(Math.min(...idle.map((w) => w.utilization))).to.be.lessThan(0.5);
      const until = Date.now() + 250;
      while (Date.now() < until) {
        // Block the event loop on purpose.
      }
      await new Promise((r) => setTimeout(r, 20));
      const blocked = windows.splice(0);
      expect(blocked.length).to.be.greaterThan(0);
      // The window due during the block closed late by about the block less one window.
      expect(Math.max(...blocked.map((w) => w.maxDelayMs))).to.be.greaterThan(250 - 100 - 10);
      expect(Math.max(...blocked.map((w) => w.utilization))).to.be.greaterThan(0.6);
      // The check, sharing the monitor, sees the same block.
      const check = new EventLoopHealthCheck(50, monitor);
      expect((await check.check()).status).to.equal('degraded');
      check.close();
    } finally {
      monitor.close();
    }
  });
});

describe('ReplicaHealthCheck', () => {
  const outcome = (state: { up: boolean; lagMs: number }[]) => new ReplicaHealthCheck({ state }, 5000).check();

  it('is up while every replica answers and is within replica_max_lag; degraded, never down, otherwise', async () => {
    expect(
      await outcome([
        { up: true, lagMs: 0 },
        { up: true, lagMs: 5000 },
      ]),
    ).to.deep.equal({ status: 'up' });
    expect(
      await outcome([
        { up: true, lagMs: 0 },
        { up: true, lagMs: 7200 },
      ]),
    ).to.deep.equal({ status: 'degraded', message: 'replica 2 7200 ms behind' });
    expect(await outcome([{ up: false, lagMs: 0 }])).to.deep.equal({
      status: 'degraded',
      message: 'replica 1 unreachable',
    });
  });
});
