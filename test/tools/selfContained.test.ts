import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';

/**
 * The repository is self-contained (README: documentation): a user who clones it has no design
 * documents beside it, so nothing tracked cites them — what a client or an operator relies on is
 * written in README.md, docs/ and the API document, and comments cite those.
 */
describe('the repository cites only what it carries', () => {
  it('no tracked file links to ../shared or cites the design contract by section', () => {
    const files = execFileSync('git', ['ls-files'], { encoding: 'utf8' })
      .split('\n')
      .filter((file) => /\.(ts|mts|mjs|cjs|js|md|ya?ml|json|sh)$/.test(file) && !file.endsWith('package-lock.json'));
    const offending: string[] = [];
    for (const file of files) {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        continue; // listed but not in the work tree (deleted, not yet committed)
      }
      text.split('\n').forEach((line, i) => {
        if (
          /CONTRACT\s*(§|section)|\.\.\/shared\/(CONTRACT|SEED-SPEC|ARCHITECTURE)|SEED-SPEC\.md|ARCHITECTURE\.md/.test(
            line,
          )
        )
          offending.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(offending, offending.join('\n')).to.deep.equal([]);
  });
});
