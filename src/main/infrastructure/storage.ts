import { resolve } from 'node:path';
import { LocalFileStorage } from '../../adapters/outbound/storage/LocalFileStorage.js';
import { S3FileStorage } from '../../adapters/outbound/storage/S3FileStorage.js';
import type { FileStorage } from '../../application/ports/FileStorage.js';
import { storageSigningKey } from '../config/secretsKey.js';
import type { Config } from '../config/schema.js';

/** How one engine is made from the configuration. */
type Engine = (config: Config) => FileStorage;

/**
 * The engines by `storage.driver` (docs/files.md): the one place an engine is chosen. `local` keeps
 * files under `storage.path` and serves its signed links under `/files/`; `s3` keeps them in a
 * bucket of any S3-compatible store, whose presigned links point at the store itself.
 */
const ENGINES: Readonly<Record<Config['storage']['driver'], Engine>> = {
  local: (config) =>
    new LocalFileStorage({
      root: resolve(config.storage.path),
      signingSecret: storageSigningKey(config),
      publicUrl: config.storage.publicUrl,
    }),
  s3: ({ storage: { s3 } }) =>
    new S3FileStorage({
      ...(s3.endpoint === '' ? {} : { endpoint: s3.endpoint }),
      region: s3.region,
      bucket: s3.bucket,
      ...(s3.accessKeyId === '' ? {} : { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey }),
      forcePathStyle: s3.forcePathStyle,
    }),
};

/** The file storage `storage.driver` names. */
export function openFileStorage(config: Config): FileStorage {
  return ENGINES[config.storage.driver](config);
}
