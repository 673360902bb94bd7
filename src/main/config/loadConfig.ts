import { isLeft } from 'fp-ts/lib/Either.js';
import { parse as parseYaml } from 'yaml';
import { cronProblem } from '../../adapters/outbound/schedules/cron.js';
import {
  BUILT_IN_SCHEDULES,
  DEFAULT_OIDC_SCOPES,
  HttpCheckEntry,
  JOB_SCHEDULES,
  KEYS,
  OIDC_PROVIDERS,
  PLACEHOLDER_SECRET,
  type Config,
  type OidcProvider,
} from './schema.js';
import { configOf } from './sections.js';

/** Where configuration comes from; injected so loading is testable without touching the disk. */
export interface ConfigSources {
  env: Readonly<Record<string, string | undefined>>;
  /** Returns the file's text, or `undefined` when it does not exist. */
  readFile(path: string): string | undefined;
}

export type ConfigResult = { ok: true; config: Config } | { ok: false; errors: string[] };

/** `jwt.refresh_expiration` → `SVC_JWT_REFRESH_EXPIRATION`. */
export const envName = (path: string): string => `SVC_${path.toUpperCase().replace(/\./g, '_')}`;

const HTTP_CHECKS = 'health.http';
const PRODUCTION_OFF = new Set(['graphql.playground', 'graphql.introspection', 'docs.enabled']);

function show(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
}

/** The password of any URL in a value (`database.url`, `redis.url`, `mail.smtp_url`, each of a list …), never echoed in an error line. */
const hidePassword = (value: unknown): unknown =>
  typeof value === 'string'
    ? value.replace(/(^|[\s,])([^:/?#\s,]*:\/\/[^:/@]*:)[^@]*@/g, '$1$2***@')
    : Array.isArray(value)
      ? value.map(hidePassword)
      : value;

const known = (path: string): boolean =>
  Object.hasOwn(KEYS, path) || path === HTTP_CHECKS || path === JOB_SCHEDULES || path === OIDC_PROVIDERS;
const isSection = (path: string): boolean =>
  Object.keys(KEYS).some((k) => k.startsWith(`${path}.`)) || HTTP_CHECKS.startsWith(`${path}.`);

/** Flattens nested YAML mappings into dotted keys; `health.http` stays a list. Empty values mean "use the default". */
function flatten(source: string, value: unknown, prefix: string, out: Map<string, unknown>, errors: string[]): void {
  if (prefix !== '' && !known(prefix) && !isSection(prefix)) {
    errors.push(`${prefix}: unknown key (in ${source})`);
    return;
  }
  if (value === null || value === undefined) return;
  if (prefix !== '' && known(prefix)) {
    out.set(prefix, value);
    return;
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    errors.push(
      prefix === ''
        ? `${source}: the top level must be a mapping of keys`
        : `${prefix}: must be a mapping of keys (in ${source})`,
    );
    return;
  }
  for (const [name, child] of Object.entries(value as Record<string, unknown>)) {
    flatten(source, child, prefix === '' ? name : `${prefix}.${name}`, out, errors);
  }
}

function readYaml(
  path: string,
  required: boolean,
  sources: ConfigSources,
  out: Map<string, unknown>,
  errors: string[],
): void {
  const text = sources.readFile(path);
  if (text === undefined) {
    if (required) errors.push(`SVC_CONFIG: file ${show(path)} does not exist`);
    return;
  }
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    const where = error instanceof Error ? error.message.split('\n')[0] : 'parse error';
    errors.push(`${path}: not valid YAML (${where})`);
    return;
  }
  flatten(path, document, '', out, errors);
}

/** Keys whose values are secrets: named, never shown, in a configuration error. */
const SECRET_KEYS: ReadonlySet<string> = new Set([
  'jwt.secret',
  'secrets.encryption_key',
  'storage.signing_secret',
  'storage.s3.secret_access_key',
]);

/**
 * Loads `config/default.yaml`, then `config/<SVC_ENV>.yaml` (or the file named by `SVC_CONFIG`),
 * then `SVC_*` environment overrides, and validates every key. Problems come back as one line
 * per key (`jwt.expiration: "24x" is not a duration`), never as an exception.
 */
export function loadConfig(sources: ConfigSources): ConfigResult {
  const errors: string[] = [];
  const env = sources.env.SVC_ENV?.trim() || 'development';
  const production = env === 'production';
  const fileValues = readFiles(env, sources, errors);
  const values = decodeKeys(sources.env, fileValues, production, errors);
  const httpChecks = decodeHttpChecks(sources.env[envName(HTTP_CHECKS)], fileValues.get(HTTP_CHECKS), errors);
  if (sources.env[envName(JOB_SCHEDULES)] !== undefined)
    errors.push(`${envName(JOB_SCHEDULES)}: ${JOB_SCHEDULES} is a map, set in a configuration file only`);
  const schedules = decodeSchedules(fileValues.get(JOB_SCHEDULES), errors);
  if (sources.env[envName(OIDC_PROVIDERS)] !== undefined)
    errors.push(`${envName(OIDC_PROVIDERS)}: ${OIDC_PROVIDERS} is a map, set in a configuration file only`);
  const oidcProviders = decodeOidcProviders(fileValues.get(OIDC_PROVIDERS), sources.env, errors);
  if (errors.length > 0) return { ok: false, errors };
  const config = configOf(env, <A>(path: string) => values.get(path) as A, { httpChecks, schedules, oidcProviders });
  errors.push(...crossChecks(config, production));
  return errors.length > 0 ? { ok: false, errors } : { ok: true, config };
}

/** The files' values by key: `config/default.yaml`, then `SVC_CONFIG`'s file or `config/<env>.yaml` over it. */
function readFiles(env: string, sources: ConfigSources, errors: string[]): Map<string, unknown> {
  const fileValues = new Map<string, unknown>();
  readYaml('config/default.yaml', false, sources, fileValues, errors);
  const explicit = sources.env.SVC_CONFIG?.trim();
  if (explicit) readYaml(explicit, true, sources, fileValues, errors);
  else readYaml(`config/${env}.yaml`, false, sources, fileValues, errors);
  return fileValues;
}

/**
 * Every key's value, decoded: from its `SVC_` variable, else the files, else its default (in
 * production, off for the keys that must be asked for there). A value that does not decode is an
 * error line naming the key, its value never shown when it is a secret.
 */
function decodeKeys(
  env: ConfigSources['env'],
  fileValues: ReadonlyMap<string, unknown>,
  production: boolean,
  errors: string[],
): Map<string, unknown> {
  const values = new Map<string, unknown>();
  for (const [path, spec] of Object.entries(KEYS)) {
    const fromEnv = env[envName(path)];
    const raw =
      fromEnv !== undefined
        ? fromEnv
        : fileValues.has(path)
          ? fileValues.get(path)
          : production && PRODUCTION_OFF.has(path)
            ? false
            : spec.default;
    const decoded = spec.codec.decode(raw);
    // A secret's value is never echoed: the error line goes to a terminal or a log.
    const shown = SECRET_KEYS.has(path) ? 'the value given' : show(hidePassword(raw));
    if (isLeft(decoded)) errors.push(`${path}: ${shown} is not ${spec.codec.name}`);
    else values.set(path, decoded.right);
  }
  return values;
}

function decodeHttpChecks(fromEnv: string | undefined, fromFile: unknown, errors: string[]): Config['health']['http'] {
  let raw: unknown = fromFile ?? [];
  if (fromEnv !== undefined) {
    try {
      raw = fromEnv.trim() === '' ? [] : JSON.parse(fromEnv);
    } catch {
      errors.push(`${HTTP_CHECKS}: ${show(fromEnv)} is not JSON (a list of {name, url, timeout, critical?})`);
      return [];
    }
  }
  if (!Array.isArray(raw)) {
    errors.push(`${HTTP_CHECKS}: ${show(raw)} is not a list of {name, url, timeout, critical?}`);
    return [];
  }
  const checks: Config['health']['http'] = [];
  raw.forEach((entry, i) => {
    const decoded = HttpCheckEntry.decode(entry);
    if (isLeft(decoded)) {
      for (const e of decoded.left) {
        const field = e.context
          .map((c) => c.key)
          .filter((k) => k !== '')
          .join('.');
        const expected = e.context[e.context.length - 1]?.type.name ?? 'valid';
        const where = `${HTTP_CHECKS}[${i}]${field ? `.${field}` : ''}`;
        errors.push(e.value === undefined ? `${where}: is missing` : `${where}: ${show(e.value)} is not ${expected}`);
      }
      return;
    }
    const { name, url, timeout, critical } = decoded.right;
    checks.push({ name, url, timeoutMs: timeout, critical });
  });
  const names = checks.map((c) => c.name);
  const builtIn = new Set(['database', 'cache', 'disk', 'event_loop']);
  names.forEach((name, i) => {
    if (names.indexOf(name) !== i || builtIn.has(name))
      errors.push(`${HTTP_CHECKS}[${i}].name: ${show(name)} is already the name of another check`);
  });
  return checks;
}

/** The built-in schedules, then the file's: a job name mapped to a cron expression, or to `off` (no schedule). */
function decodeSchedules(fromFile: unknown, errors: string[]): Map<string, string> {
  const schedules = new Map(Object.entries(BUILT_IN_SCHEDULES));
  if (fromFile === undefined) return schedules;
  if (typeof fromFile !== 'object' || fromFile === null || Array.isArray(fromFile)) {
    errors.push(`${JOB_SCHEDULES}: ${show(fromFile)} is not a map of job names to cron expressions`);
    return schedules;
  }
  for (const [name, value] of Object.entries(fromFile as Record<string, unknown>)) {
    const where = `${JOB_SCHEDULES}.${name}`;
    // An empty value means the default, as for every other key.
    if (value === null) continue;
    if (value === 'off' || value === false) schedules.delete(name);
    else if (typeof value !== 'string') errors.push(`${where}: ${show(value)} is not a cron expression or off`);
    else {
      const problem = cronProblem(value);
      if (problem) errors.push(`${where}: ${show(value)} is not a cron expression (${problem})`);
      else schedules.set(name, value.trim());
    }
  }
  return schedules;
}

/** A provider's name: it is a path segment and a part of its secret's variable name. */
const PROVIDER_NAME = /^[a-z][a-z0-9_]{0,31}$/;

/** `SVC_AUTH_OIDC_<NAME>_CLIENT_SECRET`: where a provider's secret may come from instead of the file. */
export const oidcSecretVariable = (name: string): string => `SVC_AUTH_OIDC_${name.toUpperCase()}_CLIENT_SECRET`;

/** One provider's entry, or its problems as error lines. */
function decodeOidcProvider(
  name: string,
  entry: unknown,
  env: ConfigSources['env'],
  errors: string[],
): OidcProvider | undefined {
  const where = `${OIDC_PROVIDERS}.${name}`;
  if (!PROVIDER_NAME.test(name)) {
    errors.push(`${where}: ${show(name)} is not a provider name (a lower-case letter, then up to 31 of a-z, 0-9, _)`);
    return undefined;
  }
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    errors.push(`${where}: must be a mapping of issuer, client_id, client_secret and scopes`);
    return undefined;
  }
  const fields = entry as Record<string, unknown>;
  const before = errors.length;
  for (const field of Object.keys(fields)) {
    if (!['issuer', 'client_id', 'client_secret', 'scopes'].includes(field))
      errors.push(`${where}.${field}: unknown key`);
  }
  const issuer = typeof fields.issuer === 'string' ? fields.issuer.trim() : undefined;
  let issuerOk = false;
  try {
    const url = issuer === undefined ? undefined : new URL(issuer);
    issuerOk = url !== undefined && ['http:', 'https:'].includes(url.protocol) && url.search === '' && url.hash === '';
  } catch {
    issuerOk = false;
  }
  if (!issuerOk)
    errors.push(`${where}.issuer: ${show(fields.issuer)} is not an http:// or https:// URL without query or fragment`);
  const clientId = typeof fields.client_id === 'string' ? fields.client_id.trim() : '';
  if (clientId === '') errors.push(`${where}.client_id: is missing`);
  const secretVariable = oidcSecretVariable(name);
  const fromEnv = env[secretVariable];
  const clientSecret =
    fromEnv !== undefined ? fromEnv : typeof fields.client_secret === 'string' ? fields.client_secret : '';
  if (clientSecret === '') errors.push(`${where}.client_secret: is missing (set it, or ${secretVariable})`);
  const rawScopes = fields.scopes ?? DEFAULT_OIDC_SCOPES;
  const scopes = (Array.isArray(rawScopes) ? rawScopes : typeof rawScopes === 'string' ? rawScopes.split(/\s+/) : [])
    .map((scope) => (typeof scope === 'string' ? scope.trim() : ''))
    .filter((scope) => scope !== '');
  if (!scopes.includes('openid') || scopes.some((scope) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope))) {
    errors.push(`${where}.scopes: ${show(rawScopes)} is not a list of scopes with openid among them`);
  }
  if (errors.length > before) return undefined;
  return { issuer: issuer!, clientId, clientSecret, scopes: scopes.join(' ') };
}

/** The identity providers of the files: a map of names to `{issuer, client_id, client_secret, scopes}`. */
function decodeOidcProviders(
  fromFile: unknown,
  env: ConfigSources['env'],
  errors: string[],
): Map<string, OidcProvider> {
  const providers = new Map<string, OidcProvider>();
  if (fromFile === undefined) return providers;
  if (typeof fromFile !== 'object' || fromFile === null || Array.isArray(fromFile)) {
    errors.push(
      `${OIDC_PROVIDERS}: ${show(fromFile)} is not a map of provider names to {issuer, client_id, client_secret, scopes}`,
    );
    return providers;
  }
  for (const [name, entry] of Object.entries(fromFile as Record<string, unknown>)) {
    const provider = decodeOidcProvider(name, entry, env, errors);
    if (provider) providers.set(name, provider);
  }
  return providers;
}

function crossChecks(config: Config, production: boolean): string[] {
  const errors: string[] = [];
  if (config.cors.allowCredentials && config.cors.allowedOrigins.includes('*')) {
    errors.push('cors.allow_credentials: true cannot be combined with cors.allowed_origins "*"; list the origins');
  }
  if (config.database.replicaUrls.length > 0 && config.database.url.startsWith('sqlite:')) {
    errors.push('database.replica_urls: read replicas need PostgreSQL (database.url is SQLite); leave it empty');
  }
  if (config.rateLimit.store === 'redis' && config.redis.url === '') {
    errors.push('rate_limit.store: "redis" needs redis.url to be set');
  }
  if (config.graphql.generalRoute === config.graphql.playgroundRoute) {
    errors.push('graphql.playground_route: must differ from graphql.general_route');
  }
  if (config.jobs.retentionMs < 60_000) {
    // pg-boss's scheduler does not start when failed jobs are kept less than a minute.
    errors.push('jobs.retention: must be at least 1m');
  }
  if (config.metrics.enabled && config.metrics.port !== 0 && config.metrics.port === config.server.port) {
    errors.push('metrics.port: must differ from server.port (the public port never serves the metrics)');
  }
  if (config.storage.driver === 's3' && config.storage.s3.bucket === '') {
    errors.push('storage.s3.bucket: must be set with storage.driver "s3" (set SVC_STORAGE_S3_BUCKET)');
  }
  if ((config.storage.s3.accessKeyId === '') !== (config.storage.s3.secretAccessKey === '')) {
    errors.push('storage.s3.access_key_id: must be set together with storage.s3.secret_access_key (or neither)');
  }
  const { rpId, origins } = config.auth.webauthn;
  for (const origin of origins) {
    const { protocol, hostname } = new URL(origin);
    if (hostname !== rpId && !hostname.endsWith(`.${rpId}`)) {
      errors.push(`auth.webauthn.origins: ${origin} is not on auth.webauthn.rp_id "${rpId}" or under it`);
    } else if (protocol === 'http:' && hostname !== 'localhost' && !hostname.endsWith('.localhost')) {
      // Browsers offer WebAuthn to secure contexts only: https://, or http:// on localhost.
      errors.push(`auth.webauthn.origins: ${origin} must be https:// (http:// only on localhost)`);
    }
  }
  if (production) {
    errors.push(...oidcProductionChecks(config));
    if (config.jwt.secret === PLACEHOLDER_SECRET) {
      errors.push('jwt.secret: the shipped placeholder must be replaced in production (set SVC_JWT_SECRET)');
    } else if (Buffer.byteLength(config.jwt.secret, 'utf8') < 32) {
      errors.push('jwt.secret: must be at least 32 bytes in production');
    }
    if (config.secrets.encryptionKey === '') {
      errors.push(
        'secrets.encryption_key: must be set in production (set SVC_SECRETS_ENCRYPTION_KEY, 32 bytes or more)',
      );
    } else if (config.secrets.encryptionKey === config.jwt.secret) {
      errors.push('secrets.encryption_key: must differ from jwt.secret');
    }
    if (!config.mail.linkBaseUrl.startsWith('https://')) {
      errors.push(
        'mail.link_base_url: must be set to an https:// URL in production (set SVC_MAIL_LINK_BASE_URL to your front end)',
      );
    }
    if (config.mail.smtpUrl === '') {
      errors.push(
        'mail.smtp_url: must be set in production (set SVC_MAIL_SMTP_URL); the log mailer, which writes links with tokens to the log, is for development only',
      );
    }
    if (config.storage.driver === 'local' && config.storage.signingSecret === '') {
      errors.push(
        'storage.signing_secret: must be set in production with storage.driver "local" (set SVC_STORAGE_SIGNING_SECRET, 32 bytes or more)',
      );
    } else if (config.storage.driver === 'local' && config.storage.signingSecret === config.jwt.secret) {
      errors.push('storage.signing_secret: must differ from jwt.secret');
    }
  }
  return errors;
}

/** In production, identity providers need the service's public origin and `https://` issuers. */
function oidcProductionChecks(config: Config): string[] {
  const errors: string[] = [];
  const { providers } = config.auth.oidc;
  if (providers.size > 0 && config.server.publicUrl === '') {
    errors.push(
      `server.public_url: must be set in production when ${OIDC_PROVIDERS} lists providers (set SVC_SERVER_PUBLIC_URL to the service's public origin)`,
    );
  }
  for (const [name, provider] of providers) {
    if (!provider.issuer.startsWith('https://'))
      errors.push(`${OIDC_PROVIDERS}.${name}.issuer: must be an https:// URL in production`);
  }
  return errors;
}
