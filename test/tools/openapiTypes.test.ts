import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runCommand } from '../support/process.js';

describe('npm run openapi:types (the typed client of the API document, built before the type check)', function () {
  this.timeout(90_000);
  let dir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'portico-openapi-types-test-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('types every path of the API document, whatever SVC_API_MODE says', async () => {
    const output = join(dir, 'nested', 'portico.d.ts');
    // A setting of the shell must not change the types: every route is in them whatever SVC_API_MODE says.
    const shell = { SVC_API_MODE: 'graphql' };
    const built = await runCommand(
      process.cwd(),
      'npm',
      ['run', '--silent', 'openapi:types', '--', output],
      shell,
      80_000,
    );
    expect(built.code, `${built.stdout}\n${built.stderr}`).to.equal(0);
    const cli = ['run', '--silent', 'cli', '--', 'openapi'];
    const printed = await runCommand(process.cwd(), 'npm', cli, { SVC_API_MODE: 'both' }, 60_000);
    expect(printed.code, printed.stderr).to.equal(0);
    const document = JSON.parse(printed.stdout) as { paths: Record<string, unknown> };
    const types = readFileSync(output, 'utf8');
    expect(types).to.match(/export interface paths \{/);
    const typed = [...types.matchAll(/^ {4}"?'?(\/[^'"]*)'?"?: \{$/gm)].map((match) => match[1]);
    expect(typed.sort()).to.deep.equal(Object.keys(document.paths).sort());
  });

  it('is not in git: the type check builds it (pretypecheck), so it cannot drift from the document', () => {
    // Read from .gitignore rather than asked of git: the generator's tests run this in a copy that is no checkout.
    const ignored = readFileSync('.gitignore', 'utf8')
      .split('\n')
      .map((line) => line.trim());
    expect(ignored, '.gitignore lists the built types').to.include('test/support/openapi/portico.d.ts');
    const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.pretypecheck).to.equal('npm run --silent openapi:types');
  });
});
