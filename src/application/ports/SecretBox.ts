/**
 * Seals secrets the service must read back (a TOTP secret) with a key that lives only in the
 * configuration. Promises: a sealed text reveals nothing of the secret without the key; `open`
 * answers the secret only for a text `seal` made under the same key with the same `context` (a
 * sealed text moved to another row does not open), `undefined` otherwise (never throws).
 */
export interface SecretBox {
  seal(secret: string, context: string): string;
  open(sealed: string, context: string): string | undefined;
}
