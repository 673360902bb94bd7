import type { BindToFluentSyntax, ServiceIdentifier } from 'inversify';

/**
 * A value made from dependencies named by their tokens. A module declares what it needs this way
 * and is given it; it never sees the container, and a factory's dependencies are matched by name,
 * never by their position in a list.
 */
export interface Built<T> {
  readonly needs: Readonly<Record<string, ServiceIdentifier>>;
  build(deps: Readonly<Record<string, unknown>>): T;
}

/** `build` given the values of `needs`' tokens under the same names. */
export function built<D extends object, T>(
  needs: { readonly [K in keyof D]: ServiceIdentifier<D[K]> },
  build: (deps: D) => T,
): Built<T> {
  return { needs, build: (deps) => build(deps as D) };
}

/** Binds `binding` to what `made` builds, resolved once from the container (a singleton). */
export function bindBuilt<T>(binding: BindToFluentSyntax<T>, made: Built<T>): void {
  const names = Object.keys(made.needs);
  binding.toResolvedValue(
    (...values: unknown[]) => made.build(Object.fromEntries(names.map((name, i) => [name, values[i]]))),
    names.map((name) => made.needs[name]!),
  );
}

/** What `made` builds from `get` (the composition root's container lookup). */
export function buildWith<T>(made: Built<T>, get: (token: ServiceIdentifier) => unknown): T {
  return made.build(Object.fromEntries(Object.entries(made.needs).map(([name, token]) => [name, get(token)])));
}
