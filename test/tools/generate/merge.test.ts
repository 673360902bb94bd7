import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'chai';
import type { Database } from '../../../src/adapters/outbound/mikroorm/database.js';
import { migrationFileName } from '../../../src/adapters/outbound/mikroorm/migrationFiles.js';
import { Api, dataOf } from '../../support/api.js';
import { servedContract } from '../../support/contract.js';
import { connectDatabase } from '../../support/database.js';
import { externalService } from '../../support/env.js';
import { createAdmin, PASSWORD, run, ScratchCopy, ScratchPostgres, startServer, type Finished } from './scratch.js';

const ENTITY = 'src/domain/book/Book.ts';
const MIGRATIONS = 'src/adapters/outbound/mikroorm/migrations';

function expectExit(result: Finished, code: number, what: string): void {
  expect(result.code, `${what} exited ${result.code}:\n${result.stdout}\n${result.stderr}`).to.equal(code);
}

/** A database a branch migrated and wrote rows to: SQLite files in the copy, PostgreSQL databases of their own. */
interface Target {
  readonly engine: 'sqlite' | 'postgres';
  readonly url: string;
}

/**
 * Two branches that each add a field to one resource (`generate field book subtitle…` and `…
 * edition…`) merge without a conflict in any migration file or list (no list names migrations);
 * the merged service migrates a database that ran either branch (one of them gets a migration that
 * sorts before one it applied) and a fresh one, with every row kept, on SQLite and PostgreSQL.
 */
describe('generate: two branches that each add a field merge, and the merged service migrates every database', function () {
  this.timeout(600_000);
  let copy: ScratchCopy;
  const postgres = externalService('SVC_TEST_POSTGRES_URL');
  const scratchDatabases: ScratchPostgres[] = [];
  const git = async (...args: string[]) => {
    const result = await run(copy.root, 'git', args, {
      GIT_AUTHOR_NAME: 'Portico test',
      GIT_AUTHOR_EMAIL: 'test@example.com',
      GIT_COMMITTER_NAME: 'Portico test',
      GIT_COMMITTER_EMAIL: 'test@example.com',
    });
    return result;
  };
  const gitOk = async (...args: string[]) => {
    const result = await git(...args);
    expectExit(result, 0, `git ${args.join(' ')}`);
    return result.stdout;
  };
  const generate = async (...args: string[]) => {
    const result = await copy.npm('generate', args);
    expectExit(result, 0, `generate ${args.join(' ')}`);
  };
  /** The service's `migrate` command in the copy as its work tree is, on `target`. */
  const migrate = async (target: Target): Promise<string> => {
    const result = await copy.node('src/main/cli.ts', ['migrate'], { SVC_DATABASE_URL: target.url }, 120_000);
    expectExit(result, 0, `migrate ${target.url}`);
    return result.stdout;
  };
  /** Files changed since `from` whose committed text there had more than 1,000 lines. */
  const largeFilesChanged = async (from: string): Promise<string[]> => {
    const changed = (await gitOk('diff', '--name-only', from, 'HEAD')).split('\n').filter(Boolean);
    const large: string[] = [];
    for (const path of changed) {
      const before = await git('show', `${from}:${path}`);
      if (before.code === 0 && before.stdout.split('\n').length > 1000) large.push(path);
    }
    return large;
  };

  const targets: Record<'a' | 'b' | 'fresh', Target[]> = { a: [], b: [], fresh: [] };
  const open = (target: Target): Promise<Database> => connectDatabase(target.url, { migrations: [] });
  const rows = async (target: Target): Promise<Record<string, unknown>[]> => {
    const db = await open(target);
    try {
      const columns = (await db.orm.em
        .getConnection()
        .execute('select * from books order by title', [], 'all')) as Record<string, unknown>[];
      return columns.map(({ title, subtitle, edition }) => ({
        title,
        subtitle: subtitle ?? null,
        edition: edition === undefined || edition === null ? null : Number(edition),
      }));
    } finally {
      await db.close();
    }
  };
  const insert = async (target: Target, field: 'subtitle' | 'edition', values: [string, string | number][]) => {
    const db = await open(target);
    try {
      for (const [i, [title, value]] of values.entries()) {
        const now = target.engine === 'sqlite' ? Date.now() : new Date();
        await db.orm.em
          .getConnection()
          .execute(
            `insert into books (id, title, ${field}, version, created_at, updated_at) values (?, ?, ?, 1, ?, ?)`,
            [
              `00000000-0000-4000-8000-${field === 'subtitle' ? 'a' : 'b'}${String(i).padStart(11, '0')}`,
              title,
              value,
              now,
              now,
            ],
          );
      }
    } finally {
      await db.close();
    }
  };

  before(async function () {
    this.timeout(300_000);
    copy = await ScratchCopy.of(process.cwd());
    mkdirSync(copy.path('.tmp'), { recursive: true });
    const databases = async (name: string): Promise<Target[]> => {
      const list: Target[] = [{ engine: 'sqlite', url: `sqlite:${copy.path(`.tmp/${name}.sqlite`)}` }];
      if (postgres) {
        const database = await ScratchPostgres.create(postgres);
        scratchDatabases.push(database);
        list.push({ engine: 'postgres', url: database.url });
      }
      return list;
    };
    targets.a = await databases('a');
    targets.b = await databases('b');
    targets.fresh = await databases('fresh');
  });
  after(async () => {
    for (const database of scratchDatabases) await database.drop();
    copy?.dispose();
  });

  let base = '';
  const migrationsOf = async (ref: string) =>
    (await gitOk('ls-tree', '--name-only', `${ref}:${MIGRATIONS}`)).split('\n').filter((name) => /^\d{8}T/.test(name));

  it('each branch adds its field with a migration of its own, changing no large file', async () => {
    await gitOk('init', '-q', '-b', 'main');
    await gitOk('add', '-A');
    await gitOk('commit', '-qm', 'the project');
    await generate('resource', 'book', 'title:string');
    await gitOk('add', '-A');
    await gitOk('commit', '-qm', 'books');
    base = (await gitOk('rev-parse', 'HEAD')).trim();
    await gitOk('checkout', '-qb', 'a');
    await generate('field', 'book', 'subtitle:string(..120)?');
    await gitOk('add', '-A');
    await gitOk('commit', '-qm', 'books get a subtitle');
    expect(await largeFilesChanged(base)).to.deep.equal([]);
    await gitOk('checkout', '-q', 'main');
    await gitOk('checkout', '-qb', 'b');
    await generate('field', 'book', 'edition:integer(1..)?');
    await gitOk('add', '-A');
    await gitOk('commit', '-qm', 'books get an edition');
    expect(await largeFilesChanged(base)).to.deep.equal([]);
    const [onA, onB] = [await migrationsOf('a'), await migrationsOf('b')];
    const added = (list: string[], other: string[]) => list.filter((name) => !other.includes(name));
    expect(added(onA, onB)).to.have.length(1);
    expect(added(onA, onB)[0]).to.match(/^\d{8}T\d{4}(\d{2})?_books_add_subtitle\.ts$/);
    expect(added(onB, onA)[0]).to.match(/^\d{8}T\d{4}(\d{2})?_books_add_edition\.ts$/);
  });

  it('each branch migrates its databases and stores rows with its field', async () => {
    await gitOk('checkout', '-q', 'a');
    await Promise.all(
      targets.a.map(async (target) => {
        await migrate(target);
        await insert(target, 'subtitle', [
          ['Dune', 'A novel'],
          ['Emma', 'Volume one'],
        ]);
      }),
    );
    await gitOk('checkout', '-q', 'b');
    await Promise.all(
      targets.b.map(async (target) => {
        await migrate(target);
        await insert(target, 'edition', [
          ['Ivanhoe', 2],
          ['Kim', 3],
        ]);
      }),
    );
  });

  it('merges with no conflict in any migration file or list; the declaration keeps both lines', async () => {
    await gitOk('checkout', '-q', 'main');
    await gitOk('merge', '-q', '--no-edit', 'a');
    const merged = await git('merge', '--no-edit', 'b');
    const conflicted = (await gitOk('diff', '--name-only', '--diff-filter=U')).split('\n').filter(Boolean);
    // The one place both branches wrote is the resource's field list, where each added its line at
    // its end: the only text a person reads to resolve (keep both). Nothing lists migrations.
    expect(
      conflicted.filter((path) => path !== ENTITY),
      merged.stdout,
    ).to.deep.equal([]);
    if (conflicted.includes(ENTITY)) {
      const text = readFileSync(copy.path(ENTITY), 'utf8');
      const kept = text.replace(/<<<<<<< [^\n]*\n([\s\S]*?)=======\n([\s\S]*?)>>>>>>> [^\n]*\n/g, '$1$2');
      expect(kept).to.match(/subtitle: field\.string\(1, 120\)\.optional\(\),/);
      expect(kept).to.match(/edition: field\.integer\(1, \d+\)\.optional\(\),/);
      writeFileSync(copy.path(ENTITY), kept);
      await gitOk('add', ENTITY);
      await gitOk('commit', '-q', '--no-edit');
    } else expectExit(merged, 0, 'git merge b');
    expect(await largeFilesChanged(base)).to.deep.equal([]);
    expect(await migrationsOf('HEAD')).to.include.members([...(await migrationsOf('a')), ...(await migrationsOf('b'))]);
    // What the migrations make is what the merged declaration says: nothing left to write.
    const nothing = await copy.npm('generate', ['migration']);
    expectExit(nothing, 0, 'generate migration after the merge');
    expect(nothing.stdout).to.include('nothing to do');
  });

  it('the merged service migrates a database that ran A, one that ran B and a fresh one, every row kept', async () => {
    const name = (path: string) => path.replace(/\.ts$/, '');
    const [fromA] = (await migrationsOf('a')).filter((file) => file.includes('_books_add_subtitle')).map(name);
    const [fromB] = (await migrationsOf('b')).filter((file) => file.includes('_books_add_edition')).map(name);
    const classOf = (migration: string | undefined) => migrationFileName(migration ?? '')?.className ?? '(none)';
    const check = async (target: Target) => {
      const fresh = targets.fresh.includes(target);
      const before = fresh ? [] : await rows(target);
      const applied = await migrate(target);
      // A database that ran A gets B's migration, one that ran B gets A's — one of the two sorts
      // before the migration that database applied already; a fresh one gets both.
      const expected = fresh ? [fromA, fromB] : targets.a.includes(target) ? [fromB] : [fromA];
      for (const migration of expected) expect(applied, target.url).to.include(classOf(migration));
      if (!fresh) expect(applied, target.url).to.match(/applied 1 migration/);
      expect(await rows(target), target.url).to.deep.equal(
        before.map((row) => ({ ...row, subtitle: row.subtitle ?? null, edition: row.edition ?? null })),
      );
    };
    await Promise.all([...targets.a, ...targets.b, ...targets.fresh].map(check));
  });

  it('serves the rows of a database that ran B with both fields, and takes both', async () => {
    const target = targets.b[0]!;
    const env = {
      SVC_DATABASE_URL: target.url,
      SVC_SERVER_PORT: '0',
      SVC_METRICS_PORT: '0',
      SVC_SERVER_HOST: '127.0.0.1',
      SVC_AUTH_BCRYPT_COST: '4',
      SVC_LOG_LEVEL: 'warn',
    };
    const email = 'admin-merge@example.com';
    await createAdmin(copy, email, env);
    const service = await startServer(copy, env);
    try {
      const api = new Api(service.url, await servedContract(service.url));
      const token = dataOf<{ access_token: string }>(
        await api.post('/api/v1/auth/login', { json: { email, password: PASSWORD } }),
      ).access_token;
      const made = await api.post('/api/v1/books', {
        token,
        json: { title: 'Lolita', subtitle: 'A confession', edition: 1 },
      });
      expect(made.status, made.text).to.equal(201);
      const listed = dataOf<Record<string, unknown>[]>(await api.get('/api/v1/books?sort=title&order=asc', { token }));
      expect(listed.map(({ title, subtitle, edition }) => [title, subtitle, edition])).to.deep.equal([
        ['Ivanhoe', null, 2],
        ['Kim', null, 3],
        ['Lolita', 'A confession', 1],
      ]);
    } finally {
      expect(await service.stop()).to.equal(0);
    }
  });
});
