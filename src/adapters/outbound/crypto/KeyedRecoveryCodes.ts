import { createHmac, hkdfSync, randomInt } from 'node:crypto';
import type { RecoveryCodes } from '../../../application/ports/RecoveryCodes.js';

/** Lower-case letters and digits without the look-alikes (0/o, 1/l/i): 31 symbols, ~4.95 bits each. */
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const LENGTH = 12;
const TYPED = new RegExp(`^[${ALPHABET}]{${LENGTH}}$`);
const PURPOSE = 'portico/recovery-code-hash/v1';

/**
 * Recovery codes as `xxxx-xxxx-xxxx` (12 random symbols of 31, about 59 bits), stored as their
 * HMAC-SHA256 under a key derived from `secrets.encryption_key` for this use alone: a copy of the
 * database cannot be searched for the codes without the key. A code is read as typed in any case,
 * with or without its dashes and spaces.
 */
export class KeyedRecoveryCodes implements RecoveryCodes {
  private readonly key: Buffer;

  /** `key`: the configured secret (at least 32 bytes); the hashing key is derived from it for this use alone. */
  constructor(key: string | Uint8Array) {
    const material = typeof key === 'string' ? Buffer.from(key, 'utf8') : Buffer.from(key);
    if (material.length < 32) throw new Error('KeyedRecoveryCodes: the key must be at least 32 bytes');
    this.key = Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), PURPOSE, 32));
  }

  create(count: number): string[] {
    return Array.from({ length: count }, () => {
      const symbols = Array.from({ length: LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
      return `${symbols.slice(0, 4)}-${symbols.slice(4, 8)}-${symbols.slice(8)}`;
    });
  }

  hash(code: string): string | undefined {
    if (typeof code !== 'string' || code.length > 64) return undefined;
    const typed = code.toLowerCase().replace(/[\s-]+/g, '');
    if (!TYPED.test(typed)) return undefined;
    return createHmac('sha256', this.key).update(typed, 'utf8').digest('hex');
  }
}
