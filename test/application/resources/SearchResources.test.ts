import { expect } from 'chai';
import type { ProductSortField } from '../../support/resources/productCatalogue.js';
import { SearchResources } from '../../../src/application/resources/SearchResources.js';
import { Product } from '../../../src/domain/product/Product.js';
import type { ProductListQuery } from '../../support/resources/productCatalogue.js';
import { productInput, productRows, type ProductRows } from '../../support/resources/product.js';
import { START } from '../world.js';
import { CATALOGUE, productId } from '../../support/resources/productCatalogue.js';

/** More names around "widget", in every case, plus LIKE's wildcard characters. */
const MORE: readonly Product[] = [
  Product.create({ ...productInput, id: productId('101'), name: 'Blue Widget', price: 7 }, START),
  Product.create({ ...productInput, id: productId('102'), name: 'WIDGET Pro', price: 3 }, START),
  Product.create({ ...productInput, id: productId('103'), name: 'widgetry', price: 11 }, START),
  Product.create({ ...productInput, id: productId('104'), name: 'Gizmo', price: 1 }, START),
  Product.create({ ...productInput, id: productId('105'), name: '100% Cotton', price: 20 }, START),
  Product.create({ ...productInput, id: productId('106'), name: 'snake_case', price: 21 }, START),
  Product.create({ ...productInput, id: productId('107'), name: 'snakeXcase', price: 22 }, START),
];

describe('SearchResources (over products)', () => {
  let products: ProductRows;
  let searchProducts: SearchResources<Product, ProductSortField>;

  const search = (q: string, overrides: Partial<ProductListQuery> = {}) =>
    searchProducts.execute({ page: 1, perPage: 20, sort: 'price', order: 'asc', ...overrides, q });
  const namesOf = async (q: string, overrides: Partial<ProductListQuery> = {}) =>
    (await search(q, overrides)).items.map((p) => p.name);

  beforeEach(async () => {
    products = productRows();
    searchProducts = new SearchResources(products);
    for (const product of [...CATALOGUE, ...MORE]) await products.add(product);
  });

  it('finds the names containing q, whatever the case of either', async () => {
    const page = await search('wIdGeT');
    // price asc: WIDGET Pro 3; Widget …a 5; Blue Widget 7; Widget …b 10, …c 10; widgetry 11.
    expect(page.items.map((p) => p.name)).to.deep.equal([
      'WIDGET Pro',
      'Widget',
      'Blue Widget',
      'Widget',
      'Widget',
      'widgetry',
    ]);
    expect(page.items.map((p) => p.id).slice(3, 5)).to.deep.equal([productId('b'), productId('c')]);
    expect(page.total).to.equal(6);
  });

  it('matches anywhere in the name, not only at the start', async () => {
    expect(await namesOf('DGETR')).to.deep.equal(['widgetry']);
    expect(await namesOf('zm')).to.deep.equal(['Gizmo']);
    expect(await namesOf('lt')).to.deep.equal(['Bolt']);
  });

  it('matches wildcard characters literally', async () => {
    expect(await namesOf('0%')).to.deep.equal(['100% Cotton']);
    expect(await namesOf('e_c')).to.deep.equal(['snake_case']);
  });

  it('answers an empty page, total 0, when nothing matches', async () => {
    const page = await search('zebra');
    expect(page.items).to.deep.equal([]);
    expect(page.total).to.equal(0);
  });

  it('counts the total of the matches, not of the page, and pages within them in the requested order', async () => {
    const first = await search('widget', { sort: 'price', order: 'desc', page: 1, perPage: 4 });
    const second = await search('widget', { sort: 'price', order: 'desc', page: 2, perPage: 4 });
    const third = await search('widget', { sort: 'price', order: 'desc', page: 3, perPage: 4 });
    expect(first.items.map((p) => p.name)).to.deep.equal(['widgetry', 'Widget', 'Widget', 'Blue Widget']);
    expect(first.items.map((p) => p.id).slice(1, 3)).to.deep.equal([productId('c'), productId('b')]);
    expect(second.items.map((p) => p.name)).to.deep.equal(['Widget', 'WIDGET Pro']);
    expect(third.items).to.deep.equal([]);
    for (const page of [first, second, third]) expect(page).to.include({ total: 6, perPage: 4 });
  });

  it('sorts the matches by name, ties by id', async () => {
    const page = await search('widget', { sort: 'name', order: 'asc' });
    // Binary order (upper case first): "Blue Widget", "WIDGET Pro", "Widget" ×3 by id, "widgetry".
    expect(page.items.map((p) => p.name)).to.deep.equal([
      'Blue Widget',
      'WIDGET Pro',
      'Widget',
      'Widget',
      'Widget',
      'widgetry',
    ]);
    expect(page.items.map((p) => p.id).slice(2, 5)).to.deep.equal([productId('a'), productId('b'), productId('c')]);
  });
});
