import { hkdfSync } from 'node:crypto';
import type { Config } from './schema.js';

/**
 * The key secrets are made with (`secrets.encryption_key`). Unset — allowed outside production only —
 * it is derived from `jwt.secret` under a label of its own, so development needs no second secret
 * while the bytes that sign tokens are never the bytes that key other secrets.
 */
export function secretsKey(config: Config): Buffer {
  if (config.secrets.encryptionKey !== '') return Buffer.from(config.secrets.encryptionKey, 'utf8');
  return Buffer.from(hkdfSync('sha256', config.jwt.secret, Buffer.alloc(0), 'portico/secrets.encryption_key', 32));
}

/**
 * The key the local storage engine signs its links with (`storage.signing_secret`). Unset — allowed
 * outside production only — it is derived from `jwt.secret` under a label of its own, like
 * {@link secretsKey}.
 */
export function storageSigningKey(config: Config): Buffer {
  if (config.storage.signingSecret !== '') return Buffer.from(config.storage.signingSecret, 'utf8');
  return Buffer.from(hkdfSync('sha256', config.jwt.secret, Buffer.alloc(0), 'portico/storage.signing_secret', 32));
}
