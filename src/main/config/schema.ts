import * as t from 'io-ts';
import {
  Bool,
  ByteSize,
  DatabaseUrl,
  DatabaseUrlList,
  OptionalDatabaseUrl,
  Duration,
  DurationOrZero,
  HostName,
  HttpUrl,
  HttpUrlList,
  intIn,
  List,
  LinkBaseUrl,
  LogLevel,
  MailAddress,
  NonEmptyText,
  OptionalHttpUrl,
  OptionalBaseUrl,
  OptionalBool,
  oneOf,
  OriginList,
  RateText,
  Ratio,
  RedisUrl,
  RoutePath,
  SecretKey,
  SmtpUrl,
  Text,
  type Rate,
} from './codecs.js';

/** The shipped placeholder secret: refused in production. */
export const PLACEHOLDER_SECRET = 'change-me-in-production-this-is-not-a-secret';

/** One leaf of the configuration: its codec and its default (as written in YAML). */
interface Key {
  codec: t.Type<unknown, unknown, unknown>;
  default: unknown;
}

const key = <A>(codec: t.Type<A, unknown, unknown>, defaultValue: unknown): Key => ({
  codec: codec as t.Type<unknown, unknown, unknown>,
  default: defaultValue,
});

/** Every configuration key (dotted path) with its codec and default. `health.http` is handled apart. */
export const KEYS: Readonly<Record<string, Key>> = {
  'server.host': key(NonEmptyText, '0.0.0.0'),
  'server.port': key(intIn(0, 65535), 8080),
  'server.trust_proxy': key(Bool, false),
  'server.trust_proxy_hops': key(intIn(1, 32), 1),
  'server.request_timeout': key(Duration, '30s'),
  'server.body_limit': key(ByteSize, '1mb'),
  'server.shutdown_timeout': key(Duration, '10s'),
  'server.shutdown_delay': key(DurationOrZero, '3s'),
  'server.headers_timeout': key(Duration, '10s'),
  'server.max_connections_per_ip': key(intIn(1, 1_000_000), 256),
  'server.max_in_flight': key(intIn(1, 1_000_000), 512),
  'server.max_event_loop_delay': key(Duration, '500ms'),
  'server.hsts': key(Bool, false),
  'server.public_url': key(OptionalBaseUrl, ''),
  'database.url': key(DatabaseUrl, 'sqlite:data/portico.sqlite'),
  'database.migrate_on_start': key(Bool, true),
  'database.query_timeout': key(Duration, '5s'),
  'database.migration_url': key(OptionalDatabaseUrl, ''),
  'database.prepared_statements': key(Bool, true),
  'database.replica_urls': key(DatabaseUrlList, []),
  'database.replica_max_lag': key(Duration, '5s'),
  'redis.url': key(RedisUrl, ''),
  'cache.ttl': key(Duration, '60s'),
  'api.mode': key(oneOf('rest', 'graphql', 'both'), 'rest'),
  'jwt.secret': key(NonEmptyText, PLACEHOLDER_SECRET),
  'jwt.expiration': key(Duration, '24h'),
  'jwt.refresh_expiration': key(Duration, '168h'),
  'jwt.issuer': key(NonEmptyText, 'portico'),
  'secrets.encryption_key': key(SecretKey, ''),
  'graphql.general_route': key(RoutePath, '/graphql'),
  'graphql.playground_route': key(RoutePath, '/graphql-playground'),
  'graphql.playground': key(Bool, true),
  'graphql.introspection': key(Bool, true),
  'graphql.max_depth': key(intIn(1, 100), 15),
  'graphql.max_tokens': key(intIn(1, 1_000_000), 5000),
  'graphql.max_cost': key(intIn(1, 1_000_000_000), 10_000),
  'docs.enabled': key(Bool, true),
  'metrics.enabled': key(Bool, true),
  'metrics.host': key(NonEmptyText, '0.0.0.0'),
  'metrics.port': key(intIn(0, 65535), 9464),
  'cors.allowed_origins': key(List, ['*']),
  'cors.allowed_methods': key(List, ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS']),
  'cors.allowed_headers': key(List, ['Authorization', 'Content-Type', 'X-Request-ID']),
  'cors.exposed_headers': key(List, [
    'X-Request-ID',
    'X-RateLimit-Limit',
    'X-RateLimit-Remaining',
    'X-RateLimit-Reset',
    'Retry-After',
  ]),
  'cors.allow_credentials': key(Bool, false),
  'cors.max_age': key(Duration, '12h'),
  'rate_limit.enabled': key(Bool, true),
  'rate_limit.rate': key(RateText, '100-M'),
  'rate_limit.store': key(oneOf('memory', 'redis'), 'memory'),
  'auth.bcrypt_cost': key(intIn(4, 15), 10),
  'auth.login_max_failures': key(intIn(1, 1000), 5),
  'auth.login_window': key(Duration, '15m'),
  'auth.require_verified_email': key(Bool, false),
  'auth.mfa.required_roles': key(List, []),
  'auth.oidc.redirect_uris': key(HttpUrlList, []),
  'auth.webauthn.rp_id': key(HostName, 'localhost'),
  'auth.webauthn.rp_name': key(NonEmptyText, 'Portico'),
  'auth.webauthn.origins': key(OriginList, ['http://localhost:3000']),
  'auth.webauthn.require_user_verification': key(Bool, true),
  'account.mails_per_ip_per_hour': key(intIn(1, 1_000_000), 20),
  'jobs.mode': key(oneOf('both', 'web', 'worker'), 'both'),
  'jobs.concurrency': key(intIn(1, 1000), 4),
  'jobs.timeout': key(Duration, '5m'),
  'jobs.retry_limit': key(intIn(0, 100), 8),
  'jobs.retry_max_delay': key(Duration, '10m'),
  'jobs.retention': key(Duration, '14d'),
  'jobs.max_lag': key(Duration, '5m'),
  'mail.smtp_url': key(SmtpUrl, ''),
  'mail.from': key(MailAddress, 'Portico <no-reply@localhost>'),
  'mail.link_base_url': key(LinkBaseUrl, 'http://localhost:8080'),
  'mail.templates': key(NonEmptyText, 'mail/templates'),
  'access.model': key(NonEmptyText, 'policy/model.conf'),
  'access.policy': key(NonEmptyText, 'policy/policy.csv'),
  'log.level': key(LogLevel, 'info'),
  'log.format': key(oneOf('json', 'pretty'), 'json'),
  'tracing.otlp_endpoint': key(OptionalHttpUrl, ''),
  'tracing.service_name': key(NonEmptyText, 'portico'),
  'tracing.sample_ratio': key(Ratio, 1),
  'storage.driver': key(oneOf('local', 's3'), 'local'),
  'storage.path': key(NonEmptyText, 'data/files'),
  'storage.url_ttl': key(Duration, '15m'),
  'storage.signing_secret': key(SecretKey, ''),
  'storage.public_url': key(OptionalBaseUrl, ''),
  'storage.s3.endpoint': key(OptionalHttpUrl, ''),
  'storage.s3.region': key(NonEmptyText, 'us-east-1'),
  'storage.s3.bucket': key(Text, ''),
  'storage.s3.access_key_id': key(Text, ''),
  'storage.s3.secret_access_key': key(Text, ''),
  'storage.s3.force_path_style': key(Bool, false),
  'health.check_timeout': key(Duration, '2s'),
  'health.disk.path': key(Text, ''),
  'health.disk.min_free_bytes': key(intIn(0, Number.MAX_SAFE_INTEGER), 104857600),
};

/** `jobs.schedules`: set in a configuration file only (a map has no `SVC_` form). */
export const JOB_SCHEDULES = 'jobs.schedules';

/** The schedules every service has unless its configuration sets them `off` (docs/jobs.md). */
export const BUILT_IN_SCHEDULES: Readonly<Record<string, string>> = {
  'tokens.purge': '0 * * * *',
  'files.purge': '0 * * * *',
};

/** `auth.oidc.providers`: set in a configuration file only (a map; each secret may come from its own variable). */
export const OIDC_PROVIDERS = 'auth.oidc.providers';

/** The scopes a provider is asked for unless its entry says otherwise. */
export const DEFAULT_OIDC_SCOPES = 'openid email profile';

/** One OpenID Connect provider a user may sign in with (docs/authentication.md). */
export interface OidcProvider {
  /** Its issuer: discovered at `<issuer>/.well-known/openid-configuration`, and the `iss` of its ID tokens. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Space-separated, `openid` among them. */
  readonly scopes: string;
}

/** `health.http` entries. */
export const HttpCheckEntry = t.type({ name: NonEmptyText, url: HttpUrl, timeout: Duration, critical: OptionalBool });

/** The validated configuration the rest of the service reads. Durations are milliseconds. */
export interface Config {
  env: string;
  server: {
    host: string;
    port: number;
    trustProxy: boolean;
    /** Which `X-Forwarded-For` entry, counted from the right, is the client (the one the trusted proxy wrote). */
    trustProxyHops: number;
    requestTimeoutMs: number;
    bodyLimitBytes: number;
    shutdownTimeoutMs: number;
    /** After SIGTERM: how long to keep serving (with `Connection: close`) before the listener closes. */
    shutdownDelayMs: number;
    headersTimeoutMs: number;
    maxConnectionsPerIp: number;
    maxInFlight: number;
    maxEventLoopDelayMs: number;
    /** `Strict-Transport-Security` too, beside the security headers every answer carries (only behind HTTPS). */
    hsts: boolean;
    /** The service's public origin (`https://api.example.com`), where providers send browsers back; empty: the request's own. */
    publicUrl: string;
  };
  database: {
    url: string;
    migrateOnStart: boolean;
    queryTimeoutMs: number;
    /** PostgreSQL: where migrations run and take their lock, past a transaction pooler; empty: `url`. */
    migrationUrl: string;
    /** PostgreSQL: named prepared statements and a session statement bound; false behind a transaction pooler. */
    preparedStatements: boolean;
    /** PostgreSQL: read replicas, which serve reads outside a transaction; empty: every read on the primary. */
    replicaUrls: string[];
    /** A replica further behind than this serves no reads (they go to the primary). */
    replicaMaxLagMs: number;
  };
  redis: { url: string };
  /** The shared cache: how long a cached resource row (and the stored access rules) is kept when no write forgets it. */
  cache: { ttlMs: number };
  api: { mode: 'rest' | 'graphql' | 'both' };
  jwt: { secret: string; expirationMs: number; refreshExpirationMs: number; issuer: string };
  /**
   * `encryptionKey`: what secrets the service must make or read again are keyed with (the links of
   * queued account mails); empty in development means one derived from `jwt.secret` (see
   * `secretsKey`), refused in production.
   */
  secrets: { encryptionKey: string };
  graphql: {
    generalRoute: string;
    playgroundRoute: string;
    playground: boolean;
    introspection: boolean;
    maxDepth: number;
    maxTokens: number;
    /** Most objects one operation may return in the worst case (README: GraphQL); costlier ones are refused. */
    maxCost: number;
  };
  /** The API document at /api/v1/openapi.json and its reference at /docs (README: API document). */
  docs: { enabled: boolean };
  /** Prometheus metrics at `GET /metrics` on their own listener, never the public port (README: Metrics and Tracing). */
  metrics: { enabled: boolean; host: string; port: number };
  cors: {
    allowedOrigins: string[];
    allowedMethods: string[];
    allowedHeaders: string[];
    exposedHeaders: string[];
    allowCredentials: boolean;
    maxAgeMs: number;
  };
  rateLimit: { enabled: boolean; rate: Rate; store: 'memory' | 'redis' };
  auth: {
    bcryptCost: number;
    loginMaxFailures: number;
    loginWindowMs: number;
    /** Login answers 403 `EMAIL_NOT_VERIFIED` until the user's e-mail is verified (docs/authentication.md). */
    requireVerifiedEmail: boolean;
    /** Roles whose users reach only second-factor enrolment until they have one (docs/authentication.md). */
    mfaRequiredRoles: string[];
    /** Sign-in with identity providers (docs/authentication.md): the providers by name, the front ends allowed to receive a sign-in. */
    oidc: { providers: ReadonlyMap<string, OidcProvider>; redirectUris: string[] };
    /** Passkeys (docs/authentication.md): the relying party, where its front ends are served, and user verification. */
    webauthn: { rpId: string; rpName: string; origins: string[]; requireUserVerification: boolean };
  };
  /**
   * Account e-mails (docs/authentication.md). `smtpUrl` empty: the development log mailer (refused in
   * production). `linkBaseUrl` is where the links in the mails point (the web front end).
   */
  mail: { smtpUrl: string; from: string; linkBaseUrl: string; templates: string };
  /** Account mail per client IP: at most `mailsPerIpPerHour` mails with a link an hour. */
  account: { mailsPerIpPerHour: number };
  /** Background jobs (docs/jobs.md). */
  jobs: {
    /** `both`: serve and run jobs; `web`: serve only; `worker`: run jobs, serve only the health paths. */
    mode: 'both' | 'web' | 'worker';
    concurrency: number;
    timeoutMs: number;
    retryLimit: number;
    retryMaxDelayMs: number;
    /** How long failed jobs are kept (completed ones: a day). */
    retentionMs: number;
    /** The oldest waiting job's age past which `/health` says `jobs` is degraded. */
    maxLagMs: number;
    /** Job name → cron expression (five fields, UTC): each fires its job once per period across all instances. */
    schedules: ReadonlyMap<string, string>;
  };
  access: { model: string; policy: string };
  log: { level: string; format: 'json' | 'pretty' };
  /** OpenTelemetry tracing (README: Metrics and Tracing): off while `otlpEndpoint` is empty. */
  tracing: {
    otlpEndpoint: string;
    serviceName: string;
    /** The share of requests traced, decided by the service whatever an incoming `traceparent` says. */
    sampleRatio: number;
  };
  /** Where files live (docs/files.md). */
  storage: {
    driver: 'local' | 's3';
    /** `local`: the folder objects live in. */
    path: string;
    /** How long a signed link (download or direct upload) is valid. */
    urlTtlMs: number;
    /**
     * `local`: what links are signed with; empty — allowed outside production only — means one derived
     * from `jwt.secret` (see `storageSigningKey`).
     */
    signingSecret: string;
    /** `local`: the service's public origin its links start with; empty: relative links (`/files/…`). */
    publicUrl: string;
    s3: {
      /** Empty: AWS's own endpoint for `region`. */
      endpoint: string;
      region: string;
      bucket: string;
      /** Both empty: the SDK's default credentials (environment, instance role). */
      accessKeyId: string;
      secretAccessKey: string;
      forcePathStyle: boolean;
    };
  };
  health: {
    checkTimeoutMs: number;
    /** `path` empty: the SQLite file's directory, or `.` on PostgreSQL. */
    disk: { path: string; minFreeBytes: number };
    http: { name: string; url: string; timeoutMs: number; critical: boolean }[];
  };
}
