import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { OneTimeSecret, OneTimeSecrets } from '../../../application/ports/OneTimeSecrets.js';

const SELECTOR_BYTES = 16;
/** base64url without padding: 16 bytes → 22 characters, a 32-byte HMAC-SHA256 → 43. */
const TOKEN = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;
const SELECTOR = /^[A-Za-z0-9_-]{22}$/;
const TOKEN_LENGTH = 22 + 1 + 43;
const HASH = /^[0-9a-f]{64}$/;
/** What the verifier key is for: a key derived for one use is never the key of another (TOTP secrets…). */
const PURPOSE = 'portico/e-mailed-token-verifier/v1';

/** Only the one spelling `create` makes (the unused low bits of the last character are zero). */
const canonical = (part: string): boolean => Buffer.from(part, 'base64url').toString('base64url') === part;

const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * E-mailed tokens as `<selector>.<verifier>`: a 128-bit random selector to find the stored row by,
 * and a verifier that is the HMAC-SHA256 of the selector under a key derived (HKDF) from
 * `secrets.encryption_key`, of which only the SHA-256 (hex) is stored. The token is therefore never
 * written anywhere — not in its row, not in the queued mail's job: the mail job carries the
 * selector, and `tokenOf` makes the link only when the mail is sent. A copy of every store the
 * service writes (a backup, a replica, pg-boss's archive) gives no usable token without the key,
 * which lives only in the configuration.
 */
export class KeyedOneTimeSecrets implements OneTimeSecrets {
  private readonly verifierKey: Buffer;

  /** `key`: the configured secret (at least 32 bytes); the verifier key is derived from it for this use alone. */
  constructor(key: string | Uint8Array) {
    const material = typeof key === 'string' ? Buffer.from(key, 'utf8') : Buffer.from(key);
    if (material.length < 32) throw new Error('KeyedOneTimeSecrets: the key must be at least 32 bytes');
    this.verifierKey = Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), PURPOSE, 32));
  }

  create(): OneTimeSecret {
    const selector = randomBytes(SELECTOR_BYTES).toString('base64url');
    const verifier = this.verifierOf(selector);
    return { token: `${selector}.${verifier}`, selector, verifierHash: sha256Hex(verifier) };
  }

  tokenOf(selector: string): string | undefined {
    if (typeof selector !== 'string' || !SELECTOR.test(selector) || !canonical(selector)) return undefined;
    return `${selector}.${this.verifierOf(selector)}`;
  }

  parse(token: string): { readonly selector: string; readonly verifier: string } | undefined {
    if (typeof token !== 'string' || token.length !== TOKEN_LENGTH) return undefined;
    const match = TOKEN.exec(token);
    if (!match?.[1] || !match[2] || !canonical(match[1]) || !canonical(match[2])) return undefined;
    return { selector: match[1], verifier: match[2] };
  }

  matches(verifier: string, verifierHash: string): boolean {
    if (typeof verifier !== 'string' || typeof verifierHash !== 'string' || !HASH.test(verifierHash)) return false;
    const actual = Buffer.from(sha256Hex(verifier), 'hex');
    const expected = Buffer.from(verifierHash, 'hex');
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  private verifierOf(selector: string): string {
    return createHmac('sha256', this.verifierKey).update(selector, 'utf8').digest('base64url');
  }
}
