import { expect } from 'chai';
import { ConflictError } from '../../../src/domain/shared/DomainError.js';
import { declareResource, entityOf, field } from '../../../src/domain/shared/resource.js';
import { Parcel } from '../../support/parcels.js';
import { describeCommandRules } from '../../support/resource/commands.js';

const fields = {
  label: field.string(),
  status: field.enum(['draft', 'paid', 'shipped']).readonly().default('draft'),
};
const declare = (commands: Record<string, { field: string; from: string[]; to: string }>) => () =>
  declareResource({ name: 'parcel', plural: 'parcels', fields, commands: commands as never });

describe('a declared command', () => {
  it('is checked when declared: an enum field, states it lists, a verb no entity member or route has', () => {
    expect(declare({ ship: { field: 'label', from: ['a'], to: 'b' } })).to.throw(
      'parcel: command ship: label is not an enum field',
    );
    expect(declare({ ship: { field: 'status', from: ['paid', 'lost'], to: 'gone' } })).to.throw(
      'parcel: command ship: status has no state lost (it lists draft, paid, shipped); command ship: status has no state gone (it lists draft, paid, shipped)',
    );
    expect(declare({ ship: { field: 'status', from: [], to: 'shipped' } })).to.throw('no state to start from');
    for (const verb of ['update', 'apply', 'search', 'label', 'mark_paid', 'Ship'])
      expect(declare({ [verb]: { field: 'status', from: ['paid'], to: 'shipped' } }), verb).to.throw(
        `command ${verb}:`,
      );
    expect(declare({ markPaid: { field: 'status', from: ['draft'], to: 'paid' } })).not.to.throw();
  });

  it('refuses another state with a ConflictError naming it (several starting states joined by "or")', () => {
    const OTHER = declareResource({
      name: 'book_order',
      plural: 'book_orders',
      fields,
      commands: { markLost: { field: 'status', from: ['draft', 'paid'], to: 'shipped' } },
    });
    class BookOrder extends entityOf(OTHER) {}
    const order = BookOrder.restore({
      id: 'b1',
      label: 'x',
      status: 'shipped',
      version: 3,
      createdAt: new Date(0),
      updatedAt: new Date(0),
    });
    expect(() => order.requireState('markLost'))
      .to.throw(ConflictError, 'book order is shipped; mark lost needs draft or paid')
      .with.property('detail', 'id: b1');
    expect(() => order.requireState('ship')).to.throw('book_order declares no command ship');
  });
});

describeCommandRules(Parcel);
