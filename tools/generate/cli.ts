import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatChangeSet } from './format.js';
import { render } from './render.js';
import { run } from './run.js';

/** `npm run generate -- …`: the project is the one this file belongs to. */
const root = fileURLToPath(new URL('../..', import.meta.url)).replace(/[/\\]$/, '');

/** The typed client's types, written from the API document (`npm run openapi:types`); a test keeps them equal to it. */
const TYPES = 'test/support/openapi/portico.d.ts';

/** Rewrites the typed client's types from the document of the project as it now is; answers them if they changed. */
async function refreshTypes(): Promise<string[]> {
  const read = () => {
    try {
      return readFileSync(join(root, TYPES), 'utf8');
    } catch {
      return undefined;
    }
  };
  const before = read();
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'tools/openapi-types.ts'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    process.stderr.write(
      `generate: written, but ${TYPES} could not be brought up to date (run npm run openapi:types once the project builds):\n${result.stderr}\n`,
    );
    return [];
  }
  return read() === before ? [] : [TYPES];
}

process.exitCode = await run(process.argv.slice(2), {
  root,
  render,
  format: (changes) => formatChangeSet(root, changes),
  afterWrite: refreshTypes,
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});
