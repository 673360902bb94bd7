/**
 * One-way password hashing. Promises: `verify(p, await hash(p))` is true; `verify` of any other
 * password is false; both take about the same time whatever the outcome, so callers can spend
 * one comparison on a made-up hash to hide whether an account exists.
 */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, hash: string): Promise<boolean>;
}
