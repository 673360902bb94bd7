import { spawn, type ChildProcess } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ResourceModel } from '../../../tools/generate/model.js';
import type { ProjectState } from '../../../tools/generate/project.js';
import { render } from '../../../tools/generate/render.js';
import { connectDatabase } from '../../support/database.js';
import { childEnv, runCommand, type Finished } from '../../support/process.js';

export type { Finished };

/** Runs `command args` in `cwd` to its end (killed after `timeoutMs`). */
export function run(
  cwd: string,
  command: string,
  args: readonly string[],
  env: Record<string, string> = {},
  timeoutMs = 300_000,
): Promise<Finished> {
  return runCommand(cwd, command, args, env, timeoutMs);
}

/** A copy of the project's tracked files in a temporary folder, its node_modules a link to the project's. */
export class ScratchCopy {
  private constructor(
    readonly source: string,
    readonly root: string,
  ) {}

  /** Copies every file `git ls-files` tracks (as it is in the work tree) and links node_modules. */
  static async of(source: string): Promise<ScratchCopy> {
    const listed = await run(source, 'git', ['ls-files', '-z']);
    if (listed.code !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
    const root = mkdtempSync(join(tmpdir(), 'portico-scratch-'));
    for (const path of listed.stdout.split('\0').filter((p) => p !== '')) {
      if (!existsSync(join(source, path))) continue;
      mkdirSync(dirname(join(root, path)), { recursive: true });
      copyFileSync(join(source, path), join(root, path));
    }
    symlinkSync(realpathSync(join(source, 'node_modules')), join(root, 'node_modules'), 'dir');
    return new ScratchCopy(source, root);
  }

  path(relative: string): string {
    return join(this.root, relative);
  }
  read(relative: string): string {
    return readFileSync(this.path(relative), 'utf8');
  }
  /** The file as it is in the repository the copy was made from. */
  readSource(relative: string): string {
    return readFileSync(join(this.source, relative), 'utf8');
  }
  write(relative: string, contents: string): void {
    writeFileSync(this.path(relative), contents);
  }
  exists(relative: string): boolean {
    return existsSync(this.path(relative));
  }
  remove(relative: string): void {
    unlinkSync(this.path(relative));
  }

  /** `npm run -s <script> -- <args>` in the copy. */
  npm(
    script: string,
    args: readonly string[] = [],
    env: Record<string, string> = {},
    timeoutMs?: number,
  ): Promise<Finished> {
    return run(this.root, 'npm', ['run', '-s', script, ...(args.length > 0 ? ['--', ...args] : [])], env, timeoutMs);
  }

  /** `node --import tsx <entry> <args>` in the copy, as `npm run cli` and the server run. */
  node(
    entry: string,
    args: readonly string[],
    env: Record<string, string> = {},
    timeoutMs?: number,
  ): Promise<Finished> {
    return run(this.root, process.execPath, ['--import', 'tsx', entry, ...args], env, timeoutMs);
  }

  dispose(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** The lines of `generate`'s answer that start with `verb` (`created`, `changed`, `would create`, `would change`), as paths. */
export function pathsIn(output: string, verb: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith(`${verb} `))
    .map((line) => line.slice(verb.length + 1).trim())
    .sort();
}

/**
 * The files the product model renders into a project without products: what removing products
 * deletes and regenerating them must give back (their entity, their migration, their test file).
 * `project` holds the texts of the files it edits (render reads them; only the new files count here).
 */
export function productSlice(model: ResourceModel, project: ProjectState): string[] {
  return render(model, project)
    .create.map((f) => f.path)
    .sort();
}

export const MODULE_LIST = 'src/main/modules/index.ts';
export const POLICY = 'policy/policy.csv';

/** The module list without products: the import of their entity, and their `resourceModule(Product)` entry. */
export function withoutProductsModule(text: string): string {
  const out = text
    .split('\n')
    .filter((line) => !/^import \{ Product \} from '[^']+';$/.test(line))
    .join('\n')
    .replace(/,\s*resourceModule\(Product\)|\n\s*resourceModule\(Product\),/, '');
  if (out === text || /\bProduct\b/.test(out.replace(/\/\*\*[\s\S]*?\*\//g, '')))
    throw new Error(`cannot take products out of the module list:\n${text}`);
  return out;
}

/** policy.csv without the four product rules (user GET and moderator all, on the collection and item paths). */
export function withoutProductRules(text: string): { text: string; removed: string[] } {
  const lines = text.split('\n');
  const isProductRule = (line: string) => /^p,\s*(user|moderator),\s*\/api\/v1\/products(\/\{id\})?,/.test(line);
  const removed = lines.filter(isProductRule);
  if (removed.length !== 4) throw new Error(`expected the four product rules in policy.csv, found ${removed.length}`);
  return { text: lines.filter((line) => !isProductRule(line)).join('\n'), removed };
}

/** The rules of a policy.csv, as a sorted list of whitespace-normalised lines (order aside). */
export const rulesOf = (text: string): string[] =>
  text
    .split('\n')
    .map((line) => line.trim().replace(/\s*,\s*/g, ', '))
    .filter((line) => line !== '')
    .sort();

/** A service started in the copy; stopped with SIGTERM. */
export interface ScratchService {
  readonly url: string;
  readonly child: ChildProcess;
  output(): string;
  stop(): Promise<number | null>;
}

/** Starts `src/main/server.ts` in the copy with `env`, and answers once it says where it listens. */
export function startServer(
  copy: ScratchCopy,
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<ScratchService> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main/server.ts'], {
      cwd: copy.root,
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the copy's server was not ready in ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const onClose = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`the copy's server exited with ${code} before it was ready:\n${out}`));
    };
    child.on('close', onClose);
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /Portico listening on (http:\/\/[^\s]+) /.exec(out);
      if (!match) return;
      clearTimeout(timer);
      child.off('close', onClose);
      resolve({
        url: match[1]!,
        child,
        output: () => out,
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done(child.exitCode);
            child.once('exit', (code) => done(code));
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/**
 * A PostgreSQL database of its own for the copy's tests (they migrate the new resources' tables
 * into it), made beside the test database and dropped after.
 */
export class ScratchPostgres {
  private constructor(
    private readonly admin: string,
    readonly name: string,
    readonly url: string,
  ) {}

  static async create(testUrl: string): Promise<ScratchPostgres> {
    const name = `portico_scratch_${process.pid}_${Date.now().toString(36)}`;
    await ScratchPostgres.execute(testUrl, `create database ${name}`);
    const url = new URL(testUrl);
    url.pathname = `/${name}`;
    return new ScratchPostgres(testUrl, name, url.toString());
  }

  async drop(): Promise<void> {
    await ScratchPostgres.execute(this.admin, `drop database if exists ${this.name} with (force)`);
  }

  /** One statement outside any transaction (CREATE and DROP DATABASE cannot run in one). */
  private static async execute(url: string, sql: string): Promise<void> {
    const database = await connectDatabase(url, { queryTimeoutMs: 30_000 });
    try {
      await database.orm.em.getConnection().execute(sql);
    } finally {
      await database.close();
    }
  }
}

/** The password of the accounts a scratch copy's tests make. */
export const PASSWORD = 'correct horse battery';

/** Makes an admin `email` (password {@link PASSWORD}) in the copy's database through its CLI, as a user would. */
export async function createAdmin(copy: ScratchCopy, email: string, env: Record<string, string>): Promise<void> {
  const created = await copy.node(
    'src/main/cli.ts',
    [
      'users:create',
      '--email',
      email,
      '--password',
      PASSWORD,
      '--first-name',
      'Ada',
      '--last-name',
      'Admin',
      '--role',
      'admin',
    ],
    env,
    120_000,
  );
  if (created.code !== 0) throw new Error(`users:create exited ${String(created.code)}: ${created.stderr}`);
}
