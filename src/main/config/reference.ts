import { envName } from './loadConfig.js';
import { BUILT_IN_SCHEDULES, DEFAULT_OIDC_SCOPES, JOB_SCHEDULES, KEYS, OIDC_PROVIDERS } from './schema.js';

/** The list of HTTP checks, read apart from KEYS (a list of objects, JSON in the environment). */
const HTTP_CHECKS = 'health.http';

/**
 * What each configuration key means, for the generated reference (`npm run cli -- config:docs`,
 * `docs/configuration.md`). Its type and default come from the schema itself; a test fails when a
 * key has no meaning here or a meaning names no key.
 */
export const MEANINGS: Readonly<Record<string, string>> = {
  'server.host': 'The address the API listens on.',
  'server.port': 'The API port; `0` takes any free port.',
  'server.trust_proxy': 'When true, the client IP comes from `X-Forwarded-For` (set it behind a proxy you run).',
  'server.trust_proxy_hops':
    'With `trust_proxy`: the `X-Forwarded-For` entry this many from the right (the one your proxy wrote) is the client.',
  'server.request_timeout': 'A request still running after this answers 503 `TIMEOUT`.',
  'server.body_limit': 'A larger request body answers 413 `PAYLOAD_TOO_LARGE`.',
  'server.shutdown_timeout': 'On SIGTERM, how long requests in flight may take to finish.',
  'server.shutdown_delay':
    'After SIGTERM: readiness answers 503 at once and answers carry `Connection: close` this long, then the listener closes; `0s` for none.',
  'server.headers_timeout': 'How long a client may take to send its request headers (past it: 408, connection closed).',
  'server.max_connections_per_ip': 'Open sockets per client IP; more are closed at once.',
  'server.max_in_flight':
    'Past this many requests in progress, a new one answers 503 `OVERLOADED` (health paths exempt).',
  'server.max_event_loop_delay':
    'While the event loop stays this late (with hysteresis), new requests answer 503 `OVERLOADED` (health paths exempt).',
  'server.public_url':
    'The service’s public origin (`https://api.example.com`): identity providers send browsers back to it; empty: the request’s own origin (refused in production with providers configured).',
  'server.hsts':
    '`Strict-Transport-Security` on every answer too, beside `X-Content-Type-Options`, `Referrer-Policy` and `X-Frame-Options` (only when every client uses HTTPS).',
  'database.url': '`sqlite:<file>`, `sqlite::memory:`, or `postgres://user:pass@host:5432/db`.',
  'database.migrate_on_start': 'Apply pending migrations at start (they take a lock on PostgreSQL).',
  'database.query_timeout':
    'A database call (or the wait for a pooled connection) past it answers 503 `SERVICE_UNAVAILABLE`; PostgreSQL cancels the statement too, unless `database.prepared_statements` is false.',
  'database.migration_url':
    'PostgreSQL: where migrations take their advisory lock — a direct connection past a transaction pooler; empty: `database.url`.',
  'database.prepared_statements':
    'PostgreSQL: named prepared statements and a server-side statement bound per connection; `false` behind a transaction pooler such as PgBouncer.',
  'database.replica_urls':
    'PostgreSQL: read replicas (`postgres://` URLs); reads outside a transaction go to one of them, writes and transactions to `database.url`, and a client reads its own writes at once (docs/deployment.md#read-replicas); empty: none.',
  'database.replica_max_lag': 'A replica further behind than this serves no reads: they go to the primary.',
  'redis.url':
    'Redis for the shared rate limit, login throttle, the `cache` check and change propagation; empty: none.',
  'cache.ttl':
    'How long a row of a resource declared `cached` (and the stored access rules) stay cached when no write forgets them; writes forget them on every instance at once.',
  'api.mode': 'Which APIs are served: `rest`, `graphql` or `both`.',
  'jwt.secret': 'The signing secret; refused in production when it is the shipped placeholder or under 32 bytes.',
  'jwt.expiration': 'How long an access token lives.',
  'jwt.refresh_expiration': 'How long a refresh token lives.',
  'jwt.issuer': 'The `iss` claim written and required.',
  'secrets.encryption_key':
    'The key e-mailed links (and other secrets the service makes again later) are derived from, at least 32 bytes; ' +
    'required in production, derived from jwt.secret in development when unset. Never stored in the database.',
  'graphql.general_route': 'The GraphQL endpoint.',
  'graphql.playground_route': 'The GraphiQL page.',
  'graphql.playground': 'Serve the playground; `false` by default in production.',
  'graphql.introspection': 'Answer introspection; `false` by default in production.',
  'graphql.max_depth': 'Deeper documents are refused before execution (every field counts).',
  'graphql.max_tokens': 'Longer documents are refused while parsing.',
  'graphql.max_cost':
    'Costlier operations (objects they may return, lists at their `pagination.limit`) are refused before execution.',
  'docs.enabled': '`GET /api/v1/openapi.json` and `GET /docs`; `false` by default in production.',
  'metrics.enabled': 'The management listener (`/metrics` and the health paths); `false`: no listener, no metrics.',
  'metrics.host': 'The management listener’s address.',
  'metrics.port': 'The management listener’s port; `0` takes any free port; must differ from `server.port`.',
  'cors.allowed_origins': '`*`, or the exact origins allowed.',
  'cors.allowed_methods': 'Methods a cross-origin request may use.',
  'cors.allowed_headers': 'Request headers a cross-origin request may send.',
  'cors.exposed_headers': 'Response headers a browser may read.',
  'cors.allow_credentials': 'Allow credentials; `true` with origin `*` is a configuration error.',
  'cors.max_age': 'How long a browser may cache a preflight answer.',
  'rate_limit.enabled': 'Rate limit per client IP (health paths and preflights exempt).',
  'rate_limit.rate': 'Requests per window: `<count>-<S|M|H|D>`.',
  'rate_limit.store': '`memory` (per instance) or `redis` (shared; needs `redis.url`).',
  'auth.bcrypt_cost': 'The bcrypt cost of stored passwords.',
  'auth.login_max_failures': 'Failed logins (or wrong `current_password`) per e-mail and client IP before 429.',
  'auth.login_window': 'The window those failures are counted in.',
  'auth.mfa.required_roles':
    'Roles (e.g. `admin`) whose users must turn on a second factor: until they do, their tokens reach only ' +
    '`/api/v1/profile/mfa/*` and `/api/v1/profile/passkeys*` (403 `MFA_ENROLLMENT_REQUIRED` elsewhere).',
  'auth.webauthn.rp_id':
    'The passkeys’ relying party id: the host name they belong to (your front end’s, or a parent domain of it). ' +
    'Changing it orphans every passkey registered before.',
  'auth.webauthn.rp_name': 'The name a browser shows when it registers a passkey.',
  'auth.webauthn.origins':
    'The origins of the front ends that run passkey ceremonies (`https://app.example.com`); each host must be ' +
    '`auth.webauthn.rp_id` or under it; `https://` except on localhost. The default is a local front end: set your own.',
  'auth.webauthn.require_user_verification':
    'Passkeys must verify their user (a PIN, a fingerprint): a passkey sign-in is then two factors; without ' +
    'verification it is refused.',
  'auth.oidc.redirect_uris':
    'The front-end URLs allowed to receive a sign-in with an identity provider (`redirect_uri` of `/api/v1/auth/oidc/{provider}/start`), matched exactly.',
  [OIDC_PROVIDERS]:
    'Identity providers to sign in with: name (`a-z`, `0-9`, `_`) → `{issuer, client_id, client_secret, scopes}`, the provider discovered from its ' +
    `issuer (\`https://\` in production); \`scopes\` defaults to \`${DEFAULT_OIDC_SCOPES}\`; a secret may come from ` +
    '`SVC_AUTH_OIDC_<NAME>_CLIENT_SECRET` instead. In a configuration file only.',
  'auth.require_verified_email':
    'Login answers 403 `EMAIL_NOT_VERIFIED` (mailing a new link) until the e-mail is verified.',
  'account.mails_per_ip_per_hour':
    'Account mails with a link (reset, verification) one client IP may trigger in an hour.',
  'jobs.mode':
    '`both`: serve and run background jobs; `web`: serve only; `worker`: run jobs and serve only the health paths (`npm run worker`).',
  'jobs.concurrency': 'Jobs one instance runs at once.',
  'jobs.timeout': 'A run older than this is taken up again, as if its runner died.',
  'jobs.retry_limit': 'Retries of a failing job (after 1 s, 2 s, 4 s …) before it is failed and kept.',
  'jobs.retry_max_delay': 'No retry waits longer than this.',
  'jobs.retention': 'How long failed jobs are kept (completed ones: a day).',
  'jobs.max_lag': 'The `jobs` health check is `degraded` when the oldest waiting job is older than this.',
  'mail.smtp_url':
    '`smtp://user:pass@host:587` or `smtps://…:465`; empty: mail goes to the log (refused in production).',
  'mail.from': 'The sender of account mail.',
  'mail.link_base_url': 'Where the links in account mail point (your front end); must be `https://` in production.',
  'mail.templates':
    'The folder of `password-reset.txt`, `email-verification.txt` and `email-changed.txt` (a `Subject:` line, a blank line, the body; `{{greeting}}`, `{{first_name}}`, and in link mails `{{link}}`, `{{expires_in}}`), checked at start.',
  'access.model': 'The casbin model.',
  'access.policy': 'The rules seeded into the database on first start (the file is never written).',
  'log.level': 'The lowest level logged.',
  'log.format': '`json`, or `pretty` for humans.',
  'tracing.otlp_endpoint': 'OTLP/HTTP traces URL; empty: tracing off.',
  'tracing.service_name': 'The `service.name` of the spans.',
  'tracing.sample_ratio':
    'The share of requests traced, decided by the service (an incoming `traceparent` gives the trace, never the decision).',
  'storage.driver':
    'Where files live: `local` (a folder, links served under `/files/`) or `s3` (any S3-compatible store).',
  'storage.path': '`local`: the folder files are kept in.',
  'storage.url_ttl': 'How long a signed link to a file (a download, a direct upload) is valid.',
  'storage.signing_secret':
    '`local`: what the `/files/` links are signed with (HMAC), at least 32 bytes; required in production, derived from jwt.secret in development when unset.',
  'storage.public_url':
    '`local`: the service’s public origin its file links start with (`https://api.example.com`); empty: relative links (`/files/…`).',
  'storage.s3.endpoint': '`s3`: the store’s URL (`http://127.0.0.1:7480`); empty: AWS’s endpoint for the region.',
  'storage.s3.region': '`s3`: the region requests are signed for.',
  'storage.s3.bucket': '`s3`: the bucket, which must exist; required with `storage.driver: s3`.',
  'storage.s3.access_key_id': '`s3`: the access key; empty with the secret: the SDK’s default credentials.',
  'storage.s3.secret_access_key': '`s3`: the secret key (never logged nor echoed).',
  'storage.s3.force_path_style':
    '`s3`: `true` addresses the bucket in the path (`<endpoint>/<bucket>/<key>`), as most self-hosted stores need.',
  'health.check_timeout': 'Each health check’s bound; past it the check is `down` with `timeout`.',
  'health.disk.path': 'The directory the `disk` check watches; empty: the SQLite file’s directory (`.` on PostgreSQL).',
  'health.disk.min_free_bytes': 'Below this free space the `disk` check is `down`.',
  [HTTP_CHECKS]:
    'HTTP dependencies checked by `/health`: a list of `{name, url, timeout, critical}` (JSON in the environment).',
  [JOB_SCHEDULES]:
    'Job name → cron expression (five fields, UTC), each fired once per period across all instances; `off` removes one. In a configuration file only.',
};

const cell = (text: string): string => text.replace(/\|/g, '\\|');
const shownDefault = (value: unknown): string => {
  if (value === '') return 'empty';
  if (Array.isArray(value)) return `\`${value.join(',')}\``;
  return `\`${String(value)}\``;
};

/** Every key of the schema without a meaning, and every meaning that names no key. */
export function referenceGaps(): { undescribed: string[]; unknown: string[] } {
  const keys = [...Object.keys(KEYS), HTTP_CHECKS, JOB_SCHEDULES, OIDC_PROVIDERS];
  return {
    undescribed: keys.filter((key) => !Object.hasOwn(MEANINGS, key)),
    unknown: Object.keys(MEANINGS).filter((key) => !keys.includes(key)),
  };
}

/** The configuration reference as a Markdown table: key, variable, type, default, meaning. */
export function configurationTable(): string {
  const rows = Object.entries(KEYS).map(
    ([key, spec]) =>
      `| \`${key}\` | \`${envName(key)}\` | ${cell(spec.codec.name)} | ${cell(shownDefault(spec.default))} | ${cell(MEANINGS[key] ?? '')} |`,
  );
  rows.push(
    `| \`${HTTP_CHECKS}\` | \`${envName(HTTP_CHECKS)}\` | a list of checks (JSON) | \`[]\` | ${cell(MEANINGS[HTTP_CHECKS] ?? '')} |`,
    `| \`${JOB_SCHEDULES}\` | none | a map of job names to cron expressions | ${cell(
      Object.entries(BUILT_IN_SCHEDULES)
        .map(([name, cron]) => `\`${name}: ${cron}\``)
        .join(', '),
    )} | ${cell(MEANINGS[JOB_SCHEDULES] ?? '')} |`,
    `| \`${OIDC_PROVIDERS}\` | none | a map of provider names to {issuer, client_id, client_secret, scopes} | empty | ${cell(MEANINGS[OIDC_PROVIDERS] ?? '')} |`,
  );
  return ['| key | environment | type | default | meaning |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}

/** The whole reference page (`docs/configuration.md`), before formatting. */
export function configurationReference(): string {
  return `# Configuration reference

Generated from the configuration schema by \`npm run cli -- config:docs\`; a test holds this file equal
to it, so it cannot drift.

Values come from \`config/default.yaml\`, then \`config/<SVC_ENV>.yaml\` if it exists (or the file named
by \`SVC_CONFIG\`), then the environment: \`SVC_\` and the key in upper snake case, which beats the
files. Durations use Go syntax (\`500ms\`, \`1m30s\`, \`24h\`); lists from the environment are
comma-separated, items trimmed; \`SVC_HEALTH_HTTP\` takes JSON. Everything is validated at start:
anything invalid exits 1 with one line per problem naming the key (a URL's password is never
echoed). \`SVC_ENV\`, \`SVC_CONFIG\` and \`SVC_TEST_*\` are reserved; unknown \`SVC_\` variables are
ignored. With \`SVC_ENV=production\` the service also refuses the placeholder \`jwt.secret\`, an empty
\`secrets.encryption_key\` (or one equal to \`jwt.secret\`), an empty \`mail.smtp_url\`, a
\`mail.link_base_url\` that is not \`https://\`, identity providers without \`server.public_url\` or with an
\`http://\` issuer and, with the \`local\` storage driver, an empty
\`storage.signing_secret\` (or one equal to \`jwt.secret\`). Secret values are never echoed in these lines.

${configurationTable()}
`;
}
