import { statfs } from 'node:fs/promises';
import type { CheckOutcome, HealthCheck } from '../../../application/ports/HealthCheck.js';

/** `disk`: free bytes (available to this user) on the file system holding `path`. */
export class DiskHealthCheck implements HealthCheck {
  readonly name = 'disk';

  constructor(
    private readonly path: string,
    private readonly minFreeBytes: number,
  ) {}

  async check(): Promise<CheckOutcome> {
    try {
      const stats = await statfs(this.path);
      const free = Number(stats.bavail) * Number(stats.bsize);
      if (free < this.minFreeBytes) {
        return { status: 'down', message: `${free} bytes free, below the minimum of ${this.minFreeBytes}` };
      }
      return { status: 'up' };
    } catch {
      return { status: 'down', message: 'cannot read file system statistics' };
    }
  }
}
