const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The id from a path or argument when it is a UUID (lower-cased), else `undefined`: an id that
 * cannot name anything is answered like an unknown one, without a query.
 */
export function uuidOf(raw: unknown): string | undefined {
  const id = raw === undefined || raw === null ? '' : String(raw);
  return UUID.test(id) ? id.toLowerCase() : undefined;
}

/**
 * The id from a path or argument, or the resource's not-found error (built from the raw text) when
 * it cannot name one: answered like an unknown id, without a query.
 */
export function idOf(raw: unknown, notFound: (raw: string) => Error): string {
  const id = uuidOf(raw);
  if (id === undefined) throw notFound(raw === undefined || raw === null ? '' : String(raw));
  return id;
}
