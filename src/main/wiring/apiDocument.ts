import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument, type OpenApiDocument } from '../../adapters/inbound/http/openapi.js';
import type { Operation } from '../../adapters/inbound/http/operations.js';
import { DOCS_OPERATIONS } from '../../adapters/inbound/http/routes/docs.js';
import type { Config } from '../config/schema.js';
import type { FeatureModule } from '../modules/FeatureModule.js';

/** The modules whose REST routes `api.mode` serves: the core features always, resources in `rest`/`both`. */
export function restModules(modules: readonly FeatureModule[], config: Config): FeatureModule[] {
  const resourcesOverRest = config.api.mode === 'rest' || config.api.mode === 'both';
  return modules.filter((module) => module.rest && (module.rest.always || resourcesOverRest));
}

/** Every REST operation the service serves with this configuration, the document's own included. */
export function servedOperations(modules: readonly FeatureModule[], config: Config): Operation[] {
  return [
    ...restModules(modules, config).flatMap((module) => module.rest?.operations ?? []),
    ...(config.docs.enabled ? DOCS_OPERATIONS : []),
  ];
}

/** The package's version, from the package.json above this file (sources and `dist` alike). */
function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'portico' && pkg.version) return pkg.version;
    } catch {
      // not here: look further up
    }
    const parent = dirname(dir);
    if (parent === dir) return '0.0.0';
    dir = parent;
  }
}

const DESCRIPTION = `Portico's REST API (the repository's docs/ say what a client relies on). Every answer is JSON: \`{"success": true, "data": …}\` (lists add \`meta\`),
or \`{"success": false, "error": {"code", "message", "detail"?, "fields"?}}\`; 204 has no body.
Every answer carries \`X-Request-ID\`; answers counted by the rate limiter carry \`X-RateLimit-*\`.

Besides what each operation lists, any request may be answered by the HTTP layer itself: 404 \`NOT_FOUND\`
(\`route not found\`) on an unknown path, 405 \`METHOD_NOT_ALLOWED\` with \`Allow\` on a known path with another
method (OPTIONS answers 204 with \`Allow\`), and 408 (no body) when headers take longer than \`server.headers_timeout\`.

Authentication: \`POST /api/v1/auth/login\` (or register) gives an \`access_token\`; send it as
\`Authorization: Bearer <access_token>\`. Which roles may use which route is the access policy's to say
(\`GET /api/v1/admin/policies\`).`;

/** The OpenAPI document of what the service serves with this configuration (README: API document). */
export function apiDocument(modules: readonly FeatureModule[], config: Config): OpenApiDocument {
  return buildOpenApiDocument(servedOperations(modules, config), {
    title: 'Portico API',
    version: packageVersion(),
    description: DESCRIPTION,
  });
}
