import { envName } from '../../src/main/config/loadConfig.js';
import { KEYS } from '../../src/main/config/schema.js';
import { readConfig } from '../../src/main/config/readConfig.js';

/** `health.http` is a configuration key outside KEYS (it is a list of checks); SVC_ENV/SVC_CONFIG pick the file. */
const CONFIG_VARIABLES = new Set([...Object.keys(KEYS), 'health.http'].map(envName).concat(['SVC_ENV', 'SVC_CONFIG']));

/** The `SVC_` names among `names` that name no configuration key (the service would ignore them silently). */
export const unknownSettings = (names: Iterable<string>): string[] =>
  [...names].filter((name) => name.startsWith('SVC_') && !CONFIG_VARIABLES.has(name));

/** The service's configuration under exactly these environment variables, with the repository's config files. */
export const configUnder = (env: Record<string, string>) => readConfig(env, process.cwd());
