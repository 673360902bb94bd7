import { expect } from 'chai';
import {
  cpSync,
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
import { sameTable, type TableChange } from '../../../src/adapters/outbound/mikroorm/resourceTableChange.js';
import { tableSpecOf } from '../../../src/adapters/outbound/mikroorm/resourceTable.js';
import { declareResource } from '../../../src/domain/shared/resource.js';
import { PRODUCT } from '../../../src/domain/product/Product.js';
import {
  applyChange,
  declarationOfField,
  loadMigrations,
  modelOfDeclaration,
  tablesAfter,
} from '../../../tools/generate/declarations.js';
import { editDeclaration, mergeThreeWay, relationClashes } from '../../../tools/generate/evolve.js';
import { formatChangeSet } from '../../../tools/generate/format.js';
import { readProjectState } from '../../../tools/generate/project.js';
import { parseCommand } from '../../../tools/generate/parse.js';
import { render } from '../../../tools/generate/render.js';
import { run } from '../../../tools/generate/run.js';
import { camelOf } from '../../../tools/generate/model.js';
import { tableChangeMigrationFile } from '../../../tools/generate/templates/outbound/tableChangeMigrationFile.js';
import { CUSTOMER_ARGS, customerModel, invoiceModel, modelOf, productModel, productsChanged } from './models.js';

/** A field products do not have (`zzstock`, unless a project added it: then another). */
const NEW_FIELD =
  ['zzstock', 'zzstock_two', 'zzstock_three'].find((name) => !(camelOf(name) in PRODUCT.fields)) ?? 'zzstock_four';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url)).replace(/\/$/, '');

/** `generate` on this repository, writing nothing (refusals and --dry-run only), with what it printed. */
async function generate(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await run(argv, {
    root: ROOT,
    render: () => {
      throw new Error('not a resource');
    },
    format: (changes) => formatChangeSet(ROOT, changes),
    fs: {
      ...(await import('../../../tools/generate/writer.js')).realFs,
      writeFile: () => Promise.reject(new Error('this test writes nothing')),
    },
    out: (text) => (out += text),
    err: (text) => (err += text),
  });
  return { code, out, err };
}

describe('generate field and generate migration', function () {
  this.timeout(60_000);

  describe('reading a resource back from its declaration', () => {
    it('gives the model `generate resource` gave, for every field type (the round trip)', () => {
      const model = invoiceModel();
      const declaration = declareResource({
        name: model.names.snake,
        plural: model.names.pluralSnake,
        fields: Object.fromEntries(model.fields.map((f) => [f.camel, declarationOfField(f)])),
      });
      expect(modelOfDeclaration(declaration).fields).to.deep.equal(model.fields);
    });

    it('gives back a file field as `generate resource` gave it: its types and largest size', () => {
      const model = modelOf(['album', 'title:string', 'cover:file(image/png|image/*,5MB)?'], ['user'], '20261127T0512');
      const declaration = declareResource({
        name: model.names.snake,
        plural: model.names.pluralSnake,
        fields: Object.fromEntries(model.fields.map((f) => [f.camel, declarationOfField(f)])),
      });
      expect(modelOfDeclaration(declaration).fields).to.deep.equal(model.fields);
    });

    it('reads products as `generate resource product …` declares them', async function () {
      if (await productsChanged()) this.skip();
      const { migrationStamp: _, ...expected } = productModel();
      const { migrationStamp: __, ...read } = modelOfDeclaration(PRODUCT);
      expect(read).to.deep.equal(expected);
    });

    it('knows what the migrations so far make of each table: products as their declaration says', async () => {
      const tables = tablesAfter(await loadMigrations(ROOT));
      const products = tables.get('products');
      expect(products, 'no migration creates products').to.not.equal(undefined);
      expect(sameTable(products!, tableSpecOf(PRODUCT))).to.equal(true);
    });
  });

  describe('editing files', () => {
    const entity = `export const INVOICE = declareResource({
  name: 'invoice',
  plural: 'invoices',
  fields: {
    number: field.string(1, 80),
    status: field.enum([
      'draft',
      'sent',
    ]),
    notes: field.text(0, 10000).optional(),
  },
});

/** Hand-written behaviour stays. */
export class Invoice extends entityOf(INVOICE) {
  send() { return this.status === 'draft'; }
}
`;

    it('removes a declaration line, even one laid out on several lines, and adds lines at the end of the block', () => {
      const [paid] = invoiceModel().fields.filter((f) => f.name === 'paid');
      const edited = editDeclaration(entity, ['status'], [paid!]);
      expect(edited).to.include(
        '    number: field.string(1, 80),\n    notes: field.text(0, 10000).optional(),\n    paid: field.boolean(),\n  },',
      );
      expect(edited).to.not.include("'sent'");
      expect(edited).to.include('send() { return this.status');
    });

    it('adds a file field line and imports the size unit it names', () => {
      const source = `import { declareResource, entityOf, field } from '../shared/resource.js';\n\n${entity}`;
      const [cover] = modelOf(['album', 'cover:file(image/png,2MB)?'], ['user'], '20261127T0512').fields;
      const edited = editDeclaration(source, [], [cover!]);
      expect(edited).to.include("    cover: field.file(['image/png'], 2 * MB).optional(),\n  },");
      expect(edited).to.include("import { MB, declareResource, entityOf, field } from '../shared/resource.js';");
      expect(editDeclaration(edited!, [], [])).to.equal(edited);
    });

    it('answers undefined when there is no declaration to edit, or no such field', () => {
      expect(editDeclaration('export const x = 1;', ['a'], [])).to.equal(undefined);
      expect(editDeclaration(entity, ['missing'], [])).to.equal(undefined);
    });

    it('counts two changes of one table made on two branches both, whatever order they apply in (a merge)', () => {
      const base = tableSpecOf(PRODUCT);
      const withColumn = (spec: typeof base, prop: string, sortable: string) => ({
        ...spec,
        columns: { ...spec.columns, [prop]: { kind: 'string' as const, length: 80, optional: true } },
        sortable: [...spec.sortable, sortable],
      });
      // Each branch's change states the table as it knew it: without the other branch's field.
      const a: TableChange = { before: base, after: withColumn(base, 'subtitle', 'subtitle') };
      const b: TableChange = { before: base, after: withColumn(base, 'edition', 'edition') };
      const both = withColumn(withColumn(base, 'subtitle', 'subtitle'), 'edition', 'edition');
      for (const [first, second] of [
        [a, b],
        [b, a],
      ] as const) {
        const merged = tablesAfter([
          { name: 'create', creates: [base], changes: [] },
          { name: 'first', creates: [], changes: [first] },
          { name: 'second', creates: [], changes: [second] },
        ]).get(base.table);
        expect(sameTable(merged!, both), JSON.stringify(merged)).to.equal(true);
      }
      // Unmerged, a change gives its own table; a removal and a moved search count too.
      expect(sameTable(applyChange(base, a), a.after)).to.equal(true);
      const removed = applyChange(both, { before: a.after, after: { ...base, search: undefined } });
      expect(Object.keys(removed.columns).sort()).to.deep.equal(['edition', 'name', 'price']);
      expect(removed.sortable).to.not.include('subtitle');
      expect(removed.search).to.equal(undefined);
    });

    it('merges three ways: a change lands beside a hand edit elsewhere, and refuses one in the same place', () => {
      const base = 'a\nb\nc\nd\ne\nf\ng\n';
      const theirs = 'a\nb\nc\nd\ne\nf\ng\nh\n';
      expect(mergeThreeWay('a (edited)\nb\nc\nd\ne\nf\ng\n', base, theirs)).to.equal(
        'a (edited)\nb\nc\nd\ne\nf\ng\nh\n',
      );
      expect(mergeThreeWay('a\nb\nc\nd\ne\nf\ng\nmine\n', base, theirs)).to.equal(undefined);
      expect(mergeThreeWay(base, base, theirs)).to.equal(theirs);
    });

    it('writes a change migration that states both tables and says what it does', () => {
      const before = tableSpecOf(PRODUCT);
      const change: TableChange = {
        before,
        after: {
          ...before,
          columns: { ...before.columns, [camelOf(NEW_FIELD)]: { kind: 'integer' } },
          sortable: [...before.sortable, NEW_FIELD],
        },
        defaults: { [camelOf(NEW_FIELD)]: 3 },
      };
      const file = tableChangeMigrationFile('20261127T0512', change);
      const slug = `products_add_${NEW_FIELD}`;
      expect(file.path).to.equal(`src/adapters/outbound/mikroorm/migrations/20261127T0512_${slug}.ts`);
      expect(file.contents).to.include(
        `export class Migration20261127T0512Products${camelOf(`add_${NEW_FIELD}`).replace(/^a/, 'A')} extends tableChangeMigration(CHANGE) {}`,
      );
      expect(file.contents).to.include(`adds \`${NEW_FIELD}\` (the rows stored before get 3).`);
    });
  });

  describe('names relations take', () => {
    it('refuses a field named as a relation on either side (Invoice.customer, Customer.invoices)', () => {
      const customer = customerModel();
      const invoice = invoiceModel();
      const others = (...models: ReturnType<typeof customerModel>[]) => new Map(models.map((m) => [m.names.snake, m]));
      expect(relationClashes(invoice, others(customer))).to.deep.equal([]);
      const named = {
        ...invoice,
        fields: [...invoice.fields, { ...invoice.fields[1]!, name: 'customer', camel: 'customer' }],
      };
      expect(relationClashes(named, others(customer))).to.deep.equal([
        'field "customer": GraphQL serves the relation of customer_id as Invoice.customer; name the field otherwise',
      ]);
      const listed = modelOf(['customer', 'name:string', 'invoices:integer?'], ['user'], '20261127T0512');
      expect(relationClashes(invoice, others(listed))).to.deep.equal([
        'customer has a field invoices, the name GraphQL gives its list of invoices (Customer.invoices); name one of them otherwise',
      ]);
      expect(relationClashes(listed, others(invoice))).to.deep.equal([
        'field "invoices": GraphQL serves the invoices that refer to a customer as Customer.invoices; name the field otherwise',
      ]);
    });
  });

  describe('the commands on this repository (refusals and --dry-run: nothing is written)', () => {
    const refused = async (argv: string[], message: string) => {
      const result = await generate(argv);
      expect(result.code, result.err).to.equal(2);
      expect(result.err).to.include(message);
      expect(result.out).to.equal('');
    };

    it('refuses a new required field without --default, a default its rule refuses, and an existing field', async () => {
      await refused(['field', 'product', `${NEW_FIELD}:integer(0..)`], `--default ${NEW_FIELD}=<value>`);
      await refused(
        ['field', 'product', `${NEW_FIELD}:integer(0..)`, '--default', `${NEW_FIELD}=-1`],
        `${NEW_FIELD} must be an integer from 0`,
      );
      await refused(['field', 'product', 'price:number'], 'product has it already');
      await refused(['field', 'product', 'a:string?', '--default', 'b=1'], 'b is not a field this command adds');
      await refused(
        ['field', 'product', `${NEW_FIELD}:integer(0..)=1`, '--default', `${NEW_FIELD}=2`],
        `field "${NEW_FIELD}": two defaults (=1 and --default ${NEW_FIELD}=2); give one`,
      );
      await refused(
        ['field', 'product', `${NEW_FIELD}:integer(0..)=-1`],
        `field "${NEW_FIELD}": the default "-1" must be`,
      );
      await refused(['field', 'product', `${NEW_FIELD}:string+sorted`], `unknown flag "+sorted"`);
      await refused(
        ['field', 'product', `${NEW_FIELD}:enum(a|b)+readonly`],
        'a required +readonly field needs a default',
      );
    });

    it('refuses removing id, the search field or a field that does not exist, and a resource that is not declared', async () => {
      await refused(['field', 'product', '--remove', 'id'], 'every resource keeps it');
      await refused(['field', 'product', '--remove', 'name'], 'it is the field product searches');
      await refused(['field', 'product', '--remove', 'colour'], 'product has no field colour');
      await refused(['field', 'user', 'nickname:string?'], 'user is not declared with declareResource');
      await refused(['field', 'gadget', 'a:string?'], 'there is no gadget resource');
    });

    it('lists what adding a field would write: the declaration and a migration named by the time, no list', async function () {
      if (await productsChanged()) this.skip();
      const result = await generate([
        'field',
        'product',
        `${NEW_FIELD}:integer(0..)`,
        'color:enum(red|green)?',
        '--default',
        `${NEW_FIELD}=3`,
        '--dry-run',
      ]);
      expect(result.code, result.err).to.equal(0);
      const lines = result.out.split('\n').filter(Boolean).sort();
      expect(lines).to.have.length(2);
      expect(lines[0]).to.equal('would change src/domain/product/Product.ts');
      expect(lines[1]).to.match(
        new RegExp(
          `^would create src/adapters/outbound/mikroorm/migrations/\\d{8}T\\d{4}(\\d{2})?_products_add_${NEW_FIELD}_color\\.ts$`,
        ),
      );
    });

    it('adds a file field to products (the declaration and a migration), and refuses one without ?, +unique or with a default', async () => {
      const result = await generate(['field', 'product', 'zzphoto:file(image/png|image/jpeg,5MB)?', '--dry-run']);
      expect(result.code, result.err).to.equal(0);
      const lines = result.out.split('\n').filter(Boolean).sort();
      expect(lines[0]).to.equal('would change src/domain/product/Product.ts');
      expect(lines[1]).to.match(/_products_add_zzphoto\.ts$/);
      await refused(
        ['field', 'product', 'zzphoto:file(image/png,5MB)'],
        'field "zzphoto": a file field must be optional (zzphoto:file(...)?): a file is uploaded once its item exists',
      );
      await refused(['field', 'product', 'zzphoto:file(image/png,5MB)?+unique'], 'a file field cannot be +unique');
      await refused(['field', 'product', 'zzphoto:file(image/png,5MB)?=x'], 'a file field cannot have a default');
    });

    it('says there is nothing to do when every declaration is what the migrations make, and writes nothing', async () => {
      const result = await generate(['migration']);
      expect(result.code, result.err).to.equal(0);
      expect(result.out).to.equal('nothing to do: every table is as its declaration says (no migration written)\n');
      await refused(['migration', '--default', `${NEW_FIELD}=1`], 'no table changes, so no default is needed');
    });
  });
  describe('in a copy of the sources (writing)', () => {
    let root: string;
    let out: string;
    let err: string;
    const generateIn = (argv: string[]) => {
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
    const edit = (path: string, from: string, to: string) => {
      const text = read(path);
      expect(text, path).to.include(from);
      writeFileSync(join(root, path), text.replace(from, to));
    };

    before(async () => {
      root = mkdtempSync(join(tmpdir(), 'portico-evolve-'));
      for (const path of ['src', 'policy', 'package.json', '.prettierrc.json'])
        cpSync(join(ROOT, path), join(root, path), { recursive: true });
      symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(root, 'node_modules'));
      // Written from the templates, not by `generate resource`, which would import the declarations
      // (a module is read once a process: the hand edits below would then go unseen).
      for (const args of [CUSTOMER_ARGS, ['invoice', 'customer_id:ref(customer)', 'number:string']]) {
        const project = readProjectState(root);
        const parsed = parseCommand(['resource', ...args], project);
        if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
        const changes = await formatChangeSet(root, render(parsed.model, project));
        for (const file of [...changes.create, ...changes.modify]) {
          mkdirSync(dirname(join(root, file.path)), { recursive: true });
          writeFileSync(join(root, file.path), file.contents);
        }
      }
    });
    after(() => rmSync(root, { recursive: true, force: true }));

    it('writes a migration for each of two declarations edited by hand, named by the time and the change, no list changed', async () => {
      edit(
        'src/domain/customer/Customer.ts',
        "tier: field.enum(['free', 'pro']),",
        "tier: field.enum(['free', 'pro']),\n    phone: field.string(1, 30).optional(),",
      );
      edit(
        'src/domain/invoice/Invoice.ts',
        'number: field.string(1, 200),',
        'number: field.string(1, 200),\n    memo: field.text(0, 100).optional(),',
      );
      const list = read('src/main/modules/index.ts');
      expect(await generateIn(['migration']), err).to.equal(0);
      const lines = out.split('\n').filter((line) => line !== '');
      expect(lines.filter((line) => line.startsWith('changed ')).sort()).to.deep.equal([
        'changed src/domain/customer/Customer.ts',
        'changed src/domain/invoice/Invoice.ts',
      ]);
      const created = lines.filter((line) => line.startsWith('created ')).sort();
      expect(created).to.have.length(2);
      expect(created[0]).to.match(
        /^created src\/adapters\/outbound\/mikroorm\/migrations\/\d{8}T\d{4}(\d{2})?_customers_add_phone\.ts$/,
      );
      expect(created[1]).to.match(/_invoices_add_memo\.ts$/);
      const stampOf = (line: string) => /(\d{8}T\d+)_/.exec(line)?.[1];
      expect(stampOf(created[0]!), 'one stamp for the command').to.equal(stampOf(created[1]!));
      expect(read('src/main/modules/index.ts')).to.equal(list);
      const tables = tablesAfter(await loadMigrations(root));
      expect(tables.get('customers')?.columns).to.have.property('phone');
      expect(tables.get('invoices')?.columns).to.have.property('memo');
    });

    it('--default f=v is =v written in the field: the declaration states the default, the migration backfills it and keeps it as the column default', async () => {
      expect(
        await generateIn([
          'field',
          'customer',
          'status:enum(new|vip)+readonly',
          'since:date?',
          '--default',
          'status=new',
        ]),
        err,
      ).to.equal(0);
      const entity = read('src/domain/customer/Customer.ts');
      expect(entity).to.include("status: field.enum(['new', 'vip']).readonly().default('new'),");
      expect(entity).to.include('since: field.date().optional(),');
      const [migration] = out.split('\n').filter((line) => line.includes('_customers_add_'));
      const path = /(src\/adapters\S+_customers_add_\S+\.ts)/.exec(migration ?? '')?.[1];
      expect(path, out).to.not.equal(undefined);
      const change = read(path!);
      expect(change).to.match(/status: \{ kind: 'enum', values: \['new', 'vip'\], default: 'new' \}/);
      expect(change).to.include("since: { kind: 'date', optional: true }");
    });
  });
});
