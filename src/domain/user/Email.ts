import { hasInvisibleCharacters, INVISIBLE_MESSAGE, textProblem } from '../shared/Text.js';

/** The longest address (RFC 5321's path limit less its angle brackets). */
export const EMAIL_MAX_LENGTH = 254;

/** Pragmatic address check: one `@`, no spaces, a dot in the domain, at most 254 characters. */
const SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@.]+$/;

const INVALID_MESSAGE = 'must be a valid e-mail address';

/**
 * Normalizes an e-mail the way it is stored and compared: NFKC first (so `ａ@ｅｘａｍｐｌｅ.com`
 * and `a@example.com` are one address), then trimmed and lower-cased.
 */
export function normalizeEmail(raw: string): string {
  return raw.normalize('NFKC').trim().toLowerCase();
}

/** Whether an already-normalized e-mail is acceptable: its shape, and nothing invisible or ill-formed in it. */
export function isValidEmail(email: string): boolean {
  return (
    email.length <= EMAIL_MAX_LENGTH &&
    SHAPE.test(email) &&
    !hasInvisibleCharacters(email) &&
    textProblem(email) === undefined
  );
}

/**
 * Reads an e-mail as a client typed it: the normalized address, or why it cannot be one. Invisible
 * characters are looked for before trimming, so a leading byte-order mark is refused, not trimmed.
 */
export function parseEmail(raw: string): { email: string } | { problem: string } {
  const problem = textProblem(raw);
  if (problem !== undefined) return { problem };
  if (hasInvisibleCharacters(raw.normalize('NFKC'))) return { problem: INVISIBLE_MESSAGE };
  const email = normalizeEmail(raw);
  return isValidEmail(email) ? { email } : { problem: INVALID_MESSAGE };
}
