import { guardFields, numberRule, stringRule } from '../shared/fieldRules.js';
import { ProductVersionMismatchError } from './ProductErrors.js';

/** Each field's rule under its JSON name; the inbound codecs read client input with the same rules. */
export const PRODUCT_FIELD_RULES = {
  name: stringRule(1, 200),
  price: numberRule({ min: 0, minExclusive: true }),
};

/** The fields a client sets: every one on create, any of them on update. */
export interface ProductFields {
  readonly name: string;
  readonly price: number;
}

/** A partial change: an absent field stays as it is. */
export type ProductChanges = Partial<ProductFields>;

export interface ProductProps {
  readonly id: string;
  readonly name: string;
  readonly price: number;
  /** Bumped by every change; a conditional write names the version it expects (the REST `ETag`). */
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

function guard(changes: ProductChanges): void {
  guardFields(PRODUCT_FIELD_RULES, {
    name: changes.name,
    price: changes.price,
  });
}

/** A product. Immutable; every change bumps the version. */
export class Product {
  private constructor(private readonly props: ProductProps) {}

  /** A new product at version 1; refuses, listing every failing field, a value that breaks its field's rule. */
  static create(input: ProductFields & { readonly id: string }, now: Date): Product {
    guard(input);
    return new Product({
      id: input.id,
      name: input.name,
      price: input.price,
      version: 1,
      createdAt: now,
      updatedAt: now,
    });
  }

  /** A product read back from storage, at its stored version. */
  static restore(props: ProductProps): Product {
    return new Product(props);
  }

  get id(): string {
    return this.props.id;
  }
  get name(): string {
    return this.props.name;
  }
  get price(): number {
    return this.props.price;
  }
  get version(): number {
    return this.props.version;
  }
  get createdAt(): Date {
    return this.props.createdAt;
  }
  get updatedAt(): Date {
    return this.props.updatedAt;
  }

  /**
   * Refuses with ProductVersionMismatchError unless the product is at one of `versions` (the
   * expectation of a conditional write); `undefined` expects nothing, an empty list nothing matches.
   */
  requireVersion(versions: readonly number[] | undefined): void {
    if (versions !== undefined && !versions.includes(this.props.version)) {
      throw new ProductVersionMismatchError(this.props.id);
    }
  }

  /** Applies a partial change: absent fields stay, present ones are checked and set. */
  update(changes: ProductChanges, now: Date): Product {
    guard(changes);
    return new Product({
      ...this.props,
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.price !== undefined ? { price: changes.price } : {}),
      version: this.props.version + 1,
      updatedAt: now,
    });
  }

  toProps(): ProductProps {
    return { ...this.props };
  }
}
