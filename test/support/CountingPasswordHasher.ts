import type { PasswordHasher } from '../../src/application/ports/PasswordHasher.js';

/** The hash CountingPasswordHasher makes of `password` (for builders that need a matching hash). */
export const fakeHashOf = (password: string): string => `hashed:${password}`;

/**
 * A transparent, fast PasswordHasher that counts its work, so tests can check how many
 * comparisons a use case spends (e.g. one for an unknown e-mail). Async like a real hasher:
 * each call answers on a later microtask, so a missing `await` shows.
 */
export class CountingPasswordHasher implements PasswordHasher {
  hashCalls = 0;
  verifyCalls = 0;
  /** Every comparison made, in order. */
  readonly verifications: { password: string; hash: string; matched: boolean }[] = [];

  async hash(password: string): Promise<string> {
    this.hashCalls += 1;
    await Promise.resolve();
    return fakeHashOf(password);
  }

  async verify(password: string, hash: string): Promise<boolean> {
    this.verifyCalls += 1;
    await Promise.resolve();
    const matched = hash === fakeHashOf(password);
    this.verifications.push({ password, hash, matched });
    return matched;
  }
}
