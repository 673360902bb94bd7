import { expect } from 'chai';
import { outboundFiles } from '../../../tools/generate/templates/outbound/index.js';
import { itRendersAsCommitted, productModel } from './models.js';

describe('generate: the outbound template reproduces the committed product migration (the golden rule)', () => {
  const files = outboundFiles(productModel());

  it('writes the migration only (the SQL and memory repositories are the shared cores), at the product path', () => {
    expect(files.map((file) => file.path)).to.deep.equal([
      'src/adapters/outbound/mikroorm/migrations/Migration0002Products.ts',
    ]);
  });

  itRendersAsCommitted(files);
});
