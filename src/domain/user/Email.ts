/** Pragmatic address check: one `@`, no spaces, a dot in the domain, at most 254 characters. */
const SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@.]+$/;

/** Normalizes an e-mail the way it is stored and compared: trimmed and lower-cased. */
export function normalizeEmail(raw: string): string {
  return raw.trim().toLowerCase();
}

/** Whether an already-normalized e-mail is acceptable. */
export function isValidEmail(email: string): boolean {
  return email.length <= 254 && SHAPE.test(email);
}
