/**
 * Time-based one-time passwords (RFC 6238: HMAC-SHA-1, 6 digits, 30-second steps). Promises:
 * `newSecret` is random (at least 160 bits) and base32; `verify` answers the time step a code
 * matches within one step either side of `now`, or `undefined` for anything else (never throws).
 */
export interface OneTimePasswords {
  newSecret(): string;
  /** The `otpauth://totp/…` URI an authenticator app reads (as a QR code) for `account` at `issuer`. */
  uri(secret: string, account: string, issuer: string): string;
  verify(secret: string, code: string, now: Date): number | undefined;
}
