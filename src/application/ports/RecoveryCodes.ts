/**
 * Makes and hashes recovery codes. Promises: each code is random (at least 50 bits); `hash` of a
 * code as the user types it (any case, with or without its dash and spaces) equals `hash` of the
 * code as made, and cannot be reversed without a key no store of the service holds; `hash` answers
 * `undefined` for anything not shaped like a code.
 */
export interface RecoveryCodes {
  create(count: number): string[];
  hash(code: string): string | undefined;
}
