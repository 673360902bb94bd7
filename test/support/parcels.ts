import { declareResource, entityOf, field } from '../../src/domain/shared/resource.js';

/**
 * Parcels: a resource whose read-only `status` only its commands move — `pay` (draft → paid) and
 * `ship` (paid → shipped) — as `generate command` declares and writes them.
 */
export const PARCEL = declareResource({
  name: 'parcel',
  plural: 'parcels',
  fields: {
    label: field.string(1, 80),
    status: field.enum(['draft', 'paid', 'shipped']).readonly().default('draft'),
  },
  commands: {
    pay: { field: 'status', from: ['draft'], to: 'paid' },
    ship: { field: 'status', from: ['paid'], to: 'shipped', staffOnly: true },
  },
});

/** A parcel: paid once, then shipped. */
export class Parcel extends entityOf(PARCEL) {
  pay(now: Date): Parcel {
    this.requireState('pay');
    return this.apply({ status: 'paid' }, now);
  }

  ship(now: Date): Parcel {
    this.requireState('ship');
    return this.apply({ status: 'shipped' }, now);
  }
}
