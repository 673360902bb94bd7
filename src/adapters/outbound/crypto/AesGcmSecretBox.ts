import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { SecretBox } from '../../../application/ports/SecretBox.js';

/** What the sealing key is for: a key derived for one use is never the key of another (e-mailed tokens…). */
const PURPOSE = 'portico/sealed-secrets/aes-256-gcm/v1';
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SEALED = /^v1\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{22})$/;

/**
 * Secrets sealed with AES-256-GCM under a key derived (HKDF-SHA256) from `secrets.encryption_key` for
 * this use alone — the key the e-mailed links are made with, never the bytes themselves. A sealed text
 * is `v1.<iv>.<ciphertext>.<tag>` (base64url): a fresh 96-bit IV each time, and the row it belongs to
 * (`context`, the user's id) bound in as associated data, so a copied or moved value does not open.
 * Changing `secrets.encryption_key` makes the sealed secrets unreadable (their users turn TOTP on again).
 */
export class AesGcmSecretBox implements SecretBox {
  private readonly key: Buffer;

  /** `key`: the configured secret (at least 32 bytes); the sealing key is derived from it for this use alone. */
  constructor(key: string | Uint8Array) {
    const material = typeof key === 'string' ? Buffer.from(key, 'utf8') : Buffer.from(key);
    if (material.length < 32) throw new Error('AesGcmSecretBox: the key must be at least 32 bytes');
    this.key = Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), PURPOSE, 32));
  }

  seal(secret: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    const parts = [iv, body, cipher.getAuthTag()].map((part) => part.toString('base64url'));
    return [VERSION, ...parts].join('.');
  }

  open(sealed: string, context: string): string | undefined {
    if (typeof sealed !== 'string' || typeof context !== 'string') return undefined;
    const match = SEALED.exec(sealed);
    if (!match) return undefined;
    try {
      const [iv, body, tag] = [match[1], match[2], match[3]].map((part) => Buffer.from(part as string, 'base64url'));
      const decipher = createDecipheriv('aes-256-gcm', this.key, iv as Buffer, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tag as Buffer);
      return Buffer.concat([decipher.update(body as Buffer), decipher.final()]).toString('utf8');
    } catch {
      return undefined; // another key, another row, or altered bytes: the tag does not match
    }
  }
}
