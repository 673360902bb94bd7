import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'chai';

/** What is built from the service (the typed client's declarations, an API document), by its path or text. */
function builtFromTheService(path: string, text: string): string | undefined {
  if (path.endsWith('.d.ts')) return 'type declarations (the typed client is built by npm run openapi:types)';
  if (/\.(json|ya?ml)$/.test(path) && /^\s*\{?\s*["']?openapi["']?\s*:\s*["']?3\./.test(text))
    return 'an API document (served at /openapi.json, printed by npm run cli -- openapi)';
  return undefined;
}

describe('no file built from the service is committed', () => {
  it('git tracks no typed-client declarations or API document', function () {
    // The generator's scratch copies are no checkout: there, git has nothing to say.
    if (!existsSync('.git')) return this.skip();
    const tracked = execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8' })
      .split('\0')
      .filter((path) => path !== '' && existsSync(path));
    const built = tracked.flatMap((path) => {
      const why = builtFromTheService(path, readFileSync(path, 'utf8').slice(0, 200));
      return why ? [`${path}: ${why}`] : [];
    });
    expect(built).to.deep.equal([]);
  });

  it('tells such files from the others', () => {
    expect(builtFromTheService('test/support/openapi/portico.d.ts', 'export interface paths {')).to.match(
      /typed client/,
    );
    expect(builtFromTheService('docs/openapi.json', '{\n  "openapi": "3.1.0",')).to.match(/API document/);
    expect(builtFromTheService('openapi.yaml', 'openapi: 3.1.0\ninfo:')).to.match(/API document/);
    expect(builtFromTheService('redocly.yaml', 'apis:\n  main:')).to.equal(undefined);
    expect(builtFromTheService('src/main/server.ts', 'import')).to.equal(undefined);
  });
});
