import type { User } from './User.js';

/** What an account would have left to sign in with once a link or a passkey goes. */
export interface RemainingWaysIn {
  /** Identities at providers still linked to it. */
  readonly identities: number;
  /** Passkeys still registered to it. */
  readonly passkeys: number;
}

/**
 * Whether `user` can still sign in with what `remaining` leaves: a password, an identity at a
 * provider, or a passkey. Unlinking an identity or removing a passkey is refused when it cannot.
 */
export function keepsAWayIn(user: User, remaining: RemainingWaysIn): boolean {
  return user.hasPassword || remaining.identities > 0 || remaining.passkeys > 0;
}

/** Why unlinking an identity or removing a passkey that would leave no way in is refused (409). */
export const lastWayIn = (what: 'identity' | 'passkey'): string =>
  `this ${what} is the only way to sign in to the account: set a password (a password reset) or add another way first`;
