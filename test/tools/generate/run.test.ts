import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResourceModel } from '../../../tools/generate/model.js';
import { projectState } from '../../../tools/generate/project.js';
import { run } from '../../../tools/generate/run.js';
import type { ChangeSet } from '../../../tools/generate/writer.js';
import { runEntry } from '../../support/process.js';

/** A stand-in for the templates: one new file naming the resource, and a line appended to the policy. */
function testRender(model: ResourceModel): ChangeSet {
  return {
    create: [
      {
        path: `src/domain/${model.names.snake}/${model.names.pascal}.ts`,
        contents: `// ${model.fields.map((f) => f.name).join(' ')}\n`,
      },
    ],
    modify: [{ path: 'policy/policy.csv', contents: `p, user, /api/v1/${model.names.pluralKebab}, GET\n` }],
  };
}

describe('generate: the command', () => {
  let root: string;
  let out: string;
  let err: string;
  const generate = (argv: string[]) =>
    run(argv, {
      root,
      render: testRender,
      readProject: () => projectState(['product', 'user'], '20261127T0512'),
      out: (text) => (out += text),
      err: (text) => (err += text),
    });

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'portico-generate-'));
    mkdirSync(join(root, 'policy'));
    writeFileSync(join(root, 'policy/policy.csv'), 'p, admin, /api/v1/*, .*\n');
    out = '';
    err = '';
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('writes what the templates render and lists it', async () => {
    expect(await generate(['resource', 'purchase_order', 'title:string', 'total:number(>0)'])).to.equal(0);
    expect(readFileSync(join(root, 'src/domain/purchase_order/PurchaseOrder.ts'), 'utf8')).to.equal('// title total\n');
    expect(readFileSync(join(root, 'policy/policy.csv'), 'utf8')).to.equal('p, user, /api/v1/purchase-orders, GET\n');
    expect(out).to.equal(
      [
        'created src/domain/purchase_order/PurchaseOrder.ts',
        'changed policy/policy.csv',
        'next: npm test runs its tests (test/resources/purchaseOrders.test.ts); npm start applies its migration',
        'behaviour of its own (a state rule, a command) goes in class PurchaseOrder, src/domain/purchase_order/PurchaseOrder.ts',
        '',
      ].join('\n'),
    );
    expect(err).to.equal('');
  });

  it('--dry-run lists what it would create and change, and writes nothing', async () => {
    expect(await generate(['resource', 'invoice', 'title:string', '--dry-run'])).to.equal(0);
    expect(out).to.equal('would create src/domain/invoice/Invoice.ts\nwould change policy/policy.csv\n');
    expect(existsSync(join(root, 'src'))).to.equal(false);
    expect(readFileSync(join(root, 'policy/policy.csv'), 'utf8')).to.equal('p, admin, /api/v1/*, .*\n');
  });

  it('--dry-run reports a file that is already there, as writing would', async () => {
    mkdirSync(join(root, 'src/domain/invoice'), { recursive: true });
    writeFileSync(join(root, 'src/domain/invoice/Invoice.ts'), 'mine\n');
    expect(await generate(['resource', 'invoice', 'title:string', '--dry-run'])).to.equal(2);
    expect(err).to.equal('generate: src/domain/invoice/Invoice.ts: already exists (nothing was written)\n');
    expect(out).to.equal('');
  });

  it('refuses bad input with exit code 2, one "generate:" line per problem, and writes nothing', async () => {
    expect(await generate(['resource', 'users', 'id:uuid', 'notes:text', '--search', 'notes'])).to.equal(2);
    expect(err).to.equal(
      [
        'generate: name "users": already taken by the user resource',
        'generate: name "users": is plural; give the singular (user)',
        'generate: field "id": every resource has it already (id, created_at, updated_at and version are generated)',
        'generate: --search notes: only a string field can be searched (notes is text)',
        '',
      ].join('\n'),
    );
    expect(out).to.equal('');
    expect(existsSync(join(root, 'src'))).to.equal(false);
    expect(readFileSync(join(root, 'policy/policy.csv'), 'utf8')).to.equal('p, admin, /api/v1/*, .*\n');
  });

  it('refuses with exit code 2 when a file to create exists, changing nothing', async () => {
    mkdirSync(join(root, 'src/domain/invoice'), { recursive: true });
    writeFileSync(join(root, 'src/domain/invoice/Invoice.ts'), 'mine\n');
    expect(await generate(['resource', 'invoice', 'title:string'])).to.equal(2);
    expect(err).to.equal('generate: src/domain/invoice/Invoice.ts: already exists (nothing was written)\n');
    expect(readFileSync(join(root, 'src/domain/invoice/Invoice.ts'), 'utf8')).to.equal('mine\n');
    expect(readFileSync(join(root, 'policy/policy.csv'), 'utf8')).to.equal('p, admin, /api/v1/*, .*\n');
  });

  it('answers a failure of the templates with one line and exit code 1, never a stack', async () => {
    const code = await run(['resource', 'invoice', 'title:string'], {
      root,
      render: () => {
        throw new Error('templates are not written yet');
      },
      readProject: () => projectState(['product', 'user'], '20261127T0512'),
      out: (text) => (out += text),
      err: (text) => (err += text),
    });
    expect(code).to.equal(1);
    expect(err).to.equal('generate: templates are not written yet\n');
  });

  for (const argv of [['--help'], ['-h'], ['resource', 'invoice', '--help']]) {
    it(`${argv.join(' ')} explains everything and exits 0`, async () => {
      expect(await generate(argv)).to.equal(0);
      for (const needle of [
        'usage: npm run generate -- resource <name> <field>... [--search <field>] [--owned] [--cached] [--dry-run]',
        ...[
          'string',
          'text',
          'integer',
          'number',
          'boolean',
          'datetime',
          'email',
          'uuid',
          'enum(a|b|c)',
          'ref(<resource>)',
        ].map((t) => `  ${t} `),
        'string(1..80)',
        'number(0..<1)',
        'notes:text?',
        '--search <field>',
        '--owned',
        '--cached',
        'ref(user) field is refused',
        '--dry-run',
        'policy/policy.csv',
        "npm run generate -- resource invoice 'customer_id:ref(customer)'",
      ]) {
        expect(out).to.include(needle);
      }
      expect(err).to.equal('');
    });
  }

  it('with no arguments prints the help and exits 2', async () => {
    expect(await generate([])).to.equal(2);
    expect(out).to.include('usage: npm run generate');
  });

  it('through the real process: a refusal exits 2 with its line on stderr', async () => {
    const finished = await runEntry(
      'tools/generate/cli.ts',
      ['resource', 'Invoice', 'title:string', 'type:string'],
      {},
    );
    expect(finished.code).to.equal(2);
    expect(finished.stderr).to.equal(
      [
        'generate: name "Invoice": must be lower snake case, each word starting with a letter (e.g. purchase_order)',
        'generate: field "type": "type" is a reserved word (TypeScript, GraphQL)',
        '',
      ].join('\n'),
    );
    expect(finished.stdout).to.equal('');
  });
});
