import { expect } from 'chai';
import { parse } from 'yaml';
import { readRepoFile } from './dockerfile.js';
import { configUnder, unknownSettings } from './settings.js';

interface Service {
  build?: string;
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
}

/** Compose's variable interpolation: `${V}`, `${V:-default}`, `${V:?error}`, `$$`. */
function interpolate(text: string, env: Record<string, string | undefined>): string {
  return text.replace(
    /\$\$|\$\{([A-Z0-9_]+)(?:(:-|:\?)([^}]*))?\}/g,
    (whole, name: string | undefined, op: string | undefined, arg: string | undefined) => {
      if (whole === '$$') return '$';
      const value = env[name!];
      if (op === ':-') return value ? value : arg!;
      if (op === ':?' && !value) throw new Error(`required variable ${name} is missing a value: ${arg}`);
      return value ?? '';
    },
  );
}

const SECRET = 'a'.repeat(16) + 'b'.repeat(16);
const SMTP_URL = 'smtp://portico:p%40ss@smtp.example.com:587';
const LINK_BASE = 'https://app.example.com';

describe('compose.yaml (README: Running in production)', () => {
  const text = readRepoFile(process.cwd(), 'compose.yaml');
  const compose = parse(text, { merge: true }) as { services: Record<string, Service> };
  const services = compose.services;
  const resolved = (
    parse(
      interpolate(text, { SVC_JWT_SECRET: SECRET, SVC_MAIL_SMTP_URL: SMTP_URL, SVC_MAIL_LINK_BASE_URL: LINK_BASE }),
      {
        merge: true,
      },
    ) as {
      services: Record<string, Service>;
    }
  ).services;

  it('runs the service from this repository with PostgreSQL 15 and Redis 7, each with a health check', () => {
    expect(Object.keys(services)).to.include.members(['portico', 'postgres', 'redis', 'migrate']);
    expect(services.portico!.build).to.equal('.');
    expect(services.postgres!.image).to.match(/^postgres:15(\.|$|-)/);
    expect(services.redis!.image).to.match(/^redis:7(\.|$|-)/);
    expect(services.postgres!.healthcheck!.test.join(' ')).to.match(/pg_isready/);
    expect(services.redis!.healthcheck!.test.join(' ')).to.match(/redis-cli ping/);
  });

  it('starts the service once both are healthy and the one-off migration has finished', () => {
    expect(services.portico!.depends_on).to.deep.include({
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
      migrate: { condition: 'service_completed_successfully' },
    });
    expect(services.migrate!.depends_on).to.deep.include({ postgres: { condition: 'service_healthy' } });
    expect(services.migrate!.image).to.equal(services.portico!.image);
    expect(services.migrate!.command).to.deep.equal(['node', 'dist/src/main/cli.js', 'migrate']);
    expect(services.portico!.command, 'the service runs the image CMD').to.be.undefined;
    expect(services.portico!.environment!.SVC_DATABASE_MIGRATE_ON_START).to.equal('false');
  });

  it('publishes the API on 8080 and the metrics port, the latter on loopback only', () => {
    expect(services.portico!.ports).to.include('8080:8080');
    expect(services.portico!.ports).to.include('127.0.0.1:9464:9464');
  });

  it('points the service at the postgres and redis services, on their ports, with the database they create', () => {
    for (const name of ['portico', 'migrate']) {
      const env = resolved[name]!.environment!;
      const database = new URL(env.SVC_DATABASE_URL!);
      expect(database.protocol).to.equal('postgres:');
      expect(database.hostname).to.equal('postgres');
      expect(database.port).to.equal('5432');
      const postgres = resolved.postgres!.environment!;
      expect(decodeURIComponent(database.username)).to.equal(postgres.POSTGRES_USER);
      expect(decodeURIComponent(database.password)).to.equal(postgres.POSTGRES_PASSWORD);
      expect(database.pathname).to.equal(`/${postgres.POSTGRES_DB}`);
      const redis = new URL(env.SVC_REDIS_URL!);
      expect(redis.protocol).to.equal('redis:');
      expect(redis.hostname).to.equal('redis');
      expect(redis.port).to.equal('6379');
      expect(env.SVC_RATE_LIMIT_STORE).to.equal('redis');
      expect(env.SVC_JWT_SECRET).to.equal(SECRET);
    }
  });

  it('sets only real configuration keys, and the service accepts them all in production', () => {
    for (const name of ['portico', 'migrate']) {
      const env = resolved[name]!.environment!;
      expect(unknownSettings(Object.keys(env)), `${name}: SVC_ variables that are no configuration key`).to.deep.equal(
        [],
      );
      const loaded = configUnder(env);
      expect(loaded.ok, JSON.stringify(loaded)).to.be.true;
      if (!loaded.ok) return;
      expect(loaded.config.env).to.equal('production');
      expect(loaded.config.rateLimit.store).to.equal('redis');
      expect(loaded.config.database.migrateOnStart).to.be.false;
      expect(loaded.config.mail).to.deep.include({
        smtpUrl: SMTP_URL,
        from: 'Portico <no-reply@localhost>',
        linkBaseUrl: LINK_BASE,
      });
    }
    expect(unknownSettings(['SVC_DATABASE_URL', 'SVC_JWT_SECRET', 'SVC_HEALTH_HTTP', 'SVC_DATABSE_URL'])).to.deep.equal(
      ['SVC_DATABSE_URL'],
    );
  });

  it('refuses to start without SVC_JWT_SECRET, saying what to set', () => {
    expect(services.portico!.environment!.SVC_JWT_SECRET).to.match(/^\$\{SVC_JWT_SECRET:\?.*32 bytes.*\}$/);
    expect(() => interpolate(text, {})).to.throw(/SVC_JWT_SECRET.*32 bytes/);
    expect(() => interpolate(text, { SVC_JWT_SECRET: '' })).to.throw(/SVC_JWT_SECRET/);
  });

  it('refuses to start without SVC_MAIL_LINK_BASE_URL (production links must be https://), saying what to set', () => {
    expect(() => interpolate(text, { SVC_JWT_SECRET: SECRET, SVC_MAIL_SMTP_URL: SMTP_URL })).to.throw(
      /SVC_MAIL_LINK_BASE_URL.*https:\/\//,
    );
  });

  it('refuses to start without SVC_MAIL_SMTP_URL (production sends real mail), saying what to set', () => {
    expect(() => interpolate(text, { SVC_JWT_SECRET: SECRET })).to.throw(/SVC_MAIL_SMTP_URL.*smtp:\/\//);
    const env = {
      SVC_JWT_SECRET: SECRET,
      SVC_MAIL_SMTP_URL: SMTP_URL,
      SVC_MAIL_LINK_BASE_URL: 'https://shop.example.com',
      SVC_MAIL_FROM: 'Shop <shop@example.com>',
    };
    const custom = (parse(interpolate(text, env), { merge: true }) as { services: Record<string, Service> }).services
      .portico!.environment!;
    const loaded = configUnder(custom);
    expect(loaded.ok, JSON.stringify(loaded)).to.be.true;
    if (loaded.ok)
      expect(loaded.config.mail).to.deep.include({
        from: 'Shop <shop@example.com>',
        linkBaseUrl: 'https://shop.example.com',
      });
  });
});
