import { resolve } from 'node:path';
import { LocalFileStorage } from '../../adapters/outbound/storage/LocalFileStorage.js';
import type { FileStorage } from '../../application/ports/FileStorage.js';
import { storageSigningKey } from '../config/secretsKey.js';
import type { Config } from '../config/schema.js';
import { StartupError } from './StartupError.js';

/** How one engine is made from the configuration. */
type Engine = (config: Config) => FileStorage;

/**
 * The engines by `storage.driver` (docs/files.md): the one place an engine is chosen. `local` keeps
 * files under `storage.path` and serves its signed links under `/files/`; the S3 engine
 * (`src/adapters/outbound/storage/S3FileStorage.ts`) is added here as `s3`.
 */
const ENGINES: Readonly<Partial<Record<Config['storage']['driver'], Engine>>> = {
  local: (config) =>
    new LocalFileStorage({
      root: resolve(config.storage.path),
      signingSecret: storageSigningKey(config),
      publicUrl: config.storage.publicUrl,
    }),
};

/** The file storage `storage.driver` names. */
export function openFileStorage(config: Config): FileStorage {
  const engine = ENGINES[config.storage.driver];
  if (!engine) throw new StartupError(`storage.driver: "${config.storage.driver}" is not available in this build`);
  return engine(config);
}
