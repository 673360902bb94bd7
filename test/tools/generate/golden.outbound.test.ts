import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { parseCommand } from '../../../tools/generate/parse.js';
import { projectState } from '../../../tools/generate/project.js';
import { outboundFiles } from '../../../tools/generate/templates/outbound/index.js';

/** The product model: `generate resource product name:string(1..200) price:number(>0) --search name` before products existed. */
function productModel() {
  const parsed = parseCommand(['resource', 'product', 'name:string(1..200)', 'price:number(>0)', '--search', 'name'], projectState(['user'], 2));
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  return parsed.model;
}

const normalized = (text: string): string => text.replace(/\s+/g, ' ').trim();

describe('generate: the outbound templates reproduce the committed product adapters (the golden rule)', () => {
  const files = outboundFiles(productModel());

  it('writes the schema, both repositories and the migration, at the product paths', () => {
    expect(files.map((file) => file.path)).to.deep.equal([
      'src/adapters/outbound/mikroorm/schemas/ProductSchema.ts',
      'src/adapters/outbound/mikroorm/MikroOrmProductRepository.ts',
      'src/adapters/outbound/memory/InMemoryProductRepository.ts',
      'src/adapters/outbound/mikroorm/migrations/Migration0002Products.ts',
    ]);
  });

  for (const file of files) {
    it(`renders ${file.path} exactly as committed, whitespace aside`, () => {
      expect(normalized(file.contents)).to.equal(normalized(readFileSync(new URL(`../../../${file.path}`, import.meta.url), 'utf8')));
    });
  }
});
