import { randomBytes } from 'node:crypto';
import * as nodeFs from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, sep } from 'node:path';

/** One file and its whole new contents; `path` is relative to the project root, with `/`. */
export interface FileContents {
  path: string;
  contents: string;
}

/** What a generation writes: new files, and existing files with their new contents. */
export interface ChangeSet {
  create: FileContents[];
  modify: FileContents[];
}

/** The file operations the writer uses; tests pass a wrapper that fails on purpose. */
export interface WriterFs {
  stat(path: string): Promise<{ isFile(): boolean; mode: number }>;
  readFile(path: string, encoding: 'utf8'): Promise<string>;
  writeFile(path: string, contents: string, options: { encoding: 'utf8'; flag: 'wx'; mode?: number }): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  mkdir(path: string): Promise<unknown>;
  rmdir(path: string): Promise<void>;
}

export const realFs: WriterFs = {
  stat: (path) => nodeFs.stat(path),
  readFile: (path, encoding) => nodeFs.readFile(path, encoding),
  writeFile: (path, contents, options) => nodeFs.writeFile(path, contents, options),
  rename: (from, to) => nodeFs.rename(from, to),
  unlink: (path) => nodeFs.unlink(path),
  mkdir: (path) => nodeFs.mkdir(path),
  rmdir: (path) => nodeFs.rmdir(path),
};

export type WriteResult = { ok: true } | { ok: false; problems: string[] };

/** Writing failed half-way; everything written so far was undone (`leftovers` lists what could not be). */
export class WriteFailedError extends Error {
  constructor(
    readonly path: string,
    cause: unknown,
    readonly leftovers: string[],
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      leftovers.length === 0
        ? `writing ${path} failed (${reason}); nothing was changed`
        : `writing ${path} failed (${reason}); could not undo: ${leftovers.join(', ')}`,
      { cause },
    );
  }
}

const exists = async (fs: WriterFs, path: string): Promise<boolean> =>
  fs.stat(path).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return false;
      throw error;
    },
  );

/** A relative path that stays inside the root. */
const insideRoot = (path: string): boolean =>
  path !== '' && !isAbsolute(path) && !normalize(path).split(sep).includes('..') && normalize(path) !== '.';

/**
 * Why the change set cannot be written into `root`, one line per problem; empty when it can: a file to
 * create must not exist, a file to change must, and no path may appear twice or leave the root.
 */
export async function checkChangeSet(root: string, changes: ChangeSet, fs: WriterFs = realFs): Promise<string[]> {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [kind, files] of [
    ['create', changes.create],
    ['change', changes.modify],
  ] as const) {
    for (const { path } of files) {
      if (!insideRoot(path)) {
        problems.push(`${path}: not a path inside the project`);
        continue;
      }
      if (seen.has(normalize(path))) problems.push(`${path}: written twice by the generator`);
      seen.add(normalize(path));
      const present = await exists(fs, join(root, path));
      if (kind === 'create' && present) problems.push(`${path}: already exists (nothing was written)`);
      if (kind === 'change' && !present)
        problems.push(`${path}: does not exist, so it cannot be changed (nothing was written)`);
      if (kind === 'change' && present && !(await fs.stat(join(root, path))).isFile())
        problems.push(`${path}: not a file`);
    }
  }
  return problems;
}

/** The folders from `dir` up that do not exist yet, outermost first. */
async function missingDirectories(fs: WriterFs, root: string, dir: string): Promise<string[]> {
  const missing: string[] = [];
  for (let current = dir; current !== root && current !== dirname(current); current = dirname(current)) {
    if (await exists(fs, current)) break;
    missing.unshift(current);
  }
  return missing;
}

/**
 * Writes the change set into `root`, all or nothing. Refuses (writing nothing) what {@link checkChangeSet}
 * finds; otherwise writes every file to a temporary file beside its target, then renames them into place.
 * If anything fails, the files created are removed, the files changed get their old contents back (held in
 * memory) and the folders made are removed, then {@link WriteFailedError} is thrown.
 */
export async function writeChangeSet(root: string, changes: ChangeSet, fs: WriterFs = realFs): Promise<WriteResult> {
  const problems = await checkChangeSet(root, changes, fs);
  if (problems.length > 0) return { ok: false, problems };

  const originals = new Map<string, { contents: string; mode: number }>();
  for (const { path } of changes.modify) {
    const target = join(root, path);
    originals.set(target, { contents: await fs.readFile(target, 'utf8'), mode: (await fs.stat(target)).mode });
  }
  const madeDirectories: string[] = [];
  const staged: { temp: string; target: string }[] = [];
  const placed: string[] = [];
  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  let current = '';
  try {
    for (const { path, contents } of [...changes.create, ...changes.modify]) {
      current = path;
      const target = join(root, path);
      for (const dir of await missingDirectories(fs, root, dirname(target))) {
        await fs.mkdir(dir);
        madeDirectories.push(dir);
      }
      const temp = `${target}.${tag}.generate-tmp`;
      const mode = originals.get(target)?.mode;
      await fs.writeFile(temp, contents, {
        encoding: 'utf8',
        flag: 'wx',
        ...(mode === undefined ? {} : { mode: mode & 0o777 }),
      });
      staged.push({ temp, target });
    }
    for (const { temp, target } of staged) {
      current = target.slice(root.length + 1);
      await fs.rename(temp, target);
      placed.push(target);
    }
    return { ok: true };
  } catch (error) {
    throw new WriteFailedError(current, error, await rollBack(fs, { staged, placed, originals, madeDirectories }));
  }
}

interface Progress {
  staged: { temp: string; target: string }[];
  placed: string[];
  originals: Map<string, { contents: string; mode: number }>;
  madeDirectories: string[];
}

/** Undoes a write that failed half-way; answers what could not be undone. */
async function rollBack(fs: WriterFs, progress: Progress): Promise<string[]> {
  const leftovers: string[] = [];
  const attempt = async (what: string, action: () => Promise<unknown>) => {
    try {
      await action();
    } catch {
      leftovers.push(what);
    }
  };
  for (const { temp, target } of progress.staged) {
    if (!progress.placed.includes(target)) await attempt(temp, () => fs.unlink(temp));
  }
  for (const target of progress.placed.reverse()) {
    const original = progress.originals.get(target);
    if (original === undefined) await attempt(target, () => fs.unlink(target));
    else {
      const temp = `${target}.restore-tmp`;
      await attempt(target, async () => {
        await fs.writeFile(temp, original.contents, { encoding: 'utf8', flag: 'wx', mode: original.mode & 0o777 });
        await fs.rename(temp, target);
      });
    }
  }
  for (const dir of progress.madeDirectories.reverse()) await attempt(dir, () => fs.rmdir(dir));
  return leftovers;
}
