import { expect } from 'chai';
import { outboundFiles } from '../../../tools/generate/templates/outbound/index.js';
import { itRendersAsCommitted, modelOf, productModel } from './models.js';

describe('generate: the outbound template reproduces the committed product migration (the golden rule)', () => {
  const files = outboundFiles(productModel());

  it('writes the migration only (the SQL and memory repositories are the shared cores), at the product path', () => {
    expect(files.map((file) => file.path)).to.deep.equal([
      'src/adapters/outbound/mikroorm/migrations/Migration0002Products.ts',
    ]);
  });

  itRendersAsCommitted(files);

  it('states a field with a default with its column default in the table the migration creates', () => {
    const [migration] = outboundFiles(
      modelOf(
        ['book', 'stock:integer(0..)=0', 'status:enum(draft|sent)+readonly=draft', 'out_on:date?'],
        ['product', 'user'],
        '20261127T0512',
      ),
    );
    expect(migration!.contents).to.include("stock: { kind: 'integer', default: 0 },");
    expect(migration!.contents).to.include("status: { kind: 'enum', values: ['draft', 'sent'], default: 'draft' },");
    expect(migration!.contents).to.include("outOn: { kind: 'date', optional: true },");
  });
});
