import type { AccountMail } from '../../../../src/application/ports/Mailer.js';
import { FixedClock } from '../../../support/FixedClock.js';

export const HOUR_MS = 3_600_000;

/** The clock the mail adapter tests render expiries against. */
export const clock = new FixedClock(new Date('2026-03-01T10:00:00Z'));

/** A token shaped like the real ones (`<selector>.<verifier>`, base64url). */
export const TOKEN = 'c2VsZWN0b3Itc2VsZWN0b3I.dmVyaWZpZXItdmVyaWZpZXItdmVyaWZpZXItdmVyaWZpZXI';

/** A password-reset mail to Ada expiring in an hour, with `extra` changed. */
export const accountMail = (extra: Partial<AccountMail> = {}): AccountMail => ({
  kind: 'password-reset',
  to: 'ada@example.com',
  firstName: 'Ada',
  token: TOKEN,
  expiresAt: new Date(clock.now().getTime() + HOUR_MS),
  ...extra,
});
