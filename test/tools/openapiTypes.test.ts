import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runCommand } from '../support/process.js';

const COMMITTED = join(process.cwd(), 'test', 'support', 'openapi', 'portico.d.ts');

/** The first line where two texts differ, to say where the committed types went stale. */
function firstDifference(expected: string, actual: string): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    if (a[i] !== b[i])
      return `line ${i + 1}:\n  generated: ${a[i] ?? '(end of file)'}\n  committed: ${b[i] ?? '(end of file)'}`;
  }
  return 'none';
}

describe('npm run openapi:types (the typed client of the API document)', function () {
  this.timeout(90_000);
  let dir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'portico-openapi-types-test-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('writes exactly the committed test/support/openapi/portico.d.ts (the types cannot drift from the document)', async () => {
    const output = join(dir, 'portico.d.ts');
    // A setting of the shell must not change the types: every route is in them whatever SVC_API_MODE says.
    const args = ['run', '--silent', 'openapi:types', '--', output];
    const { code, stdout, stderr } = await runCommand(process.cwd(), 'npm', args, { SVC_API_MODE: 'graphql' }, 80_000);
    expect(code, `${stdout}\n${stderr}`).to.equal(0);
    const generated = readFileSync(output, 'utf8');
    expect(generated).to.match(/export interface paths \{/);
    expect(generated).to.include("'/api/v1/products/{id}': {");
    const committed = readFileSync(COMMITTED, 'utf8');
    if (generated !== committed) {
      expect.fail(
        `test/support/openapi/portico.d.ts is not what the API document generates: run \`npm run openapi:types\` and commit it.\n` +
          `First difference at ${firstDifference(generated, committed)}`,
      );
    }
  });
});
