import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { OneTimeSecret, OneTimeSecrets } from '../../../application/ports/OneTimeSecrets.js';

const SELECTOR_BYTES = 16;
const VERIFIER_BYTES = 32;
/** base64url without padding: 16 bytes → 22 characters, 32 bytes → 43. */
const TOKEN = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;
const TOKEN_LENGTH = 22 + 1 + 43;
const HASH = /^[0-9a-f]{64}$/;

/** Only the one spelling `create` makes (the unused low bits of the last character are zero). */
const canonical = (part: string): boolean => Buffer.from(part, 'base64url').toString('base64url') === part;

const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * E-mailed tokens as `<selector>.<verifier>`: a 128-bit random selector to find the stored row
 * by, and a 256-bit random verifier of which only the SHA-256 (hex) is stored. A stolen table
 * gives no usable token, and the lookup by selector leaks nothing about the verifier.
 */
export class RandomOneTimeSecrets implements OneTimeSecrets {
  create(): OneTimeSecret {
    const selector = randomBytes(SELECTOR_BYTES).toString('base64url');
    const verifier = randomBytes(VERIFIER_BYTES).toString('base64url');
    return { token: `${selector}.${verifier}`, selector, verifierHash: sha256Hex(verifier) };
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
}
