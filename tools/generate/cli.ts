import { fileURLToPath } from 'node:url';
import { formatChangeSet } from './format.js';
import { render } from './render.js';
import { run } from './run.js';

/** `npm run generate -- …`: the project is the one this file belongs to. */
const root = fileURLToPath(new URL('../..', import.meta.url)).replace(/[/\\]$/, '');

process.exitCode = await run(process.argv.slice(2), {
  root,
  render,
  format: (changes) => formatChangeSet(root, changes),
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});
