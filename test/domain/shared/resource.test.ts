import { expect } from 'chai';
import { ConflictError, PreconditionFailedError, ValidationError } from '../../../src/domain/shared/DomainError.js';
import { declareResource, entityOf, field } from '../../../src/domain/shared/resource.js';

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
});
