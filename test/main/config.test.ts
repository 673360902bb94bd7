import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { loadConfig, type ConfigResult } from '../../src/main/config/loadConfig.js';
import { PLACEHOLDER_SECRET, type Config } from '../../src/main/config/schema.js';

type Env = Record<string, string>;
type Files = Record<string, string>;

function load(env: Env = {}, files: Files = {}): ConfigResult {
  return loadConfig({ env, readFile: (path) => (Object.hasOwn(files, path) ? files[path] : undefined) });
}

function valid(env: Env = {}, files: Files = {}): Config {
  const result = load(env, files);
  if (!result.ok) throw new Error(`expected a valid configuration, got:\n${result.errors.join('\n')}`);
  return result.config;
}

function problems(env: Env = {}, files: Files = {}): string[] {
  const result = load(env, files);
  if (result.ok) throw new Error('expected configuration errors, got a valid configuration');
  return result.errors;
}

const H = 3_600_000;
const SECRET_32 = 'abcdefghijklmnopqrstuvwxyz012345'; // exactly 32 bytes
const SMTP_URL = 'smtp://mail.internal:25';
const KEY_32 = 'a secrets key of thirty-two byte'; // exactly 32 bytes
const SIGNING_32 = 'a file-link signing secret, 32 b'; // exactly 32 bytes
/** Production with SMTP and an https link base set (refused without them), so each test sees only the problem it is about. */
const PRODUCTION = {
  SVC_ENV: 'production',
  SVC_MAIL_SMTP_URL: SMTP_URL,
  SVC_MAIL_LINK_BASE_URL: 'https://app.example.com',
  SVC_SECRETS_ENCRYPTION_KEY: KEY_32,
  SVC_STORAGE_SIGNING_SECRET: SIGNING_32,
};

/** docs/configuration.md defaults, decoded: durations in ms, sizes in bytes, the rate as points per window. */
const DEFAULTS: Config = {
  env: 'development',
  server: {
    host: '0.0.0.0',
    port: 8080,
    trustProxy: false,
    trustProxyHops: 1,
    requestTimeoutMs: 30_000,
    bodyLimitBytes: 1_048_576,
    shutdownTimeoutMs: 10_000,
    shutdownDelayMs: 3000,
    headersTimeoutMs: 10_000,
    maxConnectionsPerIp: 256,
    maxInFlight: 512,
    maxEventLoopDelayMs: 500,
    hsts: false,
    publicUrl: '',
  },
  database: {
    url: 'sqlite:data/portico.sqlite',
    migrateOnStart: true,
    queryTimeoutMs: 5000,
    migrationUrl: '',
    preparedStatements: true,
    replicaUrls: [],
    replicaMaxLagMs: 5000,
  },
  redis: { url: '' },
  cache: { ttlMs: 60_000 },
  api: { mode: 'rest' },
  jwt: { secret: PLACEHOLDER_SECRET, expirationMs: 24 * H, refreshExpirationMs: 168 * H, issuer: 'portico' },
  secrets: { encryptionKey: '' },
  graphql: {
    generalRoute: '/graphql',
    playgroundRoute: '/graphql-playground',
    playground: true,
    introspection: true,
    maxDepth: 15,
    maxTokens: 5000,
    maxCost: 10_000,
  },
  docs: { enabled: true },
  metrics: { enabled: true, host: '0.0.0.0', port: 9464 },
  cors: {
    allowedOrigins: ['*'],
    allowedMethods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-ID'],
    exposedHeaders: ['X-Request-ID', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After'],
    allowCredentials: false,
    maxAgeMs: 12 * H,
  },
  rateLimit: { enabled: true, rate: { points: 100, windowSeconds: 60 }, store: 'memory' },
  auth: {
    bcryptCost: 10,
    loginMaxFailures: 5,
    loginWindowMs: 15 * 60_000,
    requireVerifiedEmail: false,
    mfaRequiredRoles: [],
    oidc: { providers: new Map(), redirectUris: [] },
    webauthn: {
      rpId: 'localhost',
      rpName: 'Portico',
      origins: ['http://localhost:3000'],
      requireUserVerification: true,
    },
  },
  mail: {
    smtpUrl: '',
    from: 'Portico <no-reply@localhost>',
    linkBaseUrl: 'http://localhost:8080',
    templates: 'mail/templates',
  },
  access: { model: 'policy/model.conf', policy: 'policy/policy.csv' },
  log: { level: 'info', format: 'json' },
  account: { mailsPerIpPerHour: 20 },
  jobs: {
    mode: 'both',
    concurrency: 4,
    timeoutMs: 300_000,
    retryLimit: 8,
    retryMaxDelayMs: 600_000,
    retentionMs: 14 * 86_400_000,
    maxLagMs: 300_000,
    schedules: new Map([
      ['tokens.purge', '0 * * * *'],
      ['files.purge', '0 * * * *'],
    ]),
  },
  tracing: { otlpEndpoint: '', serviceName: 'portico', sampleRatio: 1 },
  storage: {
    driver: 'local',
    path: 'data/files',
    urlTtlMs: 15 * 60_000,
    signingSecret: '',
    publicUrl: '',
    s3: {
      endpoint: '',
      region: 'us-east-1',
      bucket: '',
      accessKeyId: '',
      secretAccessKey: '',
      forcePathStyle: false,
    },
  },
  health: { checkTimeoutMs: 2000, disk: { path: '', minFreeBytes: 104_857_600 }, http: [] },
};

const defaultYaml = readFileSync(new URL('../../config/default.yaml', import.meta.url), 'utf8');

describe('loadConfig', () => {
  describe('defaults', () => {
    it('with no file and no environment, every key has the docs/configuration.md default', () => {
      expect(valid()).to.deep.equal(DEFAULTS);
    });

    it('the shipped config/default.yaml gives the same configuration as no file at all', () => {
      expect(valid({}, { 'config/default.yaml': defaultYaml })).to.deep.equal(DEFAULTS);
    });

    it('reads config/default.yaml, not some other path', () => {
      const config = valid({}, { 'config/default.yaml': 'server:\n  port: 9001\n' });
      expect(config.server.port).to.equal(9001);
    });
  });

  describe('precedence', () => {
    const files = {
      'config/default.yaml': 'server:\n  port: 9000\n  host: 127.0.0.1\njwt:\n  issuer: from-default-file\n',
    };

    it('a file beats the default', () => {
      const config = valid({}, files);
      expect(config.server.port).to.equal(9000);
      expect(config.server.host).to.equal('127.0.0.1');
      expect(config.jwt.issuer).to.equal('from-default-file');
    });

    it('the environment beats the file', () => {
      const config = valid({ SVC_SERVER_PORT: '9100', SVC_JWT_ISSUER: 'from-env' }, files);
      expect(config.server.port).to.equal(9100);
      expect(config.server.host).to.equal('127.0.0.1');
      expect(config.jwt.issuer).to.equal('from-env');
    });

    it('an environment value beats the default with no file', () => {
      expect(valid({ SVC_JWT_REFRESH_EXPIRATION: '1m30s' }).jwt.refreshExpirationMs).to.equal(90_000);
      expect(valid({ SVC_GRAPHQL_GENERAL_ROUTE: '/gql' }).graphql.generalRoute).to.equal('/gql');
      expect(valid({ SVC_DATABASE_URL: 'sqlite::memory:' }).database.url).to.equal('sqlite::memory:');
      expect(valid({ SVC_HEALTH_DISK_MIN_FREE_BYTES: '0' }).health.disk.minFreeBytes).to.equal(0);
    });

    it('config/<SVC_ENV>.yaml overlays config/default.yaml, key by key', () => {
      const config = valid(
        { SVC_ENV: 'staging' },
        { ...files, 'config/staging.yaml': 'server:\n  port: 9200\nlog:\n  format: pretty\n' },
      );
      expect(config.env).to.equal('staging');
      expect(config.server.port).to.equal(9200);
      expect(config.server.host).to.equal('127.0.0.1');
      expect(config.jwt.issuer).to.equal('from-default-file');
      expect(config.log.format).to.equal('pretty');
    });

    it('the environment beats the SVC_ENV overlay', () => {
      const config = valid(
        { SVC_ENV: 'staging', SVC_SERVER_PORT: '9300' },
        { ...files, 'config/staging.yaml': 'server:\n  port: 9200\n' },
      );
      expect(config.server.port).to.equal(9300);
    });

    it('a missing config/<SVC_ENV>.yaml is not an error', () => {
      expect(valid({ SVC_ENV: 'staging' }, files).server.port).to.equal(9000);
    });

    it('the file named by SVC_CONFIG overlays config/default.yaml', () => {
      const config = valid(
        { SVC_CONFIG: '/etc/portico/site.yaml' },
        { ...files, '/etc/portico/site.yaml': 'jwt:\n  issuer: from-site\n' },
      );
      expect(config.jwt.issuer).to.equal('from-site');
      expect(config.server.port).to.equal(9000);
    });

    it('a missing SVC_CONFIG file is an error', () => {
      expect(problems({ SVC_CONFIG: 'missing.yaml' }, files)).to.deep.equal([
        'SVC_CONFIG: file "missing.yaml" does not exist',
      ]);
    });
  });

  describe('lists', () => {
    it('split on commas from the environment, items trimmed, empty items dropped', () => {
      const config = valid({
        SVC_CORS_ALLOWED_ORIGINS: ' https://a.example , ,https://b.example,,',
        SVC_CORS_ALLOWED_HEADERS: 'X-One',
      });
      expect(config.cors.allowedOrigins).to.deep.equal(['https://a.example', 'https://b.example']);
      expect(config.cors.allowedHeaders).to.deep.equal(['X-One']);
    });

    it('an empty environment value is an empty list', () => {
      expect(valid({ SVC_CORS_EXPOSED_HEADERS: '' }).cors.exposedHeaders).to.deep.equal([]);
    });

    it('come from YAML sequences', () => {
      const config = valid(
        {},
        {
          'config/default.yaml': 'cors:\n  allowed_methods: [get, Post]\n  allowed_origins:\n    - https://a.example\n',
        },
      );
      expect(config.cors.allowedMethods).to.deep.equal(['GET', 'POST']);
      expect(config.cors.allowedOrigins).to.deep.equal(['https://a.example']);
    });

    it('a YAML sequence of non-strings is refused', () => {
      expect(problems({}, { 'config/default.yaml': 'cors:\n  allowed_headers: [1, 2]\n' })).to.deep.equal([
        'cors.allowed_headers: [1,2] is not a list of strings',
      ]);
    });
  });

  describe('auth.oidc', () => {
    const providersYaml = (entries: string) => ({
      'config/default.yaml': `auth:\n  oidc:\n    providers:\n${entries}`,
    });
    const corp =
      "      corp:\n        issuer: 'https://login.example.com'\n        client_id: portico\n        client_secret: s3cret\n";

    it('reads providers from a file, the scopes defaulting to openid email profile', () => {
      const { providers } = valid({}, providersYaml(corp)).auth.oidc;
      expect([...providers]).to.deep.equal([
        [
          'corp',
          {
            issuer: 'https://login.example.com',
            clientId: 'portico',
            clientSecret: 's3cret',
            scopes: 'openid email profile',
          },
        ],
      ]);
    });

    it("takes a provider's secret from SVC_AUTH_OIDC_<NAME>_CLIENT_SECRET over the file", () => {
      const withoutSecret =
        "      corp:\n        issuer: 'https://login.example.com'\n        client_id: portico\n        scopes: [openid, email]\n";
      const provider = valid(
        { SVC_AUTH_OIDC_CORP_CLIENT_SECRET: 'from-env' },
        providersYaml(withoutSecret),
      ).auth.oidc.providers.get('corp');
      expect(provider).to.deep.include({ clientSecret: 'from-env', scopes: 'openid email' });
      expect(problems({}, providersYaml(withoutSecret))).to.deep.equal([
        'auth.oidc.providers.corp.client_secret: is missing (set it, or SVC_AUTH_OIDC_CORP_CLIENT_SECRET)',
      ]);
    });

    it('refuses bad names, URLs, scopes and unknown fields, one line each', () => {
      const found = problems(
        {},
        providersYaml(
          "      Bad-Name:\n        issuer: 'https://a.example'\n" +
            "      corp:\n        issuer: 'ftp://login.example.com'\n        client_id: portico\n        client_secret: s\n        scopes: email\n        colour: blue\n",
        ),
      );
      expect(found).to.deep.equal([
        'auth.oidc.providers.Bad-Name: "Bad-Name" is not a provider name (a lower-case letter, then up to 31 of a-z, 0-9, _)',
        'auth.oidc.providers.corp.colour: unknown key',
        'auth.oidc.providers.corp.issuer: "ftp://login.example.com" is not an http:// or https:// URL without query or fragment',
        'auth.oidc.providers.corp.scopes: "email" is not a list of scopes with openid among them',
      ]);
      expect(problems({ SVC_AUTH_OIDC_PROVIDERS: 'x' })).to.deep.equal([
        'SVC_AUTH_OIDC_PROVIDERS: auth.oidc.providers is a map, set in a configuration file only',
      ]);
    });

    it('reads the redirect URIs as a list of URLs and refuses anything else', () => {
      expect(
        valid({ SVC_AUTH_OIDC_REDIRECT_URIS: 'https://app.example/signed-in, http://localhost:3000/cb' }).auth.oidc
          .redirectUris,
      ).to.deep.equal(['https://app.example/signed-in', 'http://localhost:3000/cb']);
      expect(problems({ SVC_AUTH_OIDC_REDIRECT_URIS: 'https://app.example/a,javascript:alert(1)' })).to.have.length(1);
    });

    it('refuses to start in production with providers and no server.public_url, or an http:// issuer', () => {
      const found = problems(
        { ...PRODUCTION },
        providersYaml(
          "      corp:\n        issuer: 'http://login.example.com'\n        client_id: portico\n        client_secret: s\n",
        ),
      );
      expect(found).to.include.members([
        "server.public_url: must be set in production when auth.oidc.providers lists providers (set SVC_SERVER_PUBLIC_URL to the service's public origin)",
        'auth.oidc.providers.corp.issuer: must be an https:// URL in production',
      ]);
      expect(
        valid(
          { ...PRODUCTION, SVC_JWT_SECRET: SECRET_32, SVC_SERVER_PUBLIC_URL: 'https://api.example.com' },
          providersYaml(corp),
        ).auth.oidc.providers.size,
      ).to.equal(1);
    });
  });

  describe('jobs.schedules', () => {
    const schedules = (yaml: string) =>
      valid({}, { 'config/default.yaml': `jobs:\n  schedules:\n${yaml}` }).jobs.schedules;

    it('adds a file’s schedules to the built-in tokens.purge and files.purge', () => {
      expect([...schedules("    reports.daily: '30 6 * * *'\n    tokens.purge: '*/30 * * * *'\n")]).to.deep.equal([
        ['tokens.purge', '*/30 * * * *'],
        ['files.purge', '0 * * * *'],
        ['reports.daily', '30 6 * * *'],
      ]);
    });

    it('takes a built-in schedule away with off, and keeps it for an empty value', () => {
      expect([...schedules('    tokens.purge: off\n')]).to.deep.equal([['files.purge', '0 * * * *']]);
      expect([...schedules('    tokens.purge:\n    files.purge: off\n')]).to.deep.equal([
        ['tokens.purge', '0 * * * *'],
      ]);
    });

    it('keeps failed jobs at least a minute (jobs.retention)', () => {
      expect(problems({ SVC_JOBS_RETENTION: '30s' })).to.deep.equal(['jobs.retention: must be at least 1m']);
      expect(valid({ SVC_JOBS_RETENTION: '1m' }).jobs.retentionMs).to.equal(60_000);
    });

    it('refuses an expression that is not five cron fields, naming the schedule', () => {
      const found = problems(
        {},
        {
          'config/default.yaml':
            "jobs:\n  schedules:\n    a.b: '*/5 * * * * *'\n    c.d: '61 * * * *'\n    e.f: 5\n    g: [1]\n    h: '0 0 31 2 *'\n",
        },
      );
      expect(found).to.have.length(5);
      expect(found[0]).to.match(
        /^jobs\.schedules\.a\.b: "\*\/5 \* \* \* \* \*" is not a cron expression \(has 6 fields/,
      );
      expect(found[1]).to.match(/^jobs\.schedules\.c\.d: "61 \* \* \* \*" is not a cron expression \(/);
      expect(found[2]).to.equal('jobs.schedules.e.f: 5 is not a cron expression or off');
      expect(found[3]).to.equal('jobs.schedules.g: [1] is not a cron expression or off');
      // Parses, but names no day that exists (31 February): it would never fire.
      expect(found[4]).to.match(/^jobs\.schedules\.h: "0 0 31 2 \*" is not a cron expression \(/);
    });

    it('has no SVC_ form: the variable is refused, not ignored', () => {
      expect(problems({ SVC_JOBS_SCHEDULES: 'tokens.purge=off' })).to.deep.equal([
        'SVC_JOBS_SCHEDULES: jobs.schedules is a map, set in a configuration file only',
      ]);
    });
  });

  describe('health.http', () => {
    it('is read from JSON in SVC_HEALTH_HTTP', () => {
      const config = valid({
        SVC_HEALTH_HTTP:
          '[{"name":"search","url":"http://127.0.0.1:9200","timeout":"1s"},{"name":"billing","url":"https://billing.example/health","timeout":"500ms","critical":true}]',
      });
      expect(config.health.http).to.deep.equal([
        { name: 'search', url: 'http://127.0.0.1:9200', timeoutMs: 1000, critical: false },
        { name: 'billing', url: 'https://billing.example/health', timeoutMs: 500, critical: true },
      ]);
    });

    it('says a critical flag that is not a boolean is not one', () => {
      expect(
        problems({ SVC_HEALTH_HTTP: '[{"name":"s","url":"http://a.example","timeout":"1s","critical":"yes"}]' }),
      ).to.deep.equal(['health.http[0].critical: "yes" is not a boolean']);
    });

    it('is read from YAML', () => {
      const config = valid(
        {},
        {
          'config/default.yaml':
            'health:\n  http:\n    - {name: search, url: "http://127.0.0.1:9200", timeout: 1m30s}\n',
        },
      );
      expect(config.health.http).to.deep.equal([
        { name: 'search', url: 'http://127.0.0.1:9200', timeoutMs: 90_000, critical: false },
      ]);
    });

    it('the environment replaces the file list', () => {
      const config = valid(
        { SVC_HEALTH_HTTP: '[]' },
        {
          'config/default.yaml': 'health:\n  http:\n    - {name: search, url: "http://127.0.0.1:9200", timeout: 1s}\n',
        },
      );
      expect(config.health.http).to.deep.equal([]);
    });

    it('reports every bad field of every entry, naming the entry', () => {
      expect(
        problems({
          SVC_HEALTH_HTTP:
            '[{"name":"ok","url":"http://a.example","timeout":"1s"},{"name":"x","url":"ftp://files.example","timeout":"1x"}]',
        }),
      ).to.have.members([
        'health.http[1].url: "ftp://files.example" is not an http:// or https:// URL',
        'health.http[1].timeout: "1x" is not a duration',
      ]);
    });

    it('reports a bad entry from YAML', () => {
      expect(
        problems(
          {},
          { 'config/default.yaml': 'health:\n  http:\n    - {name: "", url: "http://a.example", timeout: 1s}\n' },
        ),
      ).to.deep.equal(['health.http[0].name: "" is not a non-empty string']);
    });

    it('reports JSON that does not parse', () => {
      expect(problems({ SVC_HEALTH_HTTP: '[{name: search}]' })).to.deep.equal([
        'health.http: "[{name: search}]" is not JSON (a list of {name, url, timeout, critical?})',
      ]);
    });

    it('reports JSON that is not a list', () => {
      expect(problems({ SVC_HEALTH_HTTP: '{"name":"search"}' })).to.deep.equal([
        'health.http: {"name":"search"} is not a list of {name, url, timeout, critical?}',
      ]);
    });

    it('refuses a name taken by another check', () => {
      expect(
        problems({
          SVC_HEALTH_HTTP:
            '[{"name":"database","url":"http://a.example","timeout":"1s"},{"name":"s","url":"http://a.example","timeout":"1s"},{"name":"s","url":"http://b.example","timeout":"1s"}]',
        }),
      ).to.have.members([
        'health.http[0].name: "database" is already the name of another check',
        'health.http[2].name: "s" is already the name of another check',
      ]);
    });
  });

  describe('validation messages', () => {
    const cases: [Env, string][] = [
      [{ SVC_JWT_EXPIRATION: '24x' }, 'jwt.expiration: "24x" is not a duration'],
      [{ SVC_SERVER_REQUEST_TIMEOUT: '30' }, 'server.request_timeout: "30" is not a duration'],
      [{ SVC_SERVER_PORT: 'abc' }, 'server.port: "abc" is not an integer from 0 to 65535'],
      [{ SVC_SERVER_PORT: '65536' }, 'server.port: "65536" is not an integer from 0 to 65535'],
      [{ SVC_SERVER_PORT: '-1' }, 'server.port: "-1" is not an integer from 0 to 65535'],
      [{ SVC_SERVER_PORT: '80.5' }, 'server.port: "80.5" is not an integer from 0 to 65535'],
      [{ SVC_AUTH_BCRYPT_COST: '3' }, 'auth.bcrypt_cost: "3" is not an integer from 4 to 15'],
      [{ SVC_AUTH_BCRYPT_COST: '16' }, 'auth.bcrypt_cost: "16" is not an integer from 4 to 15'],
      [{ SVC_SERVER_TRUST_PROXY: 'yes' }, 'server.trust_proxy: "yes" is not a boolean'],
      [{ SVC_RATE_LIMIT_ENABLED: '1' }, 'rate_limit.enabled: "1" is not a boolean'],
      [{ SVC_API_MODE: 'soap' }, 'api.mode: "soap" is not one of rest, graphql, both'],
      [
        { SVC_DATABASE_URL: 'mysql://u:p@h/db' },
        'database.url: "mysql://u:***@h/db" is not a database URL (sqlite:<file>, sqlite::memory: or postgres://...)',
      ],
      [
        { SVC_DATABASE_URL: 'data/portico.sqlite' },
        'database.url: "data/portico.sqlite" is not a database URL (sqlite:<file>, sqlite::memory: or postgres://...)',
      ],
      [{ SVC_RATE_LIMIT_RATE: '100-X' }, 'rate_limit.rate: "100-X" is not a rate such as 100-M (<count>-<S|M|H|D>)'],
      [{ SVC_RATE_LIMIT_RATE: '100/M' }, 'rate_limit.rate: "100/M" is not a rate such as 100-M (<count>-<S|M|H|D>)'],
      [{ SVC_RATE_LIMIT_RATE: '0-M' }, 'rate_limit.rate: "0-M" is not a rate such as 100-M (<count>-<S|M|H|D>)'],
      [{ SVC_RATE_LIMIT_STORE: 'disk' }, 'rate_limit.store: "disk" is not one of memory, redis'],
      [{ SVC_REDIS_URL: 'http://cache.example' }, 'redis.url: "http://cache.example" is not empty or a redis:// URL'],
      [{ SVC_LOG_FORMAT: 'xml' }, 'log.format: "xml" is not one of json, pretty'],
      [
        { SVC_TRACING_OTLP_ENDPOINT: 'collector:4318' },
        'tracing.otlp_endpoint: "collector:4318" is not empty or an http:// or https:// URL',
      ],
      [
        { SVC_TRACING_OTLP_ENDPOINT: 'grpc://collector:4317' },
        'tracing.otlp_endpoint: "grpc://collector:4317" is not empty or an http:// or https:// URL',
      ],
      [{ SVC_SERVER_BODY_LIMIT: 'lots' }, 'server.body_limit: "lots" is not a size such as 512kb or 1mb'],
      [{ SVC_AUTH_REQUIRE_VERIFIED_EMAIL: 'yes' }, 'auth.require_verified_email: "yes" is not a boolean'],
      [
        { SVC_MAIL_SMTP_URL: 'mail.example.com:25' },
        'mail.smtp_url: "mail.example.com:25" is not empty or an smtp:// or smtps:// URL',
      ],
      [
        { SVC_MAIL_SMTP_URL: 'http://mail.example.com' },
        'mail.smtp_url: "http://mail.example.com" is not empty or an smtp:// or smtps:// URL',
      ],
      [{ SVC_MAIL_SMTP_URL: 'smtp://' }, 'mail.smtp_url: "smtp://" is not empty or an smtp:// or smtps:// URL'],
      [
        { SVC_MAIL_SMTP_URL: 'smtp://mail example.com' },
        'mail.smtp_url: "smtp://mail example.com" is not empty or an smtp:// or smtps:// URL',
      ],
      [{ SVC_MAIL_FROM: 'no-reply' }, 'mail.from: "no-reply" is not an e-mail address or "Name <address>"'],
      [
        { SVC_MAIL_FROM: 'Portico <no-reply>' },
        'mail.from: "Portico <no-reply>" is not an e-mail address or "Name <address>"',
      ],
      [
        { SVC_MAIL_FROM: 'Portico no-reply@example.com' },
        'mail.from: "Portico no-reply@example.com" is not an e-mail address or "Name <address>"',
      ],
      [
        { SVC_MAIL_FROM: '<no-reply@example.com>' },
        'mail.from: "<no-reply@example.com>" is not an e-mail address or "Name <address>"',
      ],
      [
        { SVC_MAIL_FROM: 'a@example.com, b@example.com' },
        'mail.from: "a@example.com, b@example.com" is not an e-mail address or "Name <address>"',
      ],
      [
        { SVC_MAIL_FROM: 'Portico <a@example.com>\nBcc: x@example.com' },
        'mail.from: "Portico <a@example.com>\\nBcc: x@example.com" is not an e-mail address or "Name <address>"',
      ],
      [
        { SVC_MAIL_LINK_BASE_URL: 'app.example.com' },
        'mail.link_base_url: "app.example.com" is not an absolute http:// or https:// URL without query or fragment',
      ],
      [
        { SVC_MAIL_LINK_BASE_URL: '/reset' },
        'mail.link_base_url: "/reset" is not an absolute http:// or https:// URL without query or fragment',
      ],
      [
        { SVC_MAIL_LINK_BASE_URL: 'ftp://app.example.com' },
        'mail.link_base_url: "ftp://app.example.com" is not an absolute http:// or https:// URL without query or fragment',
      ],
      [
        { SVC_MAIL_LINK_BASE_URL: 'https://app.example.com/?x=1' },
        'mail.link_base_url: "https://app.example.com/?x=1" is not an absolute http:// or https:// URL without query or fragment',
      ],
      [
        { SVC_MAIL_LINK_BASE_URL: 'https://app.example.com/#/' },
        'mail.link_base_url: "https://app.example.com/#/" is not an absolute http:// or https:// URL without query or fragment',
      ],
      [{ SVC_MAIL_TEMPLATES: ' ' }, 'mail.templates: " " is not a non-empty string'],
      [{ SVC_GRAPHQL_MAX_COST: '0' }, 'graphql.max_cost: "0" is not an integer from 1 to 1000000000'],
      [{ SVC_GRAPHQL_MAX_COST: '1e4' }, 'graphql.max_cost: "1e4" is not an integer from 1 to 1000000000'],
    ];
    for (const [env, message] of cases) {
      it(`${Object.entries(env)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')} → ${message}`, () => {
        expect(problems(env)).to.deep.equal([message]);
      });
    }

    it('quotes strings and prints YAML numbers as they are', () => {
      expect(problems({}, { 'config/default.yaml': 'server:\n  port: 70000\n' })).to.deep.equal([
        'server.port: 70000 is not an integer from 0 to 65535',
      ]);
    });

    it('reports several problems at once, one line per key', () => {
      expect(
        problems({
          SVC_JWT_EXPIRATION: '24x',
          SVC_SERVER_PORT: 'abc',
          SVC_API_MODE: 'soap',
          SVC_AUTH_BCRYPT_COST: '99',
        }),
      ).to.have.members([
        'jwt.expiration: "24x" is not a duration',
        'server.port: "abc" is not an integer from 0 to 65535',
        'api.mode: "soap" is not one of rest, graphql, both',
        'auth.bcrypt_cost: "99" is not an integer from 4 to 15',
      ]);
    });

    it('reports file and environment problems together', () => {
      expect(
        problems({ SVC_SERVER_PORT: 'abc' }, { 'config/default.yaml': 'jwt:\n  expiration: 24x\n' }),
      ).to.have.members([
        'jwt.expiration: "24x" is not a duration',
        'server.port: "abc" is not an integer from 0 to 65535',
      ]);
    });
  });

  describe('accepted values', () => {
    it('mail: smtp:// and smtps:// URLs with or without credentials, a plain or named sender, a base URL with a path', () => {
      for (const url of [
        'smtp://127.0.0.1:2525',
        'smtps://user:p%40ss@smtp.example.com:465',
        'smtp://mailer@relay.internal',
      ]) {
        expect(valid({ SVC_MAIL_SMTP_URL: url }).mail.smtpUrl).to.equal(url);
      }
      for (const from of [
        'no-reply@example.com',
        'Portico <no-reply@example.com>',
        '"Portico, Inc." <no-reply@example.com>',
        'Zoë <z@localhost>',
      ]) {
        expect(valid({ SVC_MAIL_FROM: from }).mail.from).to.equal(from);
      }
      expect(valid({ SVC_MAIL_LINK_BASE_URL: 'https://app.example.com/portal/' }).mail.linkBaseUrl).to.equal(
        'https://app.example.com/portal/',
      );
      expect(valid({ SVC_MAIL_TEMPLATES: '/etc/portico/mail' }).mail.templates).to.equal('/etc/portico/mail');
      expect(valid({ SVC_AUTH_REQUIRE_VERIFIED_EMAIL: 'true' }).auth.requireVerifiedEmail).to.equal(true);
      expect(
        valid({}, { 'config/default.yaml': 'auth:\n  require_verified_email: true\nmail:\n  from: a@b.example\n' }).mail
          .from,
      ).to.equal('a@b.example');
    });

    it("mail.smtp_url: an invalid value's password is not echoed", () => {
      expect(problems({ SVC_MAIL_SMTP_URL: 'smtpx://user:s3cret@mail.example.com' })).to.deep.equal([
        'mail.smtp_url: "smtpx://user:***@mail.example.com" is not empty or an smtp:// or smtps:// URL',
      ]);
      expect(problems({ SVC_MAIL_SMTP_URL: 'http://u:se/cr@t@mail.example.com' })[0]).to.not.match(/se\/cr|cr@t/);
    });

    it("no URL key echoes an invalid value's password: database.url, database.migration_url, redis.url", () => {
      expect(problems({ SVC_DATABASE_URL: 'mysql://portico:s3cret@db.example.com/portico' })).to.deep.equal([
        'database.url: "mysql://portico:***@db.example.com/portico" is not a database URL (sqlite:<file>, sqlite::memory: or postgres://...)',
      ]);
      expect(problems({ SVC_DATABASE_MIGRATION_URL: 'mysql://portico:s3cret@db.example.com/portico' })).to.deep.equal([
        'database.migration_url: "mysql://portico:***@db.example.com/portico" is not empty or a postgres:// URL',
      ]);
      expect(problems({ SVC_REDIS_URL: 'http://default:s3cret@cache.example.com:6379' })).to.deep.equal([
        'redis.url: "http://default:***@cache.example.com:6379" is not empty or a redis:// URL',
      ]);
      expect(
        valid({ SVC_DATABASE_MIGRATION_URL: 'postgres://admin:pw@db:5432/portico' }).database.migrationUrl,
      ).to.equal('postgres://admin:pw@db:5432/portico');
    });

    it('tracing.otlp_endpoint: an http(s) URL turns tracing on', () => {
      const config = valid({
        SVC_TRACING_OTLP_ENDPOINT: 'https://collector:4318/v1/traces',
        SVC_TRACING_SERVICE_NAME: 'shop',
      });
      expect(config.tracing).to.deep.equal({
        otlpEndpoint: 'https://collector:4318/v1/traces',
        serviceName: 'shop',
        sampleRatio: 1,
      });
    });

    it('ports from 0 to 65535', () => {
      expect(valid({ SVC_SERVER_PORT: '0' }).server.port).to.equal(0);
      expect(valid({ SVC_SERVER_PORT: '65535' }).server.port).to.equal(65535);
    });

    it('graphql.max_cost from 1 to 1000000000, from the environment and from YAML', () => {
      expect(valid({ SVC_GRAPHQL_MAX_COST: '1' }).graphql.maxCost).to.equal(1);
      expect(valid({ SVC_GRAPHQL_MAX_COST: '1000000000' }).graphql.maxCost).to.equal(1_000_000_000);
      expect(valid({}, { 'config/default.yaml': 'graphql:\n  max_cost: 50000\n' }).graphql.maxCost).to.equal(50_000);
    });

    it('bcrypt cost from 4 to 15', () => {
      expect(valid({ SVC_AUTH_BCRYPT_COST: '4' }).auth.bcryptCost).to.equal(4);
      expect(valid({ SVC_AUTH_BCRYPT_COST: '15' }).auth.bcryptCost).to.equal(15);
    });

    it('booleans from the strings true and false', () => {
      const on = valid({
        SVC_SERVER_TRUST_PROXY: 'true',
        SVC_DATABASE_MIGRATE_ON_START: 'false',
        SVC_RATE_LIMIT_ENABLED: 'false',
      });
      expect([on.server.trustProxy, on.database.migrateOnStart, on.rateLimit.enabled]).to.deep.equal([
        true,
        false,
        false,
      ]);
    });

    it('booleans from YAML', () => {
      const config = valid(
        {},
        { 'config/default.yaml': 'server:\n  trust_proxy: true\ndatabase:\n  migrate_on_start: false\n' },
      );
      expect([config.server.trustProxy, config.database.migrateOnStart]).to.deep.equal([true, false]);
    });

    it('HSTS on, from the environment and from YAML', () => {
      expect(valid({ SVC_SERVER_HSTS: 'true' }).server.hsts).to.equal(true);
      expect(valid({}, { 'config/default.yaml': 'server:\n  hsts: true\n' }).server.hsts).to.equal(true);
      expect(problems({ SVC_SERVER_HSTS: 'yes' }).join('\n')).to.match(/server\.hsts/);
    });

    it('every api mode', () => {
      expect(['rest', 'graphql', 'both'].map((mode) => valid({ SVC_API_MODE: mode }).api.mode)).to.deep.equal([
        'rest',
        'graphql',
        'both',
      ]);
    });

    it('SQLite files, in-memory SQLite and PostgreSQL URLs', () => {
      for (const url of [
        'sqlite:data/other.sqlite',
        'sqlite::memory:',
        'postgres://user:pass@host:5432/db',
        'postgresql://host/db',
      ]) {
        expect(valid({ SVC_DATABASE_URL: url }).database.url).to.equal(url);
      }
    });

    it('rates in every window, case-insensitive', () => {
      expect(valid({ SVC_RATE_LIMIT_RATE: '5-S' }).rateLimit.rate).to.deep.equal({ points: 5, windowSeconds: 1 });
      expect(valid({ SVC_RATE_LIMIT_RATE: '1000-h' }).rateLimit.rate).to.deep.equal({
        points: 1000,
        windowSeconds: 3600,
      });
      expect(valid({ SVC_RATE_LIMIT_RATE: '20-D' }).rateLimit.rate).to.deep.equal({
        points: 20,
        windowSeconds: 86_400,
      });
    });

    it('body limits as sizes', () => {
      expect(valid({ SVC_SERVER_BODY_LIMIT: '512kb' }).server.bodyLimitBytes).to.equal(524_288);
      expect(valid({ SVC_SERVER_BODY_LIMIT: '2048' }).server.bodyLimitBytes).to.equal(2048);
    });

    it('Go durations in milliseconds', () => {
      const config = valid({
        SVC_SERVER_REQUEST_TIMEOUT: '500ms',
        SVC_SERVER_SHUTDOWN_TIMEOUT: '1m30s',
        SVC_HEALTH_CHECK_TIMEOUT: '1.5s',
      });
      expect([
        config.server.requestTimeoutMs,
        config.server.shutdownTimeoutMs,
        config.health.checkTimeoutMs,
      ]).to.deep.equal([500, 90_000, 1500]);
    });
  });

  describe('files', () => {
    it('reports unknown keys, naming the file', () => {
      expect(
        problems({}, { 'config/default.yaml': 'server:\n  prot: 80\nlogging:\n  level: debug\n' }),
      ).to.have.members([
        'server.prot: unknown key (in config/default.yaml)',
        'logging: unknown key (in config/default.yaml)',
      ]);
    });

    it('has no switch for the security headers: server.security_headers is an unknown key like any other', () => {
      expect(problems({}, { 'config/default.yaml': 'server:\n  security_headers: false\n' })).to.deep.equal([
        'server.security_headers: unknown key (in config/default.yaml)',
      ]);
      expect(valid({ SVC_SERVER_SECURITY_HEADERS: 'false' })).to.deep.equal(DEFAULTS);
    });

    it('reports unknown keys in the SVC_ENV overlay', () => {
      expect(problems({ SVC_ENV: 'staging' }, { 'config/staging.yaml': 'jwt:\n  secrets: x\n' })).to.deep.equal([
        'jwt.secrets: unknown key (in config/staging.yaml)',
      ]);
    });

    it('reports invalid YAML, naming the file', () => {
      const errors = problems({}, { 'config/default.yaml': 'server:\n  port: [8080\n' });
      expect(errors).to.have.length(1);
      expect(errors[0]).to.match(/^config\/default\.yaml: not valid YAML \(.+\)$/);
    });

    it('reports a file whose top level is not a mapping', () => {
      expect(problems({}, { 'config/default.yaml': '- a\n- b\n' })).to.deep.equal([
        'config/default.yaml: the top level must be a mapping of keys',
      ]);
    });

    it('accepts an empty file', () => {
      expect(valid({}, { 'config/default.yaml': '' })).to.deep.equal(DEFAULTS);
    });
  });

  describe('file mistakes that once slipped through', () => {
    it('reports a misspelt key even when its value is empty', () => {
      expect(problems({}, { 'config/default.yaml': 'redis:\n  ulr:\n' })).to.deep.equal([
        'redis.ulr: unknown key (in config/default.yaml)',
      ]);
    });

    it('lets a known key with an empty value fall back to its default', () => {
      expect(valid({}, { 'config/default.yaml': 'server:\n  port:\n' }).server.port).to.equal(8080);
    });

    it('reports keys named like built-in object properties', () => {
      expect(problems({}, { 'config/default.yaml': 'constructor: 1\nserver:\n  toString: 2\n' })).to.deep.equal([
        'constructor: unknown key (in config/default.yaml)',
        'server.toString: unknown key (in config/default.yaml)',
      ]);
    });

    it('says a section given a plain value must be a mapping', () => {
      expect(problems({}, { 'config/default.yaml': 'server: 8080\n' })).to.deep.equal([
        'server: must be a mapping of keys (in config/default.yaml)',
      ]);
    });

    it('says a missing field of a health.http entry is missing', () => {
      expect(problems({ SVC_HEALTH_HTTP: '[{"url":"http://127.0.0.1:9/","timeout":"1s"}]' })).to.deep.equal([
        'health.http[0].name: is missing',
      ]);
    });
  });

  describe('the environment', () => {
    it('ignores unknown SVC_ variables and the reserved ones', () => {
      expect(
        valid({ SVC_NOT_A_KEY: 'whatever', SVC_SERVER_PROT: '1', SVC_TEST_POSTGRES_URL: 'x', PATH: '/usr/bin' }),
      ).to.deep.equal(DEFAULTS);
    });
  });

  describe('cross-key rules', () => {
    it('allow_credentials true with origin * is an error', () => {
      expect(problems({ SVC_CORS_ALLOW_CREDENTIALS: 'true' })).to.deep.equal([
        'cors.allow_credentials: true cannot be combined with cors.allowed_origins "*"; list the origins',
      ]);
      expect(
        problems({ SVC_CORS_ALLOW_CREDENTIALS: 'true', SVC_CORS_ALLOWED_ORIGINS: 'https://a.example,*' }),
      ).to.have.length(1);
    });

    it('allow_credentials true with listed origins is fine', () => {
      const config = valid({ SVC_CORS_ALLOW_CREDENTIALS: 'true', SVC_CORS_ALLOWED_ORIGINS: 'https://a.example' });
      expect(config.cors.allowCredentials).to.equal(true);
      expect(config.cors.allowedOrigins).to.deep.equal(['https://a.example']);
    });

    it('auth.webauthn: an RP id, origins on it (https://, or http:// on localhost), user verification', () => {
      const config = valid({
        SVC_AUTH_WEBAUTHN_RP_ID: 'Example.com',
        SVC_AUTH_WEBAUTHN_RP_NAME: 'Example',
        SVC_AUTH_WEBAUTHN_ORIGINS: 'https://example.com, https://app.example.com:8443/',
        SVC_AUTH_WEBAUTHN_REQUIRE_USER_VERIFICATION: 'false',
      });
      expect(config.auth.webauthn).to.deep.equal({
        rpId: 'example.com',
        rpName: 'Example',
        origins: ['https://example.com', 'https://app.example.com:8443'],
        requireUserVerification: false,
      });
      expect(problems({ SVC_AUTH_WEBAUTHN_RP_ID: 'https://example.com' })).to.deep.equal([
        'auth.webauthn.rp_id: "https://example.com" is not a host name such as example.com (no scheme, port or path)',
      ]);
      expect(problems({ SVC_AUTH_WEBAUTHN_ORIGINS: 'https://example.com/app' })).to.deep.equal([
        'auth.webauthn.origins: "https://example.com/app" is not a list of origins such as https://app.example.com (scheme, host, port only)',
      ]);
      expect(problems({ SVC_AUTH_WEBAUTHN_RP_ID: 'example.com' })).to.deep.equal([
        'auth.webauthn.origins: http://localhost:3000 is not on auth.webauthn.rp_id "example.com" or under it',
      ]);
      expect(
        problems({ SVC_AUTH_WEBAUTHN_RP_ID: 'example.com', SVC_AUTH_WEBAUTHN_ORIGINS: 'http://app.example.com' }),
      ).to.deep.equal(['auth.webauthn.origins: http://app.example.com must be https:// (http:// only on localhost)']);
      expect(problems({ SVC_AUTH_WEBAUTHN_ORIGINS: 'https://notexample.com,http://localhost:5173' })).to.deep.equal([
        'auth.webauthn.origins: https://notexample.com is not on auth.webauthn.rp_id "localhost" or under it',
      ]);
    });

    it('database.replica_urls: a list of postgres:// URLs, refused with SQLite, passwords never echoed', () => {
      const PG = 'postgres://portico:pw@primary:5432/portico';
      const config = valid({
        SVC_DATABASE_URL: PG,
        SVC_DATABASE_REPLICA_URLS: 'postgres://portico:pw@replica1:5432/portico, postgresql://replica2/portico',
        SVC_DATABASE_REPLICA_MAX_LAG: '2s',
      });
      expect([config.database.replicaUrls, config.database.replicaMaxLagMs]).to.deep.equal([
        ['postgres://portico:pw@replica1:5432/portico', 'postgresql://replica2/portico'],
        2000,
      ]);
      expect(
        valid(
          { SVC_DATABASE_URL: PG },
          { 'config/default.yaml': 'database:\n  replica_urls:\n    - postgres://r1/p\n' },
        ).database.replicaUrls,
      ).to.deep.equal(['postgres://r1/p']);
      expect(problems({ SVC_DATABASE_REPLICA_URLS: 'postgres://replica1/portico' })).to.deep.equal([
        'database.replica_urls: read replicas need PostgreSQL (database.url is SQLite); leave it empty',
      ]);
      const [line] = problems({
        SVC_DATABASE_URL: PG,
        SVC_DATABASE_REPLICA_URLS: 'postgres://a:s3cret@r1/p,mysql://b:s3cret2@r2/p',
      });
      expect(line).to.equal(
        'database.replica_urls: "postgres://a:***@r1/p,mysql://b:***@r2/p" is not a list of postgres:// URLs',
      );
      expect(problems({ SVC_DATABASE_URL: PG, SVC_DATABASE_REPLICA_MAX_LAG: '0s' })[0]).to.match(
        /^database\.replica_max_lag: /,
      );
    });

    it('rate_limit.store redis without redis.url is an error', () => {
      expect(problems({ SVC_RATE_LIMIT_STORE: 'redis' })).to.deep.equal([
        'rate_limit.store: "redis" needs redis.url to be set',
      ]);
    });

    it('metrics.port equal to server.port is an error, unless the metrics are off or both ports are 0', () => {
      expect(problems({ SVC_METRICS_PORT: '8080' })).to.deep.equal([
        'metrics.port: must differ from server.port (the public port never serves the metrics)',
      ]);
      expect(valid({ SVC_METRICS_PORT: '8080', SVC_METRICS_ENABLED: 'false' }).metrics).to.deep.equal({
        enabled: false,
        host: '0.0.0.0',
        port: 8080,
      });
      expect(valid({ SVC_METRICS_PORT: '0', SVC_SERVER_PORT: '0' }).metrics.port).to.equal(0);
    });

    it('metrics.host and metrics.port are read from the environment and checked like server.*', () => {
      expect(valid({ SVC_METRICS_HOST: '127.0.0.1', SVC_METRICS_PORT: '9100' }).metrics).to.deep.equal({
        enabled: true,
        host: '127.0.0.1',
        port: 9100,
      });
      expect(problems({ SVC_METRICS_PORT: '70000' })[0]).to.match(/^metrics\.port: /);
    });

    it('rate_limit.store redis with redis.url is fine', () => {
      const config = valid({ SVC_RATE_LIMIT_STORE: 'redis', SVC_REDIS_URL: 'redis://127.0.0.1:6379' });
      expect(config.rateLimit.store).to.equal('redis');
      expect(config.redis.url).to.equal('redis://127.0.0.1:6379');
    });
  });

  describe('storage', () => {
    it('reads the driver, folder, link lifetime and public URL from the environment', () => {
      const config = valid({
        SVC_STORAGE_DRIVER: 'local',
        SVC_STORAGE_PATH: '/var/lib/portico/files',
        SVC_STORAGE_URL_TTL: '1h',
        SVC_STORAGE_PUBLIC_URL: 'https://api.example.com/',
      });
      expect(config.storage).to.include({
        driver: 'local',
        path: '/var/lib/portico/files',
        urlTtlMs: 3_600_000,
        publicUrl: 'https://api.example.com',
      });
      expect(problems({ SVC_STORAGE_DRIVER: 'ftp' })).to.deep.equal(['storage.driver: "ftp" is not one of local, s3']);
      expect(problems({ SVC_STORAGE_PUBLIC_URL: 'api.example.com' })).to.deep.equal([
        'storage.public_url: "api.example.com" is not empty or an absolute http:// or https:// URL without query or fragment',
      ]);
    });

    it('reads the S3 settings, and refuses the s3 driver without a bucket in one line naming the key', () => {
      const s3 = {
        SVC_STORAGE_DRIVER: 's3',
        SVC_STORAGE_S3_ENDPOINT: 'http://127.0.0.1:7480',
        SVC_STORAGE_S3_REGION: 'eu-west-1',
        SVC_STORAGE_S3_ACCESS_KEY_ID: 'AKIDEXAMPLE',
        SVC_STORAGE_S3_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG',
        SVC_STORAGE_S3_FORCE_PATH_STYLE: 'true',
      };
      expect(problems(s3)).to.deep.equal([
        'storage.s3.bucket: must be set with storage.driver "s3" (set SVC_STORAGE_S3_BUCKET)',
      ]);
      expect(valid({ ...s3, SVC_STORAGE_S3_BUCKET: 'files' }).storage.s3).to.deep.equal({
        endpoint: 'http://127.0.0.1:7480',
        region: 'eu-west-1',
        bucket: 'files',
        accessKeyId: 'AKIDEXAMPLE',
        secretAccessKey: 'wJalrXUtnFEMI/K7MDENG',
        forcePathStyle: true,
      });
      // A bucket is not needed by the local engine.
      expect(valid({ SVC_STORAGE_DRIVER: 'local' }).storage.s3.bucket).to.equal('');
    });

    it('refuses an access key without its secret, never echoing the secret', () => {
      expect(problems({ SVC_STORAGE_S3_ACCESS_KEY_ID: 'AKIDEXAMPLE' })).to.deep.equal([
        'storage.s3.access_key_id: must be set together with storage.s3.secret_access_key (or neither)',
      ]);
      const lines = problems({
        SVC_STORAGE_S3_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG',
        SVC_STORAGE_S3_FORCE_PATH_STYLE: 'x',
      });
      expect(lines.join('\n')).to.not.include('wJalrXUtnFEMI');
    });

    it('storage.signing_secret is empty (derived in development) or at least 32 bytes, never echoed', () => {
      expect(valid({}).storage.signingSecret).to.equal('');
      expect(valid({ SVC_STORAGE_SIGNING_SECRET: SIGNING_32 }).storage.signingSecret).to.equal(SIGNING_32);
      expect(problems({ SVC_STORAGE_SIGNING_SECRET: SIGNING_32.slice(1) })).to.deep.equal([
        'storage.signing_secret: the value given is not empty or a secret of at least 32 bytes',
      ]);
    });

    it('refuses production with the local driver and no signing secret, or the JWT secret as that secret', () => {
      const { SVC_STORAGE_SIGNING_SECRET: _, ...without } = PRODUCTION;
      expect(problems({ ...without, SVC_JWT_SECRET: SECRET_32 })).to.deep.equal([
        'storage.signing_secret: must be set in production with storage.driver "local" (set SVC_STORAGE_SIGNING_SECRET, 32 bytes or more)',
      ]);
      expect(problems({ ...PRODUCTION, SVC_JWT_SECRET: SIGNING_32 })).to.deep.equal([
        'storage.signing_secret: must differ from jwt.secret',
      ]);
      // The S3 engine's links are signed by the store: no signing secret is needed.
      expect(
        valid({ ...without, SVC_JWT_SECRET: SECRET_32, SVC_STORAGE_DRIVER: 's3', SVC_STORAGE_S3_BUCKET: 'files' })
          .storage.driver,
      ).to.equal('s3');
    });
  });

  describe('production (SVC_ENV=production)', () => {
    it('refuses the default mail.link_base_url, and any that is not https://, with one line naming the key', () => {
      const { SVC_MAIL_LINK_BASE_URL: _, ...withoutBase } = PRODUCTION;
      const line =
        'mail.link_base_url: must be set to an https:// URL in production (set SVC_MAIL_LINK_BASE_URL to your front end)';
      expect(problems({ ...withoutBase, SVC_JWT_SECRET: SECRET_32 })).to.deep.equal([line]);
      expect(
        problems({ ...withoutBase, SVC_JWT_SECRET: SECRET_32, SVC_MAIL_LINK_BASE_URL: 'http://app.example.com' }),
      ).to.deep.equal([line]);
      expect(valid({ ...PRODUCTION, SVC_JWT_SECRET: SECRET_32 }).mail.linkBaseUrl).to.equal('https://app.example.com');
    });

    it('secrets.encryption_key is empty (derived in development) or at least 32 bytes, in any environment', () => {
      expect(valid({}).secrets.encryptionKey).to.equal('');
      expect(valid({ SVC_SECRETS_ENCRYPTION_KEY: KEY_32 }).secrets.encryptionKey).to.equal(KEY_32);
      expect(problems({ SVC_SECRETS_ENCRYPTION_KEY: KEY_32.slice(1) })).to.deep.equal([
        'secrets.encryption_key: the value given is not empty or a secret of at least 32 bytes',
      ]);
    });

    it('account.mails_per_ip_per_hour and tracing.sample_ratio are validated', () => {
      expect(valid({ SVC_ACCOUNT_MAILS_PER_IP_PER_HOUR: '5' }).account.mailsPerIpPerHour).to.equal(5);
      expect(problems({ SVC_ACCOUNT_MAILS_PER_IP_PER_HOUR: '0' })[0]).to.match(/^account\.mails_per_ip_per_hour: /);
      expect(valid({ SVC_TRACING_SAMPLE_RATIO: '0.25' }).tracing.sampleRatio).to.equal(0.25);
      expect(problems({ SVC_TRACING_SAMPLE_RATIO: '1.5' })).to.deep.equal([
        'tracing.sample_ratio: "1.5" is not a number from 0 to 1',
      ]);
    });

    it('refuses the shipped placeholder secret', () => {
      expect(problems(PRODUCTION)).to.deep.equal([
        'jwt.secret: the shipped placeholder must be replaced in production (set SVC_JWT_SECRET)',
      ]);
    });

    it('refuses the placeholder coming from the shipped default.yaml too', () => {
      expect(problems(PRODUCTION, { 'config/default.yaml': defaultYaml })).to.deep.equal([
        'jwt.secret: the shipped placeholder must be replaced in production (set SVC_JWT_SECRET)',
      ]);
    });

    it('refuses a secret shorter than 32 bytes', () => {
      expect(problems({ ...PRODUCTION, SVC_JWT_SECRET: SECRET_32.slice(0, 31) })).to.deep.equal([
        'jwt.secret: must be at least 32 bytes in production',
      ]);
    });

    it('counts bytes, not characters', () => {
      expect(problems({ ...PRODUCTION, SVC_JWT_SECRET: 'é'.repeat(15) })).to.deep.equal([
        'jwt.secret: must be at least 32 bytes in production',
      ]);
      expect(valid({ ...PRODUCTION, SVC_JWT_SECRET: 'é'.repeat(16) }).jwt.secret).to.equal('é'.repeat(16));
    });

    it('accepts a 32-byte secret, with the playground, introspection and the API docs off by default', () => {
      const config = valid({ ...PRODUCTION, SVC_JWT_SECRET: SECRET_32 }, { 'config/default.yaml': defaultYaml });
      expect(config).to.deep.equal({
        ...DEFAULTS,
        env: 'production',
        jwt: { ...DEFAULTS.jwt, secret: SECRET_32 },
        secrets: { encryptionKey: KEY_32 },
        graphql: { ...DEFAULTS.graphql, playground: false, introspection: false },
        docs: { enabled: false },
        mail: { ...DEFAULTS.mail, smtpUrl: SMTP_URL, linkBaseUrl: 'https://app.example.com' },
        storage: { ...DEFAULTS.storage, signingSecret: SIGNING_32 },
      });
    });

    it('the API docs can be turned on explicitly in production', () => {
      expect(valid({ ...PRODUCTION, SVC_JWT_SECRET: SECRET_32, SVC_DOCS_ENABLED: 'true' }).docs.enabled).to.equal(true);
    });

    it('the playground and introspection can be turned on explicitly from the environment', () => {
      const config = valid({
        ...PRODUCTION,
        SVC_JWT_SECRET: SECRET_32,
        SVC_GRAPHQL_PLAYGROUND: 'true',
        SVC_GRAPHQL_INTROSPECTION: 'true',
      });
      expect([config.graphql.playground, config.graphql.introspection]).to.deep.equal([true, true]);
    });

    it('the playground and introspection can be turned on explicitly from config/production.yaml', () => {
      const config = valid(
        { ...PRODUCTION, SVC_JWT_SECRET: SECRET_32 },
        { 'config/default.yaml': defaultYaml, 'config/production.yaml': 'graphql:\n  playground: true\n' },
      );
      expect([config.graphql.playground, config.graphql.introspection]).to.deep.equal([true, false]);
    });

    it('refuses to start without secrets.encryption_key, or with the JWT secret as that key', () => {
      const { SVC_SECRETS_ENCRYPTION_KEY: _, ...withoutKey } = PRODUCTION;
      expect(problems({ ...withoutKey, SVC_JWT_SECRET: SECRET_32 })).to.deep.equal([
        'secrets.encryption_key: must be set in production (set SVC_SECRETS_ENCRYPTION_KEY, 32 bytes or more)',
      ]);
      expect(problems({ ...PRODUCTION, SVC_JWT_SECRET: KEY_32 })).to.deep.equal([
        'secrets.encryption_key: must differ from jwt.secret',
      ]);
    });

    it('outside production the short placeholder-free secret is accepted', () => {
      expect(valid({ SVC_JWT_SECRET: 'short' }).jwt.secret).to.equal('short');
    });

    it('refuses to start without mail.smtp_url: the log mailer is for development only', () => {
      const refusal =
        'mail.smtp_url: must be set in production (set SVC_MAIL_SMTP_URL); the log mailer, which writes links with tokens to the log, is for development only';
      const https = {
        SVC_MAIL_LINK_BASE_URL: 'https://app.example.com',
        SVC_SECRETS_ENCRYPTION_KEY: KEY_32,
        SVC_STORAGE_SIGNING_SECRET: SIGNING_32,
      };
      expect(problems({ SVC_ENV: 'production', SVC_JWT_SECRET: SECRET_32, ...https })).to.deep.equal([refusal]);
      expect(
        problems(
          { SVC_ENV: 'production', SVC_JWT_SECRET: SECRET_32, SVC_MAIL_SMTP_URL: '', ...https },
          { 'config/default.yaml': defaultYaml },
        ),
      ).to.deep.equal([refusal]);
      expect(problems({ SVC_ENV: 'production', ...https })).to.deep.equal([
        'jwt.secret: the shipped placeholder must be replaced in production (set SVC_JWT_SECRET)',
        refusal,
      ]);
      expect(valid({ SVC_ENV: 'staging' }).mail.smtpUrl).to.equal('');
    });
  });
});
