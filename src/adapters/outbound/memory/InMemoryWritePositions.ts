import type { WritePositions } from '../../../application/ports/WritePositions.js';

/** Past this many keys, a `record` first forgets the positions whose time is over. */
const SWEEP_AT = 10_000;

/** Write positions in this process's memory: one instance, or tests. */
export class InMemoryWritePositions implements WritePositions {
  private readonly held = new Map<string, { position: bigint; until: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  get(keys: readonly string[]): Promise<bigint | undefined> {
    const now = this.now();
    let largest: bigint | undefined;
    for (const key of keys) {
      const entry = this.held.get(key);
      if (!entry || entry.until <= now) continue;
      if (largest === undefined || entry.position > largest) largest = entry.position;
    }
    return Promise.resolve(largest);
  }

  record(keys: readonly string[], position: bigint, ttlMs: number): Promise<void> {
    const now = this.now();
    if (this.held.size >= SWEEP_AT) {
      for (const [key, entry] of this.held) if (entry.until <= now) this.held.delete(key);
    }
    for (const key of keys) {
      const entry = this.held.get(key);
      const kept = entry && entry.until > now && entry.position > position ? entry.position : position;
      this.held.set(key, { position: kept, until: now + ttlMs });
    }
    return Promise.resolve();
  }
}
