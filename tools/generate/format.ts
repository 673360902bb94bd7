import { format, resolveConfig } from 'prettier';
import { join } from 'node:path';
import type { ChangeSet, FileContents } from './writer.js';

/**
 * Formats generated text with the repository's own Prettier settings, as `npm run format` would,
 * so what the generator writes passes `npm run lint` untouched.
 */
export async function formatFile(root: string, file: FileContents): Promise<FileContents> {
  const filepath = join(root, file.path);
  const options = await resolveConfig(filepath);
  if (options === null) return file;
  const contents = await format(file.contents, { ...options, filepath });
  return { path: file.path, contents };
}

/** Every file of a change set formatted; files Prettier has no parser for (a `.csv`) are left as they are. */
export async function formatChangeSet(root: string, changes: ChangeSet): Promise<ChangeSet> {
  const one = async (file: FileContents): Promise<FileContents> =>
    /\.(ts|js|json|graphql|ya?ml|md)$/.test(file.path) ? formatFile(root, file) : file;
  return {
    create: await Promise.all(changes.create.map(one)),
    modify: await Promise.all(changes.modify.map(one)),
  };
}
