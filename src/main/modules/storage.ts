import { ContainerModule } from 'inversify';
import type { RouteModule } from '../../adapters/inbound/http/app.js';
import { fileRoutes } from '../../adapters/inbound/http/routes/files.js';
import { LocalFileStorage } from '../../adapters/outbound/storage/LocalFileStorage.js';
import { FileLinks } from '../../application/files/FileLinks.js';
import { openFileStorage } from '../infrastructure/storage.js';
import { TOKENS } from '../wiring/tokens.js';
import { bindBuilt, built } from './built.js';
import type { FeatureModule } from './FeatureModule.js';

/** No routes: an engine whose links point at the store itself. */
const none: RouteModule = () => undefined;

/**
 * Where files live (docs/files.md): the `FileStorage` engine `storage.driver` picks, the signed links
 * of `FileLinks` (valid `storage.url_ttl`), and — with the local engine — the `/files/` routes that
 * serve its links (no token: the signature is the grant; never in the API document, which describes
 * the API's own routes).
 */
export const storage: FeatureModule = {
  name: 'storage',
  bindings: new ContainerModule(({ bind }) => {
    bindBuilt(
      bind(TOKENS.FileStorage),
      built({ config: TOKENS.Config }, ({ config }) => openFileStorage(config)),
    );
    bindBuilt(
      bind(TOKENS.FileLinks),
      built(
        { config: TOKENS.Config, storage: TOKENS.FileStorage },
        ({ config, storage }) => new FileLinks(storage, Math.floor(config.storage.urlTtlMs / 1000)),
      ),
    );
  }),
  rest: {
    always: true,
    operations: [],
    routes: built({ storage: TOKENS.FileStorage }, ({ storage }) =>
      storage instanceof LocalFileStorage ? fileRoutes(storage) : none,
    ),
  },
};
