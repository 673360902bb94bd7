import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { ResourceModel } from '../../../tools/generate/model.js';
import { parseCommand } from '../../../tools/generate/parse.js';
import { projectState } from '../../../tools/generate/project.js';
import { domainFiles } from '../../../tools/generate/templates/domain/index.js';
import type { ValidationError } from '../../../src/domain/shared/DomainError.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const run = promisify(execFile);

function modelOf(command: string, resources: string[], migration: string): ResourceModel {
  const parsed = parseCommand(command.split(' '), projectState(resources, migration));
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  return parsed.model;
}

const CUSTOMER = modelOf(
  'resource customer name:string email:email tier:enum(free|pro) --search name',
  ['product', 'user'],
  '20261127T0512',
);
const INVOICE = modelOf(
  'resource invoice customer_id:ref(customer) number:string total:number due_at:datetime paid:boolean notes:text? ' +
    'tier:enum(free|pro) score:integer(0..10)? contact:email? ext:uuid? ratio:number(0..<1)?',
  ['customer', 'product', 'user'],
  '20261127T0513',
);

/**
 * Exercises the generated types the way the other layers use them (the shared cores' use cases and
 * repository port over the declared entity); a type error here fails the check.
 */
const USAGE = `import { Invoice, INVOICE, type InvoiceFields } from './domain/invoice/Invoice.js';
import { Customer } from './domain/customer/Customer.js';
import type { ListQuery } from './domain/shared/Page.js';
import type { SortFieldOf } from './domain/shared/resource.js';
import type { ResourceRepository } from './domain/shared/ResourceRepository.js';
import { GetResource } from './application/resources/GetResource.js';
import { ListResources } from './application/resources/ListResources.js';
import { SearchResources } from './application/resources/SearchResources.js';

type InvoiceSort = SortFieldOf<typeof INVOICE.fields>;
const tier: InvoiceFields['tier'] = 'pro';
const invoice = Invoice.create(
  { id: 'i', customerId: 'c', number: 'A-1', total: 1, dueAt: new Date(), paid: false, tier },
  new Date(),
);
const cleared: string | null = invoice.update({ notes: null, score: null }, new Date()).notes;
const sort: InvoiceSort = 'customer_id';
const query: ListQuery<InvoiceSort> = { page: 1, perPage: 20, sort, order: 'asc', filters: { customer_id: 'c' } };
const ratio: number | null = invoice.ratio;
export function useCases(invoices: ResourceRepository<Invoice, InvoiceSort>, customers: ResourceRepository<Customer, string>) {
  return {
    get: new GetResource({ rows: invoices, errors: Invoice.errors }),
    list: new ListResources(invoices).execute(query),
    search: new SearchResources(customers),
  };
}
export const used = [cleared, ratio, INVOICE.rules.tier?.message, Customer.declaration.search, Invoice.errors.notFound('i').message];
`;

describe('generate: the domain templates for every field type', function () {
  this.timeout(120_000);
  let scratch: string;

  before(() => {
    scratch = mkdtempSync(join(tmpdir(), 'portico-domain-'));
    cpSync(join(ROOT, 'src/domain'), join(scratch, 'src/domain'), { recursive: true });
    cpSync(join(ROOT, 'src/application'), join(scratch, 'src/application'), { recursive: true });
    for (const file of [...domainFiles(CUSTOMER), ...domainFiles(INVOICE)]) {
      mkdirSync(dirname(join(scratch, file.path)), { recursive: true });
      writeFileSync(join(scratch, file.path), file.contents);
    }
    writeFileSync(join(scratch, 'src/usage.ts'), USAGE);
    writeFileSync(join(scratch, 'package.json'), JSON.stringify({ type: 'module' }));
    const options = {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      lib: ['ES2023'],
      types: ['node'],
      typeRoots: [join(ROOT, 'node_modules/@types')],
      strict: true,
      noUncheckedIndexedAccess: true,
      noImplicitOverride: true,
      verbatimModuleSyntax: true,
      skipLibCheck: true,
      noEmit: true,
      noUnusedLocals: true,
      noUnusedParameters: true,
    };
    writeFileSync(join(scratch, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, include: ['src'] }));
  });

  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('type-checks (strict, no unused names) beside the real domain and application, with a customer it references', async () => {
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const result = await run(process.execPath, [tsc, '-p', join(scratch, 'tsconfig.json')]).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(result).to.equal('');
  });

  describe('the generated invoice entity', () => {
    const NOW = new Date('2026-01-01T00:00:00.000Z');
    const CUSTOMER_ID = '00000000-0000-4000-8000-000000000001';
    const valid = {
      id: 'i-1',
      customerId: CUSTOMER_ID,
      number: 'A-1',
      total: -3.5,
      dueAt: NOW,
      paid: false,
      tier: 'free',
    };
    type Entity = { toProps(): Record<string, unknown>; update(changes: object, now: Date): Entity };
    let Invoice: { create(input: object, now: Date): Entity };

    before(async () => {
      ({ Invoice } = (await import(pathToFileURL(join(scratch, 'src/domain/invoice/Invoice.ts')).href)) as {
        Invoice: typeof Invoice;
      });
    });

    const refusal = (action: () => unknown): { field: string; message: string }[] => {
      try {
        action();
      } catch (error) {
        return [...(error as ValidationError).fields];
      }
      return expect.fail('nothing was refused');
    };

    it('creates with absent optional fields as null, at version 1', () => {
      expect(Invoice.create(valid, NOW).toProps()).to.deep.equal({
        ...valid,
        notes: null,
        score: null,
        contact: null,
        ext: null,
        ratio: null,
        version: 1,
        createdAt: NOW,
        updatedAt: NOW,
      });
    });

    it('refuses every bad field at once, by its JSON name, with the message naming the bound', () => {
      const bad = {
        ...valid,
        customerId: 'nope',
        number: ' x',
        total: Number.NaN,
        dueAt: new Date('invalid'),
        paid: 'yes',
        notes: 'a\u0000b',
        tier: 'gold',
        score: 11,
        contact: 'Ada@Example.com',
        ext: 'A0000000-0000-4000-8000-000000000001',
        ratio: 1,
      };
      expect(refusal(() => Invoice.create(bad, NOW))).to.deep.equal([
        { field: 'customer_id', message: 'must be a UUID' },
        { field: 'number', message: 'must be 1 to 200 characters' },
        { field: 'total', message: 'must be a finite number' },
        { field: 'due_at', message: 'must be a date-time in RFC 3339 format with a time zone' },
        { field: 'paid', message: 'must be true or false' },
        { field: 'notes', message: 'must not contain NUL characters' },
        { field: 'tier', message: 'must be one of free, pro' },
        { field: 'score', message: 'must be an integer from 0 to 10' },
        { field: 'contact', message: 'must be a valid e-mail address' },
        { field: 'ext', message: 'must be a UUID' },
        { field: 'ratio', message: 'must be a number from 0 to less than 1' },
      ]);
    });

    it('sets optional fields on update, clears them with null, keeps absent ones, bumps the version', () => {
      const later = new Date('2026-01-02T00:00:00.000Z');
      const set = Invoice.create(valid, NOW).update({ notes: 'paid late', score: 10, ratio: 0 }, later);
      expect(set.toProps()).to.deep.include({ notes: 'paid late', score: 10, ratio: 0, version: 2, updatedAt: later });
      expect(set.update({ notes: null }, later).toProps()).to.deep.include({ notes: null, score: 10, version: 3 });
      expect(refusal(() => set.update({ tier: null }, later))).to.deep.equal([
        { field: 'tier', message: 'must be one of free, pro' },
      ]);
    });
  });
});
