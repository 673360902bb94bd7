/**
 * Rules every stored text obeys, whatever the field: no NUL (databases cut or refuse strings at it)
 * and no lone (unpaired) UTF-16 surrogate (it cannot be encoded as UTF-8, so a driver silently
 * rewrites it to U+FFFD and two different inputs become one stored value).
 */
export function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain NUL characters';
  if (LONE_SURROGATE.test(text)) return 'must not contain unpaired surrogates';
  return undefined;
}

/** A lone surrogate: with the `u` flag a well-formed pair is one code point, never `Cs`. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Invisible characters: Unicode format characters (`Cf`), which include the zero-width space,
 * (non-)joiners, word joiner, byte-order mark, soft hyphen and the bidi controls (U+200E/F,
 * U+202A–U+202E, U+2066–U+2069). Names and e-mails refuse them, so two values that look the same
 * are the same value, and none can reorder or hide what is shown next to it.
 */
const INVISIBLE = /\p{Cf}/u;

export const INVISIBLE_MESSAGE = 'must not contain invisible characters';

/** Whether a text contains an invisible (format) character. */
export function hasInvisibleCharacters(text: string): boolean {
  return INVISIBLE.test(text);
}
