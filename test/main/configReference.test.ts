import { readdirSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import { configurationReference, configurationTable, referenceGaps } from '../../src/main/config/reference.js';
import { envName } from '../../src/main/config/loadConfig.js';
import { KEYS } from '../../src/main/config/schema.js';
import { runEntry } from '../support/process.js';

describe('the configuration reference, generated from the schema (docs/configuration.md)', () => {
  it('gives every key of the schema a meaning, and no meaning to a key the schema does not have', () => {
    expect(referenceGaps()).to.deep.equal({ undescribed: [], unknown: [] });
  });

  it('lists every key with its SVC_ variable, type and default', () => {
    const table = configurationTable();
    for (const [key, spec] of Object.entries(KEYS)) {
      const row = table.split('\n').find((line) => line.startsWith(`| \`${key}\` |`));
      expect(row, key).to.be.a('string');
      expect(row).to.include(`\`SVC_${key.toUpperCase().replace(/\./g, '_')}\``);
      expect(row).to.include(spec.codec.name.replace(/\|/g, '\\|'));
    }
    expect(table).to.include(
      '| `database.prepared_statements` | `SVC_DATABASE_PREPARED_STATEMENTS` | a boolean | `true` |',
    );
    expect(table).to.include('| `health.http` | `SVC_HEALTH_HTTP` |');
  });

  it('is what docs/configuration.md holds (run `npm run cli -- config:docs > docs/configuration.md` after changing the schema)', () => {
    expect(readFileSync('docs/configuration.md', 'utf8')).to.equal(configurationReference());
  });

  it('is the one table: the README and the guide in docs/ link to it, keep no copy, and name only real settings', () => {
    const readme = readFileSync('README.md', 'utf8');
    expect(readme, 'the README links to the reference').to.include('(docs/configuration.md)');
    const known = new Set([...Object.keys(KEYS), 'health.http'].map(envName).concat(['SVC_ENV', 'SVC_CONFIG']));
    const guides = ['README.md', ...readdirSync('docs').map((file) => `docs/${file}`)].filter(
      (file) => file.endsWith('.md') && file !== 'docs/configuration.md',
    );
    for (const file of guides) {
      const text = readFileSync(file, 'utf8');
      expect(text, `${file}: a copy of the generated table`).to.not.match(
        /config-reference:start|\| key \| environment \|/,
      );
      const unknown = [...new Set(text.match(/\bSVC_[A-Z0-9_]*[A-Z0-9]\b/g) ?? [])].filter(
        (name) => !known.has(name) && !name.startsWith('SVC_TEST_'),
      );
      expect(unknown, `${file}: SVC_ variables that are no configuration key`).to.deep.equal([]);
    }
  });

  it('is what `npm run cli -- config:docs` prints', async function () {
    this.timeout(30_000);
    const printed = await runEntry('src/main/cli.ts', ['config:docs'], {});
    expect(printed.code, printed.stderr).to.equal(0);
    expect(printed.stdout).to.equal(configurationReference());
  });
});
