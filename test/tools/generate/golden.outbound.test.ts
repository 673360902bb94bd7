import { expect } from 'chai';
import { outboundFiles } from '../../../tools/generate/templates/outbound/index.js';
import { itRendersAsCommitted, productModel } from './models.js';

describe('generate: the outbound templates reproduce the committed product adapters (the golden rule)', () => {
  const files = outboundFiles(productModel());

  it('writes both repositories (the SQL one with its table) and the migration, at the product paths', () => {
    expect(files.map((file) => file.path)).to.deep.equal([
      'src/adapters/outbound/mikroorm/SqlProductRepository.ts',
      'src/adapters/outbound/memory/InMemoryProductRepository.ts',
      'src/adapters/outbound/mikroorm/migrations/Migration0002Products.ts',
    ]);
  });

  itRendersAsCommitted(files);
});
