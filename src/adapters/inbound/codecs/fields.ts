import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { ValidationError, type FieldViolation } from '../../../domain/shared/DomainError.js';
import { hasInvisibleCharacters, INVISIBLE_MESSAGE, textProblem } from '../../../domain/shared/Text.js';

/**
 * Field codecs shared by the REST and GraphQL adapters, so one rule gives one message in both.
 * Each codec's `name` is the message shown when a value breaks it ("must be …").
 */

export type FieldCodec<A> = t.Type<A, unknown, unknown>;

/** Why a value breaks a rule, when the rule has more than one way to be broken. */
export class Problem {
  constructor(readonly message: string) {}
}

/**
 * A codec from a parse function: `undefined` means the value breaks the rule (reported with
 * `message`), a `Problem` says how it breaks it.
 */
export const rule = <A>(message: string, parse: (u: unknown) => A | Problem | undefined): FieldCodec<A> =>
  new t.Type<A, unknown, unknown>(
    message,
    (u): u is A => {
      const value = parse(u);
      return value !== undefined && !(value instanceof Problem);
    },
    (u, c) => {
      const value = parse(u);
      if (value === undefined) return t.failure(u, c);
      if (value instanceof Problem) return t.failure(u, c, value.message);
      return t.success(value);
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

/** Like `trimmedText`, for text shown to people (names): no invisible characters either (CONTRACT §6). */
export const visibleText = (min: number, max: number): FieldCodec<string> => {
  const text = trimmedText(min, max);
  return rule(text.name, (u) => {
    if (typeof u === 'string' && hasInvisibleCharacters(u)) return new Problem(INVISIBLE_MESSAGE);
    const decoded = text.decode(u);
    return isLeft(decoded) ? undefined : decoded.right;
  });
};

/** One field of an object shape: its codec and whether it must be present. */
export interface FieldSpec<A, R extends boolean = boolean> {
  readonly codec: t.Decoder<unknown, A>;
  readonly required: R;
}

export const required = <A>(codec: FieldCodec<A>): FieldSpec<A, true> => ({ codec, required: true });
export const optional = <A>(codec: FieldCodec<A>): FieldSpec<A, false> => ({ codec, required: false });

export type Shape = Record<string, FieldSpec<unknown>>;
export type Decoded<S extends Shape> = {
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
    // Every text field, whatever its own rule: no NUL, no lone surrogate.
    const problem = typeof value === 'string' ? textProblem(value) : undefined;
    if (problem !== undefined) {
      violations.push({ field: name, message: problem });
      continue;
    }
    const decoded = spec.codec.decode(value);
    if (isLeft(decoded)) violations.push({ field: name, message: decoded.left[0]?.message ?? spec.codec.name });
    else out[name] = decoded.right;
  }
  if (violations.length > 0) throw new ValidationError(violations);
  return out as Decoded<S>;
}
