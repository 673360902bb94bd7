import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { parseCommand } from '../../../tools/generate/parse.js';
import { projectState } from '../../../tools/generate/project.js';
import { domainFiles } from '../../../tools/generate/templates/domain/index.js';

const ROOT = new URL('../../../', import.meta.url);
const squeezed = (text: string): string => text.replace(/\s+/g, ' ').trim();

describe('generate: the domain templates reproduce the committed product (the golden rule)', () => {
  const parsed = parseCommand(['resource', 'product', 'name:string(1..200)', 'price:number(>0)', '--search', 'name'], projectState(['user'], 2));
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  const files = domainFiles(parsed.model);

  it('writes the entity, its errors, its port and the six use cases', () => {
    expect(files.map((f) => f.path)).to.deep.equal([
      'src/domain/product/Product.ts',
      'src/domain/product/ProductErrors.ts',
      'src/domain/product/ProductRepository.ts',
      'src/application/product/CreateProduct.ts',
      'src/application/product/GetProduct.ts',
      'src/application/product/ListProducts.ts',
      'src/application/product/SearchProducts.ts',
      'src/application/product/UpdateProduct.ts',
      'src/application/product/DeleteProduct.ts',
    ]);
  });

  for (const file of files) {
    it(`renders ${file.path} exactly as committed, whitespace aside`, () => {
      expect(squeezed(file.contents)).to.equal(squeezed(readFileSync(new URL(file.path, ROOT), 'utf8')));
    });
  }

  it('writes no search use case for a resource without --search', () => {
    const plain = parseCommand(['resource', 'gadget', 'name:string'], projectState(['product', 'user'], 3));
    if (!plain.ok) throw new Error(plain.problems.join('; '));
    expect(domainFiles(plain.model).map((f) => f.path)).to.not.include('src/application/gadget/SearchGadgets.ts');
  });
});
