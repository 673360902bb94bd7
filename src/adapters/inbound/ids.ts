const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The id from a path or argument when it is a UUID (lower-cased), else `undefined`: an id that
 * cannot name anything is answered like an unknown one, without a query.
 */
export function uuidOf(raw: unknown): string | undefined {
  const id = raw === undefined || raw === null ? '' : String(raw);
  return UUID.test(id) ? id.toLowerCase() : undefined;
}
