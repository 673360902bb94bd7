import { hasInvisibleCharacters, INVISIBLE_MESSAGE, textProblem } from '../shared/Text.js';

/** The longest address (RFC 5321's path limit less its angle brackets). */
export const EMAIL_MAX_LENGTH = 254;

/**
 * A plain `local@domain`: the local part a dot-atom (letters, digits and
 * ``!#$%&'*+/=?^_`{|}~-``, in runs separated by single dots, at most 64 characters), the domain a
 * host name (labels of letters, digits and inner hyphens, at least two of them). No quotes,
 * spaces, `<>`, `()`, `,`, `:`, `;`, `\` or second `@`, so no mailer can read another recipient
 * out of an accepted address.
 */
const ATOM = "[\\p{L}\\p{N}!#$%&'*+/=?^_`{|}~-]+";
const LABEL = '[\\p{L}\\p{N}](?:[\\p{L}\\p{N}-]{0,61}[\\p{L}\\p{N}])?';
const SHAPE = new RegExp(`^(?=[^@]{1,64}@)${ATOM}(?:\\.${ATOM})*@${LABEL}(?:\\.${LABEL})+$`, 'u');

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
