import type { JobScheduler } from '../../../application/ports/Jobs.js';
import { firingId, latestFiring } from './cron.js';

/** One period of one schedule: its job is stored under `id`, once whoever fires it. */
export interface Firing {
  readonly name: string;
  readonly at: Date;
  readonly id: string;
}

export interface CronSchedulerOptions {
  /** Stores the firing's job unless a job with its id exists (the engine's insert-if-absent). */
  readonly fire: (firing: Firing) => Promise<void>;
  /** Anything else the engine does on each check (the SQLite engine's retention). */
  readonly everyCheck?: (now: Date) => Promise<void>;
  readonly now?: () => Date;
  /** How often the schedules are looked at (default 15 s). */
  readonly checkIntervalMs?: number;
  /** Told of a check that failed; the next check tries again. */
  readonly onError?: (error: unknown) => void;
}

/** How long after its start a period may still fire (pg-boss's scheduler has the same minute). */
const FIRING_WINDOW_MS = 60_000;

/**
 * The scheduler of the engines without one of their own (SQLite, memory): every check, each
 * schedule whose latest period began less than a minute ago fires it, under an id made from the
 * schedule and the period, so that every check (and every scheduler on the same store) within
 * that minute stores one job. The store keeps finished jobs for a day at least, far longer than
 * the minute, so a period never fires twice.
 */
export class CronScheduler implements JobScheduler {
  private schedules: ReadonlyMap<string, string> = new Map();
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  private readonly now: () => Date;
  private readonly onError: (error: unknown) => void;

  constructor(private readonly options: CronSchedulerOptions) {
    this.now = options.now ?? (() => new Date());
    this.onError = options.onError ?? (() => undefined);
  }

  async start(schedules: ReadonlyMap<string, string>): Promise<void> {
    this.schedules = new Map(schedules);
    clearInterval(this.timer);
    this.timer = setInterval(() => void this.check(), this.options.checkIntervalMs ?? 15_000);
    this.timer.unref();
    await this.check();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.checking;
  }

  /** Fires what is due now (one check at a time); answers when done. */
  check(): Promise<void> {
    this.checking ??= this.checkNow().finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async checkNow(): Promise<void> {
    const now = this.now();
    for (const [name, cron] of this.schedules) {
      try {
        const at = latestFiring(cron, now);
        if (now.getTime() - at.getTime() >= FIRING_WINDOW_MS) continue;
        await this.options.fire({ name, at, id: firingId(name, at) });
      } catch (error) {
        // One schedule's failure (its store, its expression) is told and never keeps the others from firing.
        this.onError(error);
      }
    }
    await this.options.everyCheck?.(now).catch(this.onError);
  }
}
