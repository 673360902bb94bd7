import { expect } from 'chai';
import { modelOfDeclaration } from '../../../tools/generate/declarations.js';
import { entityFile } from '../../../tools/generate/templates/domain/entity.js';
import { policyEdit } from '../../../tools/generate/templates/main/edits.js';
import { migrationFile } from '../../../tools/generate/templates/outbound/migrationFile.js';
import { parsePolicyCsv } from '../../../src/adapters/outbound/access/PolicyRuleStore.js';
import { declareResource, field } from '../../../src/domain/shared/resource.js';
import { committed, modelOf, squeezed } from './models.js';

/** `generate resource purchase_order … --owned`: each row belongs to the user who created it. */
const ORDER_ARGS = ['purchase_order', 'number:string', 'total:decimal(12,2)', '--owned'];
const orderModel = () => modelOf(ORDER_ARGS, ['product', 'user'], '20261127T0512');

describe('generate: --owned', () => {
  it('is read anywhere among the arguments; without it a resource is not owned', () => {
    expect(orderModel().owned).to.equal(true);
    expect(modelOf(['purchase_order', '--owned', 'number:string'], ['user'], '20261127T0512').owned).to.equal(true);
    expect(modelOf(['purchase_order', 'number:string'], ['user'], '20261127T0512').owned).to.equal(undefined);
  });

  it('writes owned: true in the declaration', () => {
    const { contents } = entityFile(orderModel());
    expect(squeezed(contents)).to.include(
      squeezed(`plural: 'purchase_orders',
  fields: {
    number: field.string(1, 200),
    total: field.decimal(12, 2),
  },
  owned: true,
});`),
    );
  });

  it("writes the table's owner in the migration's spec, and the user rules with scope own", () => {
    const { contents } = migrationFile(orderModel());
    const text = squeezed(contents);
    expect(text).to.include(squeezed(`sortable: ['number', 'total', 'created_at', 'updated_at'], owned: true, };`));
    expect(text).to.include(
      squeezed(`{ role: 'moderator', path: '/api/v1/purchase-orders', action: '.*' },
      { role: 'moderator', path: '/api/v1/purchase-orders/{id}', action: '.*' },
      { role: 'user', path: '/api/v1/purchase-orders', action: 'GET|POST', scope: 'own' },
      { role: 'user', path: '/api/v1/purchase-orders/{id}', action: 'GET|PUT|DELETE', scope: 'own' },`),
    );
    expect(text).to.include('owner_id');
  });

  it('adds the user rules to policy.csv with the fifth field own, moderator all', () => {
    const edited = policyEdit(orderModel(), committed('policy/policy.csv'));
    const added = edited.split('\n').filter((line) => line.includes('purchase-orders'));
    expect(added).to.deep.equal([
      'p, user, /api/v1/purchase-orders, GET|POST, own',
      'p, user, /api/v1/purchase-orders/{id}, GET|PUT|DELETE, own',
      'p, moderator, /api/v1/purchase-orders, .*',
      'p, moderator, /api/v1/purchase-orders/{id}, .*',
    ]);
    // The service reads what the generator wrote.
    expect(parsePolicyCsv(edited).filter((rule) => rule.values[3] === 'own')).to.have.length(2);
  });

  it('gives a nested list under a referenced row the list’s rules, scope own for user', () => {
    const m = modelOf(['purchase_order', 'product_id:ref(product)', '--owned'], ['product', 'user'], '20261127T0512');
    const edited = policyEdit(m, committed('policy/policy.csv'));
    expect(edited).to.include('p, user, /api/v1/products/{id}/purchase-orders, GET, own');
    expect(edited).to.include('p, moderator, /api/v1/products/{id}/purchase-orders, .*');
  });

  it('reads owned back from a declaration (generate field and migration keep it)', () => {
    const declaration = declareResource({
      name: 'purchase_order',
      plural: 'purchase_orders',
      fields: { number: field.string() },
      owned: true,
    });
    expect(modelOfDeclaration(declaration).owned).to.equal(true);
    expect(modelOfDeclaration({ ...declaration, owned: false }).owned).to.equal(undefined);
  });
});
