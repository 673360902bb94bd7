import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { HEALTH_PATHS } from '../../src/adapters/inbound/http/routes/health.js';
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
  stop_grace_period?: string;
  volumes?: string[];
}

/** A compose duration (`30s`, `1m30s`, `500ms`) in seconds. */
function composeSeconds(text: string): number {
  const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001 };
  expect(text, 'a compose duration').to.match(/^(\d+(\.\d+)?(h|ms|m|s))+$/);
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s)/g)) total += Number(amount) * units[unit!]!;
  return total;
}

/** The worker's entry in the image (`npm run worker` runs the same file). */
const WORKER_COMMAND = ['node', 'dist/src/main/worker.js'];

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
const KEY = 'c'.repeat(16) + 'd'.repeat(16);
const SIGNING = 'e'.repeat(16) + 'f'.repeat(16);
const SMTP_URL = 'smtp://portico:p%40ss@smtp.example.com:587';
const LINK_BASE = 'https://app.example.com';
/** What production needs set, as the header of compose.yaml says to set it. */
const PRODUCTION = {
  SVC_ENV: 'production',
  SVC_JWT_SECRET: SECRET,
  SVC_SECRETS_ENCRYPTION_KEY: KEY,
  SVC_STORAGE_SIGNING_SECRET: SIGNING,
  SVC_MAIL_SMTP_URL: SMTP_URL,
  SVC_MAIL_LINK_BASE_URL: LINK_BASE,
};

/** The variables compose reads (`${NAME…}`), each once. */
const variablesOf = (text: string): string[] => [
  ...new Set([...text.matchAll(/\$\{([A-Z0-9_]+)/g)].map((match) => match[1]!)),
];

describe('compose.yaml (README: Running in production)', () => {
  const text = readRepoFile(process.cwd(), 'compose.yaml');
  const compose = parse(text, { merge: true }) as { services: Record<string, Service> };
  const services = compose.services;
  /** The services as compose resolves them with every production setting given. */
  const resolved = (
    parse(
      interpolate(text, {
        SVC_ENV: 'production',
        SVC_JWT_SECRET: SECRET,
        SVC_SECRETS_ENCRYPTION_KEY: KEY,
        SVC_STORAGE_SIGNING_SECRET: SIGNING,
        SVC_MAIL_SMTP_URL: SMTP_URL,
        SVC_MAIL_LINK_BASE_URL: LINK_BASE,
      }),
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
    for (const name of ['portico', 'migrate', 'worker']) {
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
      expect(env.SVC_SECRETS_ENCRYPTION_KEY).to.equal(KEY);
    }
  });

  it('sets only real configuration keys, and the service accepts them all in production', () => {
    for (const name of ['portico', 'migrate', 'worker']) {
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

  describe('`docker compose up --build` works as written, with no variable set', () => {
    /** The services as compose resolves them with nothing set (no shell variable, no .env file). */
    const bare = () =>
      (parse(interpolate(text, {}), { merge: true }) as { services: Record<string, Service> }).services;

    it('requires no variable: each one compose reads has a default, and the header comment names it', () => {
      // `${NAME:?error}` and `${NAME?error}` stop `docker compose up` until NAME is set; `$NAME` and `${NAME}` are
      // empty while it is unset, `${NAME-default}` when it is set to nothing. Only `${NAME:-default}` always works.
      const settings = text
        .split('\n')
        .filter((line) => !line.trimStart().startsWith('#'))
        .join('\n');
      const uses = [...settings.replace(/\$\$/g, '').matchAll(/\$(\{[^}]*\}|\w*)/g)].map((match) => match[0]);
      const withoutDefault = uses.filter((use) => !/^\$\{[A-Z0-9_]+:-[^}]*\}$/.test(use));
      expect(withoutDefault, 'variables used without a `:-` default').to.deep.equal([]);
      expect(() => interpolate(text, {})).to.not.throw();
      const header = text.slice(0, text.search(/^[^#\n]/m));
      const variables = variablesOf(text);
      expect(variables).to.include.members(['SVC_JWT_SECRET', 'SVC_SECRETS_ENCRYPTION_KEY', 'SVC_MAIL_SMTP_URL']);
      for (const name of variables) expect(header, `${name} in the header comment`).to.include(name);
      expect(header).to.include('docker compose up --build');
    });

    it('ships a mail catcher for development: Mailpit, SMTP on 1025, its web UI on 8025 on loopback, health-checked', () => {
      const mailpit = services.mailpit!;
      expect(mailpit, 'a mailpit service').to.not.be.undefined;
      expect(mailpit.image).to.match(/^axllent\/mailpit(:|$)/);
      expect(mailpit.ports).to.include('127.0.0.1:8025:8025');
      expect(mailpit.ports).to.include('127.0.0.1:1025:1025');
      expect(mailpit.healthcheck!.test.join(' ')).to.match(/readyz/);
      expect(services.portico!.depends_on).to.deep.include({ mailpit: { condition: 'service_healthy' } });
    });

    it('starts the service, the migration and the worker in development, sending every mail to the mail catcher', () => {
      for (const name of ['portico', 'migrate', 'worker']) {
        const env = bare()[name]!.environment!;
        expect(unknownSettings(Object.keys(env)), name).to.deep.equal([]);
        const loaded = configUnder(name === 'worker' ? { ...env, SVC_JOBS_MODE: 'worker' } : env);
        expect(loaded.ok, `${name}: ${JSON.stringify(loaded)}`).to.be.true;
        if (!loaded.ok) return;
        expect(loaded.config.env).to.equal('development');
        const smtp = new URL(loaded.config.mail.smtpUrl);
        expect(smtp.protocol).to.equal('smtp:');
        expect(smtp.hostname, 'the mail catcher service').to.equal('mailpit');
        expect(smtp.port).to.equal('1025');
        expect(services[smtp.hostname], 'a service of that name').to.not.be.undefined;
        expect(loaded.config.mail.linkBaseUrl).to.equal('http://localhost:8080');
        expect(loaded.config.database.url).to.match(/^postgres:\/\/[^@]+@postgres:5432\/portico$/);
      }
    });
  });

  describe('in production (SVC_ENV=production), the development defaults are refused, each saying what to set', () => {
    const loadedWith = (env: Record<string, string>) => {
      const resolvedEnv = (parse(interpolate(text, env), { merge: true }) as { services: Record<string, Service> })
        .services.portico!.environment!;
      return configUnder(resolvedEnv);
    };
    const without = (name: keyof typeof PRODUCTION) =>
      Object.fromEntries(Object.entries(PRODUCTION).filter(([key]) => key !== name));

    it('starts with every production setting given', () => {
      expect(loadedWith(PRODUCTION).ok).to.be.true;
    });

    it('refuses to start without SVC_JWT_SECRET (the default is the shipped placeholder)', () => {
      const loaded = loadedWith(without('SVC_JWT_SECRET'));
      expect(loaded.ok).to.be.false;
      if (!loaded.ok) expect(loaded.errors.join('\n')).to.match(/jwt\.secret: .*set SVC_JWT_SECRET/);
    });

    it('refuses to start without SVC_SECRETS_ENCRYPTION_KEY, saying what to set', () => {
      const loaded = loadedWith(without('SVC_SECRETS_ENCRYPTION_KEY'));
      expect(loaded.ok).to.be.false;
      if (!loaded.ok) expect(loaded.errors.join('\n')).to.match(/SVC_SECRETS_ENCRYPTION_KEY.*32 bytes/);
    });

    it('refuses to start without SVC_MAIL_LINK_BASE_URL (production links must be https://), saying what to set', () => {
      const loaded = loadedWith(without('SVC_MAIL_LINK_BASE_URL'));
      expect(loaded.ok).to.be.false;
      if (!loaded.ok) expect(loaded.errors.join('\n')).to.match(/https:\/\/.*SVC_MAIL_LINK_BASE_URL/);
    });

    it('without SVC_MAIL_SMTP_URL sends mail to the mail catcher, never to the log; with it, to that server', () => {
      const caught = loadedWith(without('SVC_MAIL_SMTP_URL'));
      expect(caught.ok, JSON.stringify(caught)).to.be.true;
      if (caught.ok) expect(caught.config.mail.smtpUrl).to.equal('smtp://mailpit:1025');
      const env = {
        ...PRODUCTION,
        SVC_MAIL_LINK_BASE_URL: 'https://shop.example.com',
        SVC_MAIL_FROM: 'Shop <shop@example.com>',
      };
      const loaded = loadedWith(env);
      expect(loaded.ok, JSON.stringify(loaded)).to.be.true;
      if (loaded.ok)
        expect(loaded.config.mail).to.deep.include({
          smtpUrl: SMTP_URL,
          from: 'Shop <shop@example.com>',
          linkBaseUrl: 'https://shop.example.com',
        });
    });
  });

  describe('the background-jobs worker (docs/jobs.md)', () => {
    const worker = services.worker!;
    /** The configuration a service starts with; `extra` for what its entry point sets. */
    const configOf = (name: string, extra: Record<string, string> = {}) => {
      const loaded = configUnder({ ...resolved[name]!.environment!, ...extra });
      expect(loaded.ok, `${name}: ${JSON.stringify(loaded)}`).to.be.true;
      if (!loaded.ok) throw new Error('unreachable');
      return loaded.config;
    };

    it('runs the worker entry of the service image', () => {
      expect(worker, 'a worker service').to.not.be.undefined;
      expect(worker.build).to.equal(services.portico!.build);
      expect(worker.image).to.equal(services.portico!.image);
      expect(worker.command).to.deep.equal(WORKER_COMMAND);
      const scripts = (
        JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')) as { scripts: Record<string, string> }
      ).scripts;
      expect(scripts.worker, 'npm run worker runs the same file').to.equal(WORKER_COMMAND.join(' '));
    });

    it("has the service's settings and secrets, on the same database, Redis and mail server", () => {
      const web = resolved.portico!.environment!;
      const own = resolved.worker!.environment!;
      for (const [key, value] of Object.entries(web))
        if (key !== 'SVC_JOBS_MODE') expect(own[key], key).to.equal(value);
      const api = configOf('portico');
      // What worker.ts sets before the configuration is read.
      const jobs = configOf('worker', { SVC_JOBS_MODE: 'worker' });
      expect(jobs.database).to.deep.equal(api.database);
      expect(jobs.redis).to.deep.equal(api.redis);
      expect(jobs.mail).to.deep.equal(api.mail);
      expect(jobs.jwt).to.deep.equal(api.jwt);
      expect({ ...jobs.jobs, mode: 'web' }, 'every jobs.* setting but the mode').to.deep.equal(api.jobs);
    });

    it('shares one files volume with the service, at the local storage engine’s folder, which the image gives the service user', () => {
      const api = configOf('portico');
      const jobs = configOf('worker', { SVC_JOBS_MODE: 'worker' });
      expect(api.storage).to.deep.equal(jobs.storage);
      expect(api.storage.driver).to.equal('local');
      // The image's WORKDIR is /app: the relative folder the engine writes is this mount.
      const mount = `files:/app/${api.storage.path}`;
      expect(resolved.portico!.volumes, 'the service mounts the files volume').to.include(mount);
      expect(resolved.worker!.volumes, 'the worker (files.delete, files.purge) mounts it too').to.include(mount);
      const dockerfile = readRepoFile(process.cwd(), 'Dockerfile');
      expect(dockerfile).to.match(/^WORKDIR \/app$/m);
      expect(dockerfile).to.match(/mkdir -p data\/files && chown -R 1000:1000 data/);
    });

    it('starts once the stores are healthy and the migration has finished, as the service does', () => {
      expect(worker.depends_on).to.deep.equal(services.portico!.depends_on);
      expect(worker.depends_on).to.deep.include({
        postgres: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
        migrate: { condition: 'service_completed_successfully' },
      });
    });

    it('is health-checked on a health path of server.port, and publishes no port', () => {
      const test = worker.healthcheck!.test.join(' ');
      const url = /https?:\/\/[^'"\s)]+/.exec(test)?.[0];
      expect(url, `a URL in ${test}`).to.not.be.undefined;
      const target = new URL(url!);
      expect(target.hostname).to.be.oneOf(['127.0.0.1', 'localhost']);
      expect(Number(target.port)).to.equal(configOf('worker', { SVC_JOBS_MODE: 'worker' }).server.port);
      expect(HEALTH_PATHS).to.include(target.pathname);
      expect(worker.ports ?? [], 'published ports').to.deep.equal([]);
    });

    it('runs the service on jobs.mode web: it stores jobs, the worker runs them', () => {
      expect(configOf('portico').jobs.mode).to.equal('web');
      expect(resolved.worker!.environment!.SVC_JOBS_MODE, 'the worker is no web tier').to.not.equal('web');
    });

    it('gives running jobs server.shutdown_timeout to finish before compose kills the worker', () => {
      const config = configOf('worker', { SVC_JOBS_MODE: 'worker' });
      const needed = (config.server.shutdownDelayMs + 2 * config.server.shutdownTimeoutMs) / 1000;
      expect(composeSeconds(worker.stop_grace_period ?? '10s')).to.be.greaterThan(needed);
    });
  });
});
