import { createHash } from 'node:crypto';
import cronParser from 'cron-parser';

/**
 * The cron expressions of `jobs.schedules` (docs/jobs.md): five fields (minute, hour, day of
 * month, month, day of week), read in UTC — the resolution every engine fires at (pg-boss's
 * scheduler checks once a minute at most).
 */

/** Why `expression` is not a schedule, or `undefined` when it is one. */
export function cronProblem(expression: string): string | undefined {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) return `has ${fields.length} fields; a schedule has five (minute hour day month weekday)`;
  try {
    // Parsed, and naming a time at all: `0 0 31 2 *` (31 February) parses, then never fires — and
    // pg-boss's scheduler, asked for its last time, would fail every schedule of the check with it.
    const times = cronParser.parseExpression(expression, { tz: 'UTC' });
    times.prev();
    times.reset();
    times.next();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** The latest time at or before `now` that `expression` names (UTC). */
export function latestFiring(expression: string, now: Date): Date {
  // cron-parser's `prev` answers a time strictly before its current date: a millisecond later
  // makes a firing at exactly `now` count.
  const times = cronParser.parseExpression(expression, { tz: 'UTC', currentDate: new Date(now.getTime() + 1) });
  return times.prev().toDate();
}

/**
 * The id of the job a schedule fires for the period starting `at`: the same in every instance (a
 * UUID made from a hash of both), so storing it twice stores it once.
 */
export function firingId(name: string, at: Date): string {
  const hex = createHash('sha256').update(`${name}\n${at.toISOString()}`).digest('hex');
  // Shaped as a UUID version 8 (custom), variant 10.
  const variant = ((parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
