import { expect } from 'chai';
import { ConflictError, PreconditionFailedError, ValidationError } from '../../../src/domain/shared/DomainError.js';
import { declareResource, entityOf, field, READ_ONLY } from '../../../src/domain/shared/resource.js';

/** An invoice declared by hand, with one rule of its own beside the declaration. */
const INVOICE = declareResource({
  name: 'invoice',
  plural: 'invoices',
  fields: {
    customerId: field.ref('customer', 'customers'),
    number: field.string(1, 80),
    total: field.number({ min: 0 }),
    dueAt: field.datetime().optional(),
    notes: field.text(0, 2000).optional(),
    status: field.enum(['draft', 'sent', 'paid']),
  },
  search: 'number',
});

class InvoiceNotDraftError extends ConflictError {
  constructor(id: string) {
    super('only a draft invoice can be sent', `id: ${id}`);
  }
}

/** The entity carries hand-written behaviour beside what the declaration gives it. */
class Invoice extends entityOf(INVOICE) {
  send(now: Date): Invoice {
    if (this.status !== 'draft') throw new InvoiceNotDraftError(this.id);
    return this.update({ status: 'sent' }, now);
  }
}

const T0 = new Date('2026-01-01T00:00:00Z');
const T1 = new Date('2026-01-02T00:00:00Z');
const CUSTOMER = '7d8a9c1e-2b3f-4a5d-8e6f-0a1b2c3d4e5f';
const draft = () =>
  Invoice.create(
    { id: 'a1b2c3d4-0000-4000-8000-000000000001', customerId: CUSTOMER, number: 'INV-1', total: 10, status: 'draft' },
    T0,
  );

describe('a declared resource', () => {
  it('derives the JSON sort keys (every field but text, then the timestamps) and the rules by JSON name', () => {
    expect(INVOICE.sortFields).to.deep.equal([
      'customer_id',
      'number',
      'total',
      'due_at',
      'status',
      'created_at',
      'updated_at',
    ]);
    expect(Object.keys(INVOICE.rules)).to.deep.equal(['customer_id', 'number', 'total', 'due_at', 'notes', 'status']);
  });

  it('refuses a search field that is not a string field', () => {
    expect(() =>
      declareResource({ name: 'x', plural: 'xs', fields: { total: field.number() }, search: 'total' }),
    ).to.throw(/search field total is not a string field/);
  });

  it('creates at version 1 with every getter typed from the declaration; a left-out optional field is null', () => {
    const invoice = draft();
    expect(invoice.version).to.equal(1);
    expect(invoice.number).to.equal('INV-1');
    expect(invoice.dueAt).to.equal(null);
    expect(invoice.notes).to.equal(null);
    expect(invoice.createdAt).to.equal(T0);
    expect(invoice).to.be.instanceOf(Invoice);
  });

  it('refuses every field that breaks its rule at once, by JSON name, on create and on update', () => {
    const attempt = () => Invoice.create({ id: 'x', customerId: 'nope', number: '', total: -1, status: 'draft' }, T0);
    expect(attempt).to.throw(ValidationError);
    try {
      attempt();
    } catch (error) {
      expect((error as ValidationError).fields.map((f) => f.field)).to.deep.equal(['customer_id', 'number', 'total']);
    }
    expect(() => draft().update({ dueAt: new Date(Number.NaN) }, T1)).to.throw(ValidationError);
  });

  it('updates only the present fields, bumps the version, moves updatedAt, and null clears an optional field', () => {
    const noted = draft().update({ notes: 'first' }, T1);
    const cleared = noted.update({ notes: null, total: 12.5 }, T1);
    expect([noted.version, cleared.version]).to.deep.equal([2, 3]);
    expect(cleared.notes).to.equal(null);
    expect(cleared.total).to.equal(12.5);
    expect(cleared.number).to.equal('INV-1');
    expect(cleared.updatedAt).to.equal(T1);
    expect(cleared.createdAt).to.equal(T0);
  });

  it('keeps the subclass and its own behaviour through changes: only a draft can be sent', () => {
    const sent = draft().send(T1);
    expect(sent).to.be.instanceOf(Invoice);
    expect(sent.status).to.equal('sent');
    expect(() => sent.send(T1)).to.throw(InvoiceNotDraftError);
  });

  it('refuses an unexpected version with the resource’s own error', () => {
    expect(() => draft().requireVersion([2])).to.throw(
      PreconditionFailedError,
      'invoice is not at the expected version',
    );
    expect(() => draft().requireVersion(undefined)).not.to.throw();
  });

  it('round-trips through its stored props', () => {
    const invoice = draft().update({ notes: 'x' }, T1);
    const restored = Invoice.restore(invoice.toProps());
    expect(restored.toProps()).to.deep.equal(invoice.toProps());
    expect(restored).to.be.instanceOf(Invoice);
  });

  describe('defaults and read-only fields', () => {
    const ORDER = declareResource({
      name: 'order',
      plural: 'orders',
      fields: {
        number: field.string(1, 20),
        shipBy: field.date().optional().default('2026-03-01'),
        quantity: field.integer(1, 99).default(1),
        status: field.enum(['placed', 'shipped']).readonly().default('placed'),
        trackedAt: field.datetime().optional().readonly(),
      },
    });
    class Order extends entityOf(ORDER) {
      ship(now: Date): Order {
        return this.apply({ status: 'shipped', trackedAt: now }, now);
      }
    }
    const ID = 'a1b2c3d4-0000-4000-8000-000000000009';
    const refusal = (act: () => unknown): unknown => {
      try {
        act();
      } catch (error) {
        return error;
      }
      return expect.fail('expected a refusal');
    };
    const readOnly = (field: string) => [{ field, message: READ_ONLY }];

    it('a create that leaves a defaulted field out stores its default; a value given is kept; a read-only one without a default is null', () => {
      const order = Order.create({ id: ID, number: 'A-1' }, T0);
      expect(order.toProps()).to.deep.include({
        shipBy: '2026-03-01',
        quantity: 1,
        status: 'placed',
        trackedAt: null,
      });
      expect(Order.create({ id: ID, number: 'A-1', quantity: 3, shipBy: null }, T0).toProps()).to.deep.include({
        quantity: 3,
        shipBy: null,
      });
    });

    it('a create may send a read-only field only as a create stores it: its default, else null', () => {
      expect(Order.create({ id: ID, number: 'A-1', status: 'placed', trackedAt: null }, T0).status).to.equal('placed');
      const error = refusal(() => Order.create({ id: ID, number: 'A-1', status: 'shipped', trackedAt: T0 }, T0));
      expect(error).to.be.instanceOf(ValidationError);
      expect((error as ValidationError).fields).to.deep.equal([...readOnly('status'), ...readOnly('tracked_at')]);
    });

    it('an update may send a read-only field back as it is (an instant by its time), never change it; the entity itself may', () => {
      const order = Order.create({ id: ID, number: 'A-1' }, T0);
      const kept = order.update({ status: 'placed', trackedAt: null, quantity: 2 }, T1);
      expect(kept.toProps()).to.deep.include({ status: 'placed', quantity: 2, version: 2 });
      expect((refusal(() => order.update({ status: 'shipped' }, T1)) as ValidationError).fields).to.deep.equal(
        readOnly('status'),
      );
      const shipped = order.ship(T1);
      expect(shipped.toProps()).to.deep.include({ status: 'shipped', trackedAt: T1, version: 2 });
      expect(shipped.update({ trackedAt: new Date(T1.getTime()), status: 'shipped' }, T1).version).to.equal(3);
      expect((refusal(() => shipped.update({ trackedAt: null }, T1)) as ValidationError).fields).to.deep.equal(
        readOnly('tracked_at'),
      );
    });

    it('every failing field once: a value breaking its rule is reported for the rule, beside the other failures', () => {
      const error = refusal(() =>
        Order.create({ id: ID, number: '', status: 'lost' as never, quantity: 0, trackedAt: T0 }, T0),
      );
      expect((error as ValidationError).fields).to.deep.equal([
        { field: 'number', message: 'must be 1 to 20 characters' },
        { field: 'quantity', message: 'must be an integer from 1 to 99' },
        { field: 'status', message: 'must be one of placed, shipped' },
        ...readOnly('tracked_at'),
      ]);
    });

    it('a default is read with the field rule when declared: one that breaks it is refused', () => {
      expect(() => field.integer(1, 99).default(0)).to.throw('the default 0 must be an integer from 1 to 99');
      expect(() => field.date().default('2026-02-30')).to.throw('must be a date (YYYY-MM-DD)');
      expect(field.date().default(' 2026-01-01 ').defaultValue).to.equal('2026-01-01');
    });
  });
});
