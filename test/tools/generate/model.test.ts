import { expect } from 'chai';
import { namesOf } from '../../../tools/generate/model.js';

describe('generate: names', () => {
  it('spells a two-word name in every form, pluralizing the last word only', () => {
    expect(namesOf('purchase_order')).to.deep.equal({
      snake: 'purchase_order',
      kebab: 'purchase-order',
      pascal: 'PurchaseOrder',
      camel: 'purchaseOrder',
      pluralSnake: 'purchase_orders',
      pluralKebab: 'purchase-orders',
      pluralCamel: 'purchaseOrders',
      pluralPascal: 'PurchaseOrders',
      human: 'Purchase order',
      pluralHuman: 'Purchase orders',
    });
  });

  for (const [singular, plural] of [
    ['category', 'categories'],
    ['product', 'products'],
    ['person', 'people'],
    ['status', 'statuses'],
    ['address', 'addresses'],
    ['box', 'boxes'],
    ['child', 'children'],
    ['analysis', 'analyses'],
    ['sales_person', 'sales_people'],
    ['line_item', 'line_items'],
  ] as const) {
    it(`pluralizes ${singular} as ${plural} (English rules, the pluralize library)`, () => {
      expect(namesOf(singular).pluralSnake).to.equal(plural);
    });
  }

  it('keeps a one-word name as it is in snake and camel case', () => {
    const names = namesOf('invoice');
    expect([names.camel, names.pascal, names.pluralCamel, names.pluralKebab, names.human]).to.deep.equal([
      'invoice',
      'Invoice',
      'invoices',
      'invoices',
      'Invoice',
    ]);
  });
});
