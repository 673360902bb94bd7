// `npm run openapi:types [-- <output>]`: the TypeScript types of the API document, for a typed client
// (openapi-fetch). It prints the document with `npm run cli -- openapi` — every route in it (api.mode
// both, docs on), whatever this shell's SVC_ settings — and runs openapi-typescript on it. The output
// defaults to test/support/openapi/portico.d.ts, which the typed end-to-end test uses: a built file, not
// committed, written again before every type check (`pretypecheck`), so it is always the document's.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TYPES_FILE = join(ROOT, 'test', 'support', 'openapi', 'portico.d.ts');
/** The configuration the types are made for: every REST route served and documented. */
const EVERY_ROUTE = { SVC_API_MODE: 'both', SVC_DOCS_ENABLED: 'true' };

/** This environment less its SVC_ settings, plus `extra`. */
function environment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SVC_')));
  return { ...env, ...extra };
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): string {
  const result = spawnSync(command, args, { cwd: ROOT, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw result.error;
  if (result.status !== 0)
    throw new Error(`${[command, ...args].join(' ')} exited with ${result.status}:\n${result.stderr}`);
  return result.stdout;
}

function main(output: string): void {
  const cli = join(ROOT, 'src', 'main', 'cli.ts');
  const document = run(process.execPath, ['--import', 'tsx', cli, 'openapi'], environment(EVERY_ROUTE));
  JSON.parse(document); // a document, not a message
  const dir = mkdtempSync(join(tmpdir(), 'portico-openapi-types-'));
  try {
    const input = join(dir, 'openapi.json');
    writeFileSync(input, document);
    const generator = join(ROOT, 'node_modules', '.bin', 'openapi-typescript');
    const quiet = { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
    mkdirSync(dirname(output), { recursive: true });
    run(generator, [input, '--output', output], environment(quiet));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(`wrote ${output}\n`);
}

const args = process.argv.slice(2);
if (args.length > 1) {
  process.stderr.write('usage: npm run openapi:types [-- <output file>]\n');
  process.exit(2);
}
// npm runs scripts in the package's root; a relative path is the caller's.
main(args[0] === undefined ? TYPES_FILE : resolve(process.env.INIT_CWD ?? process.cwd(), args[0]));
