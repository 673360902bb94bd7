import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { ResourceModel } from '../../../tools/generate/model.js';
import { formatFile } from '../../../tools/generate/format.js';
import { parseCommand } from '../../../tools/generate/parse.js';
import { projectState } from '../../../tools/generate/project.js';
import { productsChanged } from '../../support/resources/productBodies.js';
import type { FileContents } from '../../../tools/generate/writer.js';

/** Whitespace aside: how the golden rule compares a generated file with the committed one. */
export const squeezed = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** The committed text of a project file. */
export const committed = (path: string): string => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

/** The project root, for the formatter's settings. */
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** Products changed since shipped (`generate field product …`): the golden rule is then skipped. */
export { productsChanged };

/** One test per file: rendered and formatted as the generator writes it, exactly as committed (the golden rule). */
export function itRendersAsCommitted(files: readonly FileContents[]): void {
  for (const file of files) {
    it(`renders ${file.path} exactly as committed`, async function () {
      if (await productsChanged()) this.skip();
      const formatted = file.path.endsWith('.csv') ? file : await formatFile(ROOT, file);
      expect(formatted.contents).to.equal(committed(file.path));
    });
  }
}

/** The model of `generate resource …` in a project holding `resources`, or the refusals as an error. */
export function modelOf(argv: readonly string[], resources: readonly string[], migrationStamp: string): ResourceModel {
  const parsed = parseCommand(['resource', ...argv], projectState(resources, migrationStamp));
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  return parsed.model;
}

/** Products, as the golden rule renders them: a project without the product resource, legacy migration 0002. */
export const PRODUCT_ARGS = ['product', 'name:string(1..200)', 'price:number(>0)', '--search', 'name'];
export const productModel = (): ResourceModel => modelOf(PRODUCT_ARGS, ['user'], '0002');

/** The two related resources of issue 10, as the scratch test generates them. */
export const CUSTOMER_ARGS = ['customer', 'name:string', 'email:email', 'tier:enum(free|pro)', '--search', 'name'];
export const INVOICE_ARGS = [
  'invoice',
  'customer_id:ref(customer)',
  'number:string(1..80)',
  'total:number',
  'amount:decimal(12,2)(0..)',
  'due_at:datetime',
  'paid:boolean',
  'notes:text?',
  'score:integer(0..10)?',
];
export const customerModel = (): ResourceModel => modelOf(CUSTOMER_ARGS, ['product', 'user'], '20261127T0512');

/** Issue 34's plain resource: what a generated resource costs at its simplest. */
export const WIDGET_ARGS = ['widget', 'name:string', 'price:decimal(12,2)'];
/**
 * A chain of three (author ← book ← book order), its middle one with --search, a ref and an enum:
 * the derived suites of the last make rows of both resources above it.
 */
export const AUTHOR_ARGS = ['author', 'name:string'];
export const BOOK_ARGS = [
  'book',
  'author_id:ref(author)',
  'title:string',
  'format:enum(paper|ebook)',
  '--search',
  'title',
];
export const BOOK_ORDER_ARGS = ['book_order', 'book_id:ref(book)', 'quantity:integer(1..)'];

/** An invoice with every field type, optional or not, with bounds, and a ref to `customer`. */
export const invoiceModel = (): ResourceModel =>
  modelOf(
    [...INVOICE_ARGS, 'tier:enum(free|pro)', 'contact:email?', 'ext:uuid?'],
    ['customer', 'product', 'user'],
    '20261127T0513',
  );
