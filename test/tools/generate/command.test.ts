import { expect } from 'chai';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCommandRequest } from '../../../tools/generate/command.js';
import { formatChangeSet } from '../../../tools/generate/format.js';
import { parseCommand } from '../../../tools/generate/parse.js';
import { readProjectState } from '../../../tools/generate/project.js';
import { render } from '../../../tools/generate/render.js';
import { run } from '../../../tools/generate/run.js';
import { CUSTOMER_ARGS } from './models.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url)).replace(/\/$/, '');

describe('generate command: its arguments', () => {
  it('reads the resource, the verb, --field, --from (states split on |), --to, --staff-only and --dry-run', () => {
    expect(
      parseCommandRequest([
        'command',
        'book_order',
        'ship',
        '--field',
        'status',
        '--from=paid|packed',
        '--to',
        'shipped',
      ]),
    ).to.deep.equal({
      value: {
        resource: 'book_order',
        verb: 'ship',
        field: 'status',
        from: ['paid', 'packed'],
        to: 'shipped',
        staffOnly: false,
        dryRun: false,
      },
    });
    const staff = parseCommandRequest([
      'command',
      'a',
      'b',
      '--field',
      'f',
      '--from',
      'x',
      '--to',
      'y',
      '--staff-only',
    ]);
    expect(staff).to.have.nested.property('value.staffOnly', true);
  });

  it('names every missing or unknown argument, one line each', () => {
    expect(parseCommandRequest(['command', 'book_order', '--field', 'status', '--to', '--bogus'])).to.deep.equal({
      problems: [
        '--to needs a value (command <resource> <verb> --field <enum field> --from <state>[|<state>...] --to <state> [--staff-only])',
        'unknown option "--bogus" (the options are --field, --from, --to, --staff-only, --dry-run, --help)',
        'missing the resource or the verb: command <resource> <verb> --field <enum field> --from <state>[|<state>...] --to <state> [--staff-only]',
        '--from is missing (command <resource> <verb> --field <enum field> --from <state>[|<state>...] --to <state> [--staff-only])',
      ],
    });
  });
});

describe('generate command: what it writes', function () {
  this.timeout(60_000);
  let root: string;
  let out = '';
  let err = '';
  const generate = (argv: string[]) => {
    out = '';
    err = '';
    return run(argv, {
      root,
      render,
      format: (changes) => formatChangeSet(root, changes),
      out: (text) => (out += text),
      err: (text) => (err += text),
    });
  };
  const read = (path: string) => readFileSync(join(root, path), 'utf8');
  const tracked = ['src/domain/customer/Customer.ts', 'policy/policy.csv', 'src/main/modules/index.ts'];

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'portico-command-'));
    for (const path of ['src', 'policy', 'package.json', '.prettierrc.json'])
      cpSync(join(ROOT, path), join(root, path), { recursive: true });
    symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(root, 'node_modules'));
    const project = readProjectState(root);
    const parsed = parseCommand(['resource', ...CUSTOMER_ARGS], project);
    if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
    const changes = await formatChangeSet(root, render(parsed.model, project));
    for (const file of [...changes.create, ...changes.modify]) {
      mkdirSync(dirname(join(root, file.path)), { recursive: true });
      writeFileSync(join(root, file.path), file.contents);
    }
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('refuses, exit 2, one line a problem and nothing written: unknown resource, a field not an enum, a state not listed, a bad verb', async () => {
    const before = tracked.map(read);
    const cases: [string[], string[]][] = [
      [
        ['command', 'order', 'ship', '--field', 'tier', '--from', 'free', '--to', 'pro'],
        ['there is no order resource'],
      ],
      [
        ['command', 'customer', 'upgrade', '--field', 'name', '--from', 'free', '--to', 'pro'],
        ['--field name: not an enum field of customer'],
      ],
      [
        ['command', 'customer', 'upgrade', '--field', 'tier', '--from', 'free|gold', '--to', 'pro'],
        ['tier has no state gold (it lists free, pro)'],
      ],
      [
        ['command', 'customer', 'Upgrade', '--field', 'tier', '--from', 'free', '--to', 'pro'],
        ['verb "Upgrade": not lower snake case'],
      ],
      [
        ['command', 'customer', 'update', '--field', 'tier', '--from', 'free', '--to', 'pro'],
        ['verb "update": reserved'],
      ],
      [
        ['command', 'customer', 'class', '--field', 'tier', '--from', 'free', '--to', 'pro'],
        ['verb "class": a reserved word in JavaScript'],
      ],
      [
        ['command', 'customer', 'email', '--field', 'tier', '--from', 'free', '--to', 'pro'],
        ['verb "email": customer has a field of this name'],
      ],
    ];
    for (const [argv, expected] of cases) {
      expect(await generate(argv), argv.join(' ')).to.equal(2);
      const lines = err.trimEnd().split('\n');
      expect(lines, err).to.have.length(expected.length);
      expected.forEach((text, i) =>
        expect(lines[i])
          .to.include(text)
          .and.match(/^generate: /),
      );
    }
    expect(tracked.map(read)).to.deep.equal(before);
  });

  it('declares the command, writes its method in the entity class, its rule in policy.csv and a migration granting it', async () => {
    expect(
      await generate(['command', 'customer', 'upgrade', '--field', 'tier', '--from', 'free', '--to', 'pro']),
      err,
    ).to.equal(0);
    const entity = read('src/domain/customer/Customer.ts');
    expect(entity).to.include(`  commands: {
    upgrade: { field: 'tier', from: ['free'], to: 'pro' },
  },
});`);
    expect(entity).to.include(`export class Customer extends entityOf(CUSTOMER) {
  /**
   * The upgrade command (POST /api/v1/customers/{id}/upgrade): moves \`tier\` from free to pro.
   * More behaviour of the command goes here (docs/extending.md).
   */
  upgrade(now: Date): Customer {
    this.requireState('upgrade');
    return this.apply({ tier: 'pro' }, now);
  }
}
`);
    expect(read('policy/policy.csv')).to.include('p, moderator, /api/v1/customers/{id}/upgrade, POST\n');
    expect(read('policy/policy.csv')).not.to.include('p, user, /api/v1/customers/{id}/upgrade');
    const file =
      /created (src\/adapters\/outbound\/mikroorm\/migrations\/(\d{8}T\d{4,6})_customers_upgrade_command\.ts)/.exec(
        out,
      );
    expect(file, out).to.not.equal(null);
    const name = `Migration${file![2]}CustomersUpgradeCommand`;
    const migration = read(file![1]!);
    expect(migration).to.include(
      `const ACCESS: AccessChange = { grant: [{ role: 'moderator', path: '/api/v1/customers/{id}/upgrade', action: 'POST' }] };`,
    );
    expect(migration).to.include(`export class ${name} extends tableChangeMigration(CHANGE, ACCESS) {}`);
  });

  it('--dry-run lists the files and writes nothing', async () => {
    const before = tracked.map(read);
    expect(
      await generate([
        'command',
        'customer',
        'downgrade',
        '--field',
        'tier',
        '--from',
        'pro',
        '--to',
        'free',
        '--dry-run',
      ]),
      err,
    ).to.equal(0);
    const file =
      /would create (src\/adapters\/outbound\/mikroorm\/migrations\/\d{8}T\d{4,6}_customers_downgrade_command\.ts)/.exec(
        out,
      );
    expect(file, out).to.not.equal(null);
    expect(existsSync(join(root, file![1]!))).to.equal(false);
    expect(tracked.map(read)).to.deep.equal(before);
  });
});
