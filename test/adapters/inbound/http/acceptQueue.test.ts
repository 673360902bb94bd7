import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  AcceptQueueMonitor,
  listenSocketLine,
  readListenQueue,
  scanListenQueue,
} from '../../../../src/adapters/inbound/http/acceptQueue.js';

const HEADER_V4 = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n';
const HEADER_V6 =
  '  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n';
const v4 = (sl: number, local: string, remote: string, state: string, rx: string): string =>
  `  ${sl}: ${local} ${remote} ${state} 00001000:${rx} 00:00000000 00000000  1000        0 ${4000 + sl} 1 0000000000000000 100 0 0 10 0\n`;
const v6 = (sl: number, local: string, remote: string, state: string, rx: string): string =>
  `  ${sl}: ${local} ${remote} ${state} 00001000:${rx} 00:00000000 00000000  1000        0 ${5000 + sl} 1 0000000000000000 100 0 0 10 0\n`;

/** 127.0.0.1:8080 as a little-endian kernel prints it, with another listener and an accepted connection. */
const TCP = [
  HEADER_V4,
  v4(0, '00000000:07E8', '00000000:0000', '0A', '00000004'),
  v4(1, '0100007F:1F90', '00000000:0000', '0A', '000001F3'),
  v4(2, '0100007F:1F90', '0100007F:D431', '01', '00000007'),
].join('');
const V6_LOOPBACK = '00000000000000000000000001000000';
const V6_ANY = '00000000000000000000000000000000';

describe('HTTP adapter: the accept queue (/proc/net/tcp)', () => {
  describe('listenSocketLine', () => {
    it('spells an IPv4 address and port as the kernel does, in the host byte order', () => {
      expect(listenSocketLine({ address: '127.0.0.1', port: 8080, family: 'IPv4' }, 'LE')).to.deep.equal({
        file: '/proc/net/tcp',
        local: '0100007F:1F90',
      });
      expect(listenSocketLine({ address: '127.0.0.1', port: 8080, family: 'IPv4' }, 'BE')?.local).to.equal(
        '7F000001:1F90',
      );
      expect(listenSocketLine({ address: '0.0.0.0', port: 2024, family: 'IPv4' }, 'LE')?.local).to.equal(
        '00000000:07E8',
      );
    });

    it('spells an IPv6 address as four 32-bit words, in /proc/net/tcp6', () => {
      expect(listenSocketLine({ address: '::1', port: 8080, family: 'IPv6' }, 'LE')).to.deep.equal({
        file: '/proc/net/tcp6',
        local: `${V6_LOOPBACK}:1F90`,
      });
      expect(listenSocketLine({ address: '::', port: 80, family: 'IPv6' }, 'LE')?.local).to.equal(`${V6_ANY}:0050`);
      expect(listenSocketLine({ address: '2001:db8::ff00:42:8329', port: 443, family: 'IPv6' }, 'LE')?.local).to.equal(
        'B80D01200000000000FF000029834200:01BB',
      );
      expect(listenSocketLine({ address: '::ffff:127.0.0.1', port: 1, family: 'IPv6' }, 'LE')?.local).to.equal(
        '0000000000000000FFFF00000100007F:0001',
      );
    });
  });

  describe('scanListenQueue', () => {
    it("reads rx_queue (hex) of the service's own LISTEN line, not another port's", () => {
      expect(scanListenQueue(TCP, '0100007F:1F90')).to.equal(499);
      expect(scanListenQueue(TCP, '00000000:07E8')).to.equal(4);
    });

    it('reads only LISTEN lines: an accepted connection on the same address and port is not the queue', () => {
      const noListener = [
        HEADER_V4,
        v4(0, '00000000:07E8', '00000000:0000', '0A', '00000004'),
        v4(1, '0100007F:1F90', '0100007F:D431', '01', '00000007'),
      ].join('');
      expect(scanListenQueue(noListener, '0100007F:1F90')).to.equal(null);
      const synRecvFirst = [
        HEADER_V4,
        v4(0, '0100007F:1F90', '0100007F:D432', '03', '00000009'),
        v4(1, '0100007F:1F90', '00000000:0000', '0A', '00000002'),
      ].join('');
      expect(scanListenQueue(synRecvFirst, '0100007F:1F90')).to.equal(2);
    });

    it('reads an IPv6 listener of /proc/net/tcp6', () => {
      const table = [
        HEADER_V6,
        v6(0, `${V6_ANY}:0016`, `${V6_ANY}:0000`, '0A', '00000000'),
        v6(1, `${V6_LOOPBACK}:1F90`, `${V6_ANY}:0000`, '0A', '00000010'),
        v6(2, `${V6_LOOPBACK}:1F90`, `${V6_LOOPBACK}:C350`, '01', '00000000'),
      ].join('');
      expect(scanListenQueue(table, `${V6_LOOPBACK}:1F90`)).to.equal(16);
      expect(scanListenQueue(table, `${V6_ANY}:1F90`)).to.equal(null);
    });

    it('asks for more text while only listeners were seen', () => {
      expect(
        scanListenQueue(
          [HEADER_V4, v4(0, '00000000:07E8', '00000000:0000', '0A', '00000004')].join(''),
          '0100007F:1F90',
        ),
      ).to.equal(undefined);
    });
  });

  describe('readListenQueue', () => {
    let dir: string;
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'portico-accept-'));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('is undefined when the table is not there (not Linux)', () => {
      expect(readListenQueue({ file: join(dir, 'absent'), local: '0100007F:1F90' })).to.equal(undefined);
    });

    it('finds the line past the first chunk when there are many listeners, and is undefined when it is absent', () => {
      const listeners = Array.from({ length: 400 }, (_, i) =>
        v4(i, `00000000:${(1000 + i).toString(16).toUpperCase().padStart(4, '0')}`, '00000000:0000', '0A', '00000000'),
      );
      const file = join(dir, 'tcp');
      writeFileSync(
        file,
        [
          HEADER_V4,
          ...listeners,
          v4(400, '0100007F:1F90', '00000000:0000', '0A', '0000002A'),
          v4(401, '0100007F:1F90', '0100007F:D431', '01', '00000001'),
        ].join(''),
      );
      expect(readListenQueue({ file, local: '0100007F:1F90' })).to.equal(42);
      expect(readListenQueue({ file, local: '0100007F:1F91' })).to.equal(undefined);
    });

    it("reads a real listening socket's connections not yet accepted (Linux)", function () {
      if (!existsSync('/proc/net/tcp')) this.skip();
      const server = createServer();
      server.listen(0, '127.0.0.1');
      return new Promise<void>((resolve, reject) => {
        server.once('listening', () => {
          try {
            const address = server.address() as AddressInfo;
            const line = listenSocketLine(address)!;
            expect(readListenQueue(line)).to.equal(0);
            // While this loop is blocked, a child opens three connections: the kernel completes them
            // and holds them in the accept queue, where only /proc shows them.
            const child = spawnSync(
              process.execPath,
              [
                '-e',
                `const net=require('net');let n=0;for(let i=0;i<3;i++)net.connect(${address.port},'127.0.0.1',()=>{if(++n===3)process.exit(0)});`,
              ],
              { timeout: 10_000 },
            );
            expect(child.status).to.equal(0);
            expect(readListenQueue(line)).to.equal(3);
            resolve();
          } catch (error) {
            reject(error as Error);
          } finally {
            server.close();
          }
        });
      });
    });
  });

  describe('AcceptQueueMonitor', () => {
    /** A listening server as the monitor sees it: its address and its 'connection' events. */
    const fakeServer = (): Server & EventEmitter =>
      Object.assign(new EventEmitter(), {
        address: () => ({ address: '127.0.0.1', port: 8080, family: 'IPv4' }),
      }) as unknown as Server & EventEmitter;

    it('follows the queue first in, first out: the oldest wait is that of the oldest connection still waiting', () => {
      let now = 0;
      let backlog: number | undefined = 5;
      const monitor = new AcceptQueueMonitor({ reader: () => () => backlog, now: () => now, intervalMs: 1_000_000 });
      const server = fakeServer();
      monitor.watch(server);
      try {
        expect(monitor.snapshot()).to.deep.equal({ waiting: 0, oldestWaitMs: 0 });
        monitor.sample(); // 5 seen at 0
        now = 300;
        expect(monitor.snapshot()).to.deep.equal({ waiting: 5, oldestWaitMs: 300 });
        // Two accepted (the oldest), six newcomers.
        server.emit('connection');
        server.emit('connection');
        expect(monitor.snapshot()).to.deep.equal({ waiting: 3, oldestWaitMs: 300 });
        backlog = 9;
        monitor.sample(); // 3 of 0, 6 of 300
        now = 600;
        expect(monitor.snapshot()).to.deep.equal({ waiting: 9, oldestWaitMs: 600 });
        // The three of 0 and one of 300 accepted: the oldest left waits since 300.
        for (let i = 0; i < 4; i++) server.emit('connection');
        expect(monitor.snapshot()).to.deep.equal({ waiting: 5, oldestWaitMs: 300 });
        backlog = 5;
        monitor.sample();
        expect(monitor.snapshot()).to.deep.equal({ waiting: 5, oldestWaitMs: 300 });
        // All accepted, none new.
        for (let i = 0; i < 5; i++) server.emit('connection');
        backlog = 0;
        monitor.sample();
        expect(monitor.snapshot()).to.deep.equal({ waiting: 0, oldestWaitMs: 0 });
        // Where the queue cannot be read any more, nothing is known to wait.
        backlog = 7;
        monitor.sample();
        backlog = undefined;
        monitor.sample();
        expect(monitor.snapshot()).to.deep.equal({ waiting: 0, oldestWaitMs: 0 });
      } finally {
        monitor.close();
      }
    });

    it('stays empty where the accept queue cannot be read', () => {
      const monitor = new AcceptQueueMonitor({ reader: () => undefined });
      monitor.watch(fakeServer());
      monitor.sample();
      expect(monitor.snapshot()).to.deep.equal({ waiting: 0, oldestWaitMs: 0 });
      monitor.close();
    });
  });
});
