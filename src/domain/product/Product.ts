import { ValidationError, type FieldViolation } from '../shared/DomainError.js';
import { hasInvisibleCharacters, INVISIBLE_MESSAGE, textProblem } from '../shared/Text.js';
import { ProductVersionMismatchError } from './ProductErrors.js';

/** A name is 1 to 200 characters once trimmed, well-formed text with nothing invisible in it. */
export function productNameViolation(name: string): string | undefined {
  const problem = textProblem(name);
  if (problem !== undefined) return problem;
  if (hasInvisibleCharacters(name)) return INVISIBLE_MESSAGE;
  const length = [...name].length;
  return name.trim() !== name || length < 1 || length > 200 ? 'must be 1 to 200 characters' : undefined;
}

/** A price is a finite number greater than 0. */
export function priceViolation(price: number): string | undefined {
  return typeof price !== 'number' || !Number.isFinite(price) || price <= 0 ? 'must be a number greater than 0' : undefined;
}

export interface ProductProps {
  readonly id: string;
  readonly name: string;
  readonly price: number;
  /** Bumped by every change; a conditional write names the version it expects (the REST `ETag`). */
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export interface ProductChanges {
  readonly name?: string;
  readonly price?: number;
}

function guard(changes: ProductChanges): void {
  const violations: FieldViolation[] = [];
  const nameProblem = changes.name === undefined ? undefined : productNameViolation(changes.name);
  if (nameProblem) violations.push({ field: 'name', message: nameProblem });
  const priceProblem = changes.price === undefined ? undefined : priceViolation(changes.price);
  if (priceProblem) violations.push({ field: 'price', message: priceProblem });
  if (violations.length > 0) throw new ValidationError(violations);
}

/** A product: the worked example resource. Immutable; every change bumps the version. */
export class Product {
  private constructor(private readonly props: ProductProps) {}

  /** A new product at version 1; refuses a bad name or price. */
  static create(input: { id: string; name: string; price: number }, now: Date): Product {
    guard(input);
    return new Product({ ...input, version: 1, createdAt: now, updatedAt: now });
  }

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
