import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { ValidationError, type FieldViolation } from '../../../domain/shared/DomainError.js';

/**
 * Field codecs shared by the REST and GraphQL adapters, so one rule gives one message in both.
 * Each codec's `name` is the message shown when a value breaks it ("must be …").
 */

export type FieldCodec<A> = t.Type<A, unknown, unknown>;

/** A codec from a parse function: `undefined` means the value breaks the rule. */
export const rule = <A>(message: string, parse: (u: unknown) => A | undefined): FieldCodec<A> =>
  new t.Type<A, unknown, unknown>(
    message,
    (u): u is A => parse(u) !== undefined,
    (u, c) => {
      const value = parse(u);
      return value === undefined ? t.failure(u, c) : t.success(value);
    },
    (a) => a,
  );

/** Trimmed text whose length (in characters, after trimming) is within bounds. */
export const trimmedText = (min: number, max: number, message = `must be ${min} to ${max} characters`): FieldCodec<string> =>
  rule(message, (u) => {
    if (typeof u !== 'string') return undefined;
    const text = u.trim();
    const length = [...text].length;
    return length >= min && length <= max ? text : undefined;
  });

/** One field of an object shape: its codec and whether it must be present. */
export interface FieldSpec<A, R extends boolean = boolean> {
  readonly codec: t.Decoder<unknown, A>;
  readonly required: R;
}

export const required = <A>(codec: FieldCodec<A>): FieldSpec<A, true> => ({ codec, required: true });
export const optional = <A>(codec: FieldCodec<A>): FieldSpec<A, false> => ({ codec, required: false });

type Shape = Record<string, FieldSpec<unknown>>;
type Decoded<S extends Shape> = {
  [K in keyof S as S[K]['required'] extends true ? K : never]: S[K] extends FieldSpec<infer A, boolean> ? A : never;
} & {
  [K in keyof S as S[K]['required'] extends true ? never : K]?: S[K] extends FieldSpec<infer A, boolean> ? A : never;
};

/**
 * Decodes an object against a shape, reporting every failing field at once (by its client-facing
 * name) as a ValidationError. Unknown fields are ignored; an absent optional field stays absent;
 * `null` is a value like any other and must pass the codec.
 */
export function decodeFields<S extends Shape>(shape: S, input: unknown, what = 'body'): Decoded<S> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ValidationError([{ field: what, message: 'must be a JSON object' }]);
  }
  const source = input as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const violations: FieldViolation[] = [];
  for (const [name, spec] of Object.entries(shape)) {
    const value = Object.hasOwn(source, name) ? source[name] : undefined;
    if (value === undefined) {
      if (spec.required) violations.push({ field: name, message: 'is required' });
      continue;
    }
    if (typeof value === 'string' && value.includes('\u0000')) {
      // No text field has a use for NUL, and databases cut or refuse strings at it.
      violations.push({ field: name, message: 'must not contain NUL characters' });
      continue;
    }
    const decoded = spec.codec.decode(value);
    if (isLeft(decoded)) violations.push({ field: name, message: spec.codec.name });
    else out[name] = decoded.right;
  }
  if (violations.length > 0) throw new ValidationError(violations);
  return out as Decoded<S>;
}
