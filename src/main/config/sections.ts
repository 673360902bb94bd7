import type { Rate } from './codecs.js';
import type { Config } from './schema.js';

/** A key's decoded value (`server.port`): every key of `KEYS` has one once it decoded. */
export type Decoded = <A>(path: string) => A;

/** What is decoded apart from the keys: the HTTP checks' list, the schedules' and the identity providers' maps. */
export interface DecodedLists {
  readonly httpChecks: Config['health']['http'];
  readonly schedules: Config['jobs']['schedules'];
  readonly oidcProviders: Config['auth']['oidc']['providers'];
}

/**
 * The configuration the service reads, shaped from the decoded keys: each section under its
 * name, durations in milliseconds. Grouped by who reads them; a section left out of every group is
 * a type error here.
 */
export function configOf(env: string, v: Decoded, lists: DecodedLists): Config {
  return { env, ...servingSections(v), ...identitySections(v, lists), ...runtimeSections(v, lists) };
}

/** What the HTTP side reads: the listener, the APIs and their documents, cross-origin rules, the rate limit, metrics. */
function servingSections(
  v: Decoded,
): Pick<Config, 'server' | 'api' | 'graphql' | 'docs' | 'metrics' | 'cors' | 'rateLimit'> {
  return {
    server: {
      host: v('server.host'),
      port: v('server.port'),
      trustProxy: v('server.trust_proxy'),
      trustProxyHops: v('server.trust_proxy_hops'),
      requestTimeoutMs: v('server.request_timeout'),
      bodyLimitBytes: v('server.body_limit'),
      shutdownTimeoutMs: v('server.shutdown_timeout'),
      shutdownDelayMs: v('server.shutdown_delay'),
      headersTimeoutMs: v('server.headers_timeout'),
      maxConnectionsPerIp: v('server.max_connections_per_ip'),
      maxInFlight: v('server.max_in_flight'),
      maxEventLoopDelayMs: v('server.max_event_loop_delay'),
      hsts: v('server.hsts'),
      publicUrl: v('server.public_url'),
    },
    api: { mode: v('api.mode') },
    graphql: {
      generalRoute: v('graphql.general_route'),
      playgroundRoute: v('graphql.playground_route'),
      playground: v('graphql.playground'),
      introspection: v('graphql.introspection'),
      maxDepth: v('graphql.max_depth'),
      maxTokens: v('graphql.max_tokens'),
      maxCost: v('graphql.max_cost'),
    },
    docs: { enabled: v('docs.enabled') },
    metrics: { enabled: v('metrics.enabled'), host: v('metrics.host'), port: v('metrics.port') },
    cors: {
      allowedOrigins: v('cors.allowed_origins'),
      allowedMethods: v<string[]>('cors.allowed_methods').map((m) => m.toUpperCase()),
      allowedHeaders: v('cors.allowed_headers'),
      exposedHeaders: v('cors.exposed_headers'),
      allowCredentials: v('cors.allow_credentials'),
      maxAgeMs: v('cors.max_age'),
    },
    rateLimit: { enabled: v('rate_limit.enabled'), rate: v<Rate>('rate_limit.rate'), store: v('rate_limit.store') },
  };
}

/** Who callers are and what they are mailed: tokens and secrets, the login rules, mail, the access rules' files. */
function identitySections(
  v: Decoded,
  { oidcProviders }: DecodedLists,
): Pick<Config, 'jwt' | 'secrets' | 'auth' | 'mail' | 'account' | 'access'> {
  return {
    jwt: {
      secret: v('jwt.secret'),
      expirationMs: v('jwt.expiration'),
      refreshExpirationMs: v('jwt.refresh_expiration'),
      issuer: v('jwt.issuer'),
    },
    secrets: { encryptionKey: v('secrets.encryption_key') },
    auth: {
      bcryptCost: v('auth.bcrypt_cost'),
      loginMaxFailures: v('auth.login_max_failures'),
      loginWindowMs: v('auth.login_window'),
      requireVerifiedEmail: v('auth.require_verified_email'),
      mfaRequiredRoles: v('auth.mfa.required_roles'),
      oidc: { providers: oidcProviders, redirectUris: v('auth.oidc.redirect_uris') },
      webauthn: {
        rpId: v('auth.webauthn.rp_id'),
        rpName: v('auth.webauthn.rp_name'),
        origins: v('auth.webauthn.origins'),
        requireUserVerification: v('auth.webauthn.require_user_verification'),
      },
    },
    mail: {
      smtpUrl: v('mail.smtp_url'),
      from: v('mail.from'),
      linkBaseUrl: v('mail.link_base_url'),
      templates: v('mail.templates'),
    },
    account: { mailsPerIpPerHour: v('account.mails_per_ip_per_hour') },
    access: { model: v('access.model'), policy: v('access.policy') },
  };
}

/** What the service runs on and reports through: the database, Redis, jobs, logs, tracing, file storage, the health checks. */
function runtimeSections(
  v: Decoded,
  { httpChecks, schedules }: DecodedLists,
): Pick<Config, 'database' | 'redis' | 'cache' | 'jobs' | 'log' | 'tracing' | 'storage' | 'health'> {
  return {
    database: {
      url: v('database.url'),
      migrateOnStart: v('database.migrate_on_start'),
      queryTimeoutMs: v('database.query_timeout'),
      migrationUrl: v('database.migration_url'),
      preparedStatements: v('database.prepared_statements'),
      replicaUrls: v('database.replica_urls'),
      replicaMaxLagMs: v('database.replica_max_lag'),
    },
    redis: { url: v('redis.url') },
    cache: { ttlMs: v('cache.ttl') },
    jobs: {
      mode: v('jobs.mode'),
      concurrency: v('jobs.concurrency'),
      timeoutMs: v('jobs.timeout'),
      retryLimit: v('jobs.retry_limit'),
      retryMaxDelayMs: v('jobs.retry_max_delay'),
      retentionMs: v('jobs.retention'),
      maxLagMs: v('jobs.max_lag'),
      schedules,
    },
    log: { level: v('log.level'), format: v('log.format') },
    tracing: {
      otlpEndpoint: v('tracing.otlp_endpoint'),
      serviceName: v('tracing.service_name'),
      sampleRatio: v('tracing.sample_ratio'),
    },
    storage: {
      driver: v('storage.driver'),
      path: v('storage.path'),
      urlTtlMs: v('storage.url_ttl'),
      signingSecret: v('storage.signing_secret'),
      publicUrl: v('storage.public_url'),
      s3: {
        endpoint: v('storage.s3.endpoint'),
        region: v('storage.s3.region'),
        bucket: v('storage.s3.bucket'),
        accessKeyId: v('storage.s3.access_key_id'),
        secretAccessKey: v('storage.s3.secret_access_key'),
        forcePathStyle: v('storage.s3.force_path_style'),
      },
    },
    health: {
      checkTimeoutMs: v('health.check_timeout'),
      disk: { path: v('health.disk.path'), minFreeBytes: v('health.disk.min_free_bytes') },
      http: httpChecks,
    },
  };
}
