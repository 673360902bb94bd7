import { closeSync, openSync, readSync } from 'node:fs';
import type { Server } from 'node:http';
import { isIPv4, isIPv6, type AddressInfo } from 'node:net';
import { endianness } from 'node:os';

/**
 * The connections the kernel has completed for the service's listening socket but the service has
 * not accepted yet. Each carries a request that is in progress from its client's point of view,
 * though the event loop has not read it.
 */
export interface AcceptQueueSnapshot {
  /** Connections waiting to be accepted. */
  waiting: number;
  /** How long the oldest of them has been waiting, at least (ms); 0 when none is. */
  oldestWaitMs: number;
}

/** Where a listening socket's accept queue is read: `/proc/net/tcp` or `tcp6`, and its line's local address. */
export interface ListenSocketLine {
  file: string;
  /** The local address as the kernel prints it: `0100007F:1F90` (IPv4), 32 hex digits and the port (IPv6). */
  local: string;
}

/** State `0A` in the kernel's TCP tables is LISTEN; `03` (SYN_RECV) may sit among the listeners on old kernels. */
const LISTEN = '0A';
const SYN_RECV = '03';

/** The 16 bytes of an IPv6 address, or the 4 of an IPv4 one; `undefined` when it is neither. */
function addressBytes(address: string): number[] | undefined {
  if (isIPv4(address)) return address.split('.').map(Number);
  if (!isIPv6(address)) return undefined;
  // An embedded IPv4 tail (`::ffff:127.0.0.1`) becomes two groups; a zone (`%eth0`) is not part of it.
  const text = address
    .split('%')[0]!
    .replace(
      /(\d+)\.(\d+)\.(\d+)\.(\d+)$/,
      (_, a: string, b: string, c: string, d: string) =>
        `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`,
    );
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return groups.flatMap((group) => {
    const value = parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}

/**
 * The line of `/proc/net/tcp` (IPv4) or `/proc/net/tcp6` (IPv6) that describes the socket listening
 * on `address`. The kernel prints an address as 32-bit words in the host's byte order.
 */
export function listenSocketLine(
  address: AddressInfo,
  hostEndianness: 'BE' | 'LE' = endianness(),
): ListenSocketLine | undefined {
  const bytes = addressBytes(address.address);
  if (!bytes) return undefined;
  let hex = '';
  for (let word = 0; word < bytes.length; word += 4) {
    const group = bytes.slice(word, word + 4);
    if (hostEndianness === 'LE') group.reverse();
    hex += group.map((byte) => byte.toString(16).padStart(2, '0')).join('');
  }
  const port = address.port.toString(16).padStart(4, '0');
  return { file: bytes.length === 4 ? '/proc/net/tcp' : '/proc/net/tcp6', local: `${hex}:${port}`.toUpperCase() };
}

/**
 * Looks for the LISTEN line of `local` in complete lines of a kernel TCP table (header included or
 * not) and returns its `rx_queue` — for a listening socket, the connections waiting to be accepted.
 * `null` once the listeners are behind (the kernel prints them first), `undefined` when more text
 * is needed.
 */
export function scanListenQueue(lines: string, local: string): number | null | undefined {
  for (const line of lines.split('\n')) {
    const fields = line.trim().split(/\s+/);
    // sl local_address rem_address st tx_queue:rx_queue …; the header's `sl` has no colon.
    if (fields.length < 5 || !fields[0]!.endsWith(':')) continue;
    const state = fields[3];
    if (state !== LISTEN && state !== SYN_RECV) return null;
    if (state === LISTEN && fields[1]!.toUpperCase() === local) {
      const rxQueue = fields[4]!.split(':')[1];
      const waiting = rxQueue === undefined ? Number.NaN : parseInt(rxQueue, 16);
      return Number.isFinite(waiting) ? waiting : null;
    }
  }
  return undefined;
}

const CHUNK_BYTES = 4096;
/** The listeners come first, so the line is in the first chunk; a bound in case of a table of many. */
const MAX_BYTES = 256 * 1024;

/**
 * Reads the accept queue of the listening socket `line` describes: `undefined` when the table is
 * not there (not Linux, no procfs) or the socket is not in it. Reads from the start only as far as
 * the listeners (a few kilobytes, whatever the number of open connections). A synchronous read of
 * procfs — kernel memory, no disk — costs tens of microseconds, and gives a figure taken at a known
 * point of the loop, which an asynchronous read (several thread-pool round trips, each a turn of a
 * busy loop) would not. (Where the table is sparse for the family — an IPv6 listener with few IPv6
 * connections — the kernel walks empty hash buckets and a read takes milliseconds; the monitor
 * then reads less often.)
 */
export function readListenQueue(line: ListenSocketLine): number | undefined {
  let fd: number;
  try {
    fd = openSync(line.file, 'r');
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(CHUNK_BYTES);
    let pending = '';
    for (let total = 0; total < MAX_BYTES;) {
      const read = readSync(fd, buffer, 0, CHUNK_BYTES, null);
      if (read === 0) return scanListenQueue(pending, line.local) ?? undefined;
      total += read;
      const text = pending + buffer.toString('latin1', 0, read);
      const end = text.lastIndexOf('\n');
      pending = text.slice(end + 1);
      const found = scanListenQueue(text.slice(0, end + 1), line.local);
      if (found !== undefined) return found ?? undefined;
    }
    return undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

export interface AcceptQueueMonitorOptions {
  /** How often the queue is read while it matters (ms). */
  intervalMs?: number;
  /** A timer this late (ms) means a turn of the loop this long: the queue is read. */
  busyLateMs?: number;
  /** Reading stays under this share of the time: after a read of `t` ms, the next waits `t / share`. */
  maxReadShare?: number;
  /** Reads the queue for the listening `address`; `undefined` where that cannot be done. Default: procfs. */
  reader?: (address: AddressInfo) => (() => number | undefined) | undefined;
  now?: () => number;
}

/**
 * Watches the listening socket's accept queue (Linux: `rx_queue` of its LISTEN line in
 * `/proc/net/tcp`/`tcp6`). libuv (since 1.45, Node 20) accepts one connection per turn of the event
 * loop, so when turns are long the connections not yet accepted — a new client, a health probe —
 * wait in the kernel, where neither the in-flight count nor the loop's delay sees them.
 *
 * Read every `intervalMs` while the loop is slow (its timer fired `busyLateMs` late) or connections
 * were waiting at the previous read, and never more than `maxReadShare` of the time. The queue is
 * first in, first out: between two reads the connections the server accepted leave its front and
 * the rest of the figure are newcomers, stamped with the time of the read that first saw them, so
 * `oldestWaitMs` is a lower bound of the oldest one's wait. Where the queue cannot be read, the
 * snapshot is always empty. See ADR 0015.
 */
export class AcceptQueueMonitor {
  private readonly intervalMs: number;
  private readonly busyLateMs: number;
  private readonly maxReadShare: number;
  private readonly reader: NonNullable<AcceptQueueMonitorOptions['reader']>;
  private readonly now: () => number;
  /** Waiting connections, oldest first, in batches stamped with when a read first saw them. */
  private readonly batches: { at: number; count: number }[] = [];
  private accepted = 0;
  private acceptedAtRead = 0;
  private timer: NodeJS.Timeout | undefined;
  private read: (() => number | undefined) | undefined;
  private lastTick = 0;
  private nextReadAt = 0;

  constructor(options: AcceptQueueMonitorOptions = {}) {
    this.intervalMs = options.intervalMs ?? 100;
    this.busyLateMs = options.busyLateMs ?? 20;
    this.maxReadShare = options.maxReadShare ?? 0.01;
    this.reader =
      options.reader ??
      ((address) => {
        const line = listenSocketLine(address);
        return line && readListenQueue(line) !== undefined ? () => readListenQueue(line) : undefined;
      });
    this.now = options.now ?? (() => performance.now());
  }

  /** Starts watching `server`, which must be listening on TCP; without a readable queue it stays idle. */
  watch(server: Server): void {
    const address = server.address();
    if (address === null || typeof address === 'string') return;
    this.read = this.reader(address);
    if (!this.read) return;
    server.on('connection', () => {
      this.accepted += 1;
    });
    this.lastTick = this.now();
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  /** The connections waiting now and the oldest one's wait, as of the last read and the accepts since. */
  snapshot(): AcceptQueueSnapshot {
    // Connections accepted since the read have left the front of the queue.
    let skip = this.accepted - this.acceptedAtRead;
    for (const batch of this.batches) {
      if (skip < batch.count) {
        const waiting = this.batches.reduce((n, b) => n + b.count, 0) - (this.accepted - this.acceptedAtRead);
        return { waiting, oldestWaitMs: Math.max(0, this.now() - batch.at) };
      }
      skip -= batch.count;
    }
    return { waiting: 0, oldestWaitMs: 0 };
  }

  /** Reads the queue now and updates the waiting batches. */
  sample(): void {
    const started = performance.now();
    const waiting = this.read?.();
    this.nextReadAt = this.now() + (performance.now() - started) / this.maxReadShare;
    const accepted = this.accepted - this.acceptedAtRead;
    this.acceptedAtRead = this.accepted;
    if (waiting === undefined) {
      this.batches.length = 0;
      return;
    }
    this.dropOldest(accepted);
    const known = this.batches.reduce((n, b) => n + b.count, 0);
    // More than were known: newcomers at the back. Fewer: some left without being accepted (or
    // were accepted between the read and the count); they are taken from the front.
    if (waiting > known) this.batches.push({ at: this.now(), count: waiting - known });
    else this.dropOldest(known - waiting);
  }

  /** Stops watching; call on shutdown. */
  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.batches.length = 0;
  }

  private tick(): void {
    const now = this.now();
    const late = now - this.lastTick - this.intervalMs;
    this.lastTick = now;
    if (now < this.nextReadAt) return;
    if (this.batches.length > 0 || late > this.busyLateMs) this.sample();
    else this.acceptedAtRead = this.accepted;
  }

  private dropOldest(count: number): void {
    let left = count;
    while (left > 0 && this.batches.length > 0) {
      const front = this.batches[0]!;
      if (front.count > left) {
        front.count -= left;
        return;
      }
      left -= front.count;
      this.batches.shift();
    }
  }
}
