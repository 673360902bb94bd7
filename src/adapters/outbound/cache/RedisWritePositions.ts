import type { Redis } from 'ioredis';
import type { WritePositions } from '../../../application/ports/WritePositions.js';

/**
 * Keeps the larger of the position held and the one given (fixed-width hex, so that comparing the
 * strings compares the positions), for the time given: two writes of one client recorded out of
 * order never move its position back.
 */
const KEEP_LARGEST = `local held = redis.call('GET', KEYS[1])
if held and held > ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])`;

/** A position as 16 lower-case hex digits (a WAL position fits 64 bits). */
const encode = (position: bigint): string => position.toString(16).padStart(16, '0');

/**
 * Write positions in Redis (`redis.url`), shared by every instance behind a load balancer: one
 * `MGET` per request, one pipelined script call per key of a request that wrote. Keys live under
 * `portico:ryw:`.
 */
export class RedisWritePositions implements WritePositions {
  constructor(private readonly redis: Redis) {}

  async get(keys: readonly string[]): Promise<bigint | undefined> {
    if (keys.length === 0) return undefined;
    const values = await this.redis.mget(keys.map((key) => `portico:ryw:${key}`));
    let largest: bigint | undefined;
    for (const value of values) {
      if (value === null || !/^[0-9a-f]{16}$/.test(value)) continue;
      const position = BigInt(`0x${value}`);
      if (largest === undefined || position > largest) largest = position;
    }
    return largest;
  }

  async record(keys: readonly string[], position: bigint, ttlMs: number): Promise<void> {
    if (keys.length === 0) return;
    const pipeline = this.redis.pipeline();
    const ttl = String(Math.max(1, Math.ceil(ttlMs)));
    for (const key of keys) pipeline.eval(KEEP_LARGEST, 1, `portico:ryw:${key}`, encode(position), ttl);
    const results = (await pipeline.exec()) ?? [];
    const failed = results.find(([error]) => error);
    if (failed?.[0]) throw failed[0];
  }
}
