import { expect } from 'chai';
import { domainFiles } from '../../../tools/generate/templates/domain/index.js';
import { itRendersAsCommitted, modelOf, productModel } from './models.js';

describe('generate: the domain template reproduces the committed product (the golden rule)', () => {
  const files = domainFiles(productModel());

  it('writes the entity only: its declaration and class (errors, port and use cases are the shared cores)', () => {
    expect(files.map((f) => f.path)).to.deep.equal(['src/domain/product/Product.ts']);
  });

  itRendersAsCommitted(files);

  it('declares the search field only for a resource with --search, and imports no errors of its own', () => {
    const [gadget] = domainFiles(
      modelOf(['gadget', 'name:string', 'notes:text?'], ['product', 'user'], '20261127T0512'),
    );
    expect(gadget?.contents).not.to.include('search:');
    expect(gadget?.contents).not.to.include('Errors');
    expect(gadget?.contents).to.include('export class Gadget extends entityOf(GADGET) {}');
    expect(gadget?.contents).to.include('`null` clears an optional one');
  });

  it('declares a date, the flags and the defaults as the field syntax gives them, each default the value its rule read', () => {
    const [book] = domainFiles(
      modelOf(
        [
          'book',
          'isbn:string(10..17)+unique',
          'status:enum(draft|sent|paid)+readonly=draft',
          'nickname:string?+unique',
          'published_on:date?',
          'stock:integer(0..)=0',
          'due_at:datetime=2026-01-31T12:00:00Z',
          "motto:string=it's",
        ],
        ['product', 'user'],
        '20261127T0512',
      ),
    );
    const lines = book!.contents.split('\n').filter((line) => line.startsWith('    '));
    expect(lines).to.include.members([
      '    isbn: field.string(10, 17).unique(),',
      "    status: field.enum(['draft', 'sent', 'paid']).readonly().default('draft'),",
      '    nickname: field.string(1, 200).optional().unique(),',
      '    publishedOn: field.date().optional(),',
      '    stock: field.integer(0, 2147483647).default(0),',
      "    dueAt: field.datetime().default(new Date('2026-01-31T12:00:00.000Z')),",
      "    motto: field.string(1, 200).default('it\\'s'),",
    ]);
  });

  it('declares a file field with its types and size in the largest unit, importing the units it names', () => {
    const [album] = domainFiles(
      modelOf(
        [
          'album',
          'title:string',
          'cover:file(image/png|image/jpeg,5MB)?',
          'booklet:file(application/pdf|image/*,1536KB)?',
        ],
        ['product', 'user'],
        '20261127T0512',
      ),
    );
    const lines = album!.contents.split('\n');
    expect(lines).to.include.members([
      "    cover: field.file(['image/png', 'image/jpeg'], 5 * MB).optional(),",
      "    booklet: field.file(['application/pdf', 'image/*'], 1536 * KB).optional(),",
    ]);
    expect(lines[0]).to.equal(
      "import { declareResource, entityOf, field, MB, KB, type Changes, type CreateInput, type PropsOf } from '../shared/resource.js';",
    );
  });
});
