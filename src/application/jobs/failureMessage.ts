/** The longest `last_error` kept: a line for an admin, not a dump. */
export const FAILURE_MESSAGE_MAX = 500;

/** An e-mail address as mail servers and drivers quote it in their messages. */
const ADDRESS = /[^\s<>()[\]"',;:@]+@[^\s<>()[\]"',;:@]+/g;
/** A run of token characters long enough to be a secret: e-mailed tokens, JWTs, keys, hashes. */
const SECRET_LIKE = /[A-Za-z0-9_+/=-]{32,}/g;
/** A UUID (a job's or a row's id) is kept: it names what failed and is no secret. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * What a failed run keeps as its job's `last_error` (shown by the jobs admin API and the CLI, and
 * stored with the job): the error's first line, with e-mail addresses and anything shaped like a
 * secret replaced, at most FAILURE_MESSAGE_MAX characters. Errors of drivers and servers quote
 * what they were given (an SMTP reply names its recipient), and a job's payload holds addresses.
 */
export function failureMessage(error: unknown): string {
  const raw = error instanceof Error ? error.message : String(error);
  const firstLine = raw.split(/\r?\n/, 1)[0] ?? '';
  const cleaned = firstLine
    .replace(ADDRESS, '<address>')
    .replace(SECRET_LIKE, (run) => (UUID.test(run) ? run : '<redacted>'));
  return cleaned.length > FAILURE_MESSAGE_MAX ? `${cleaned.slice(0, FAILURE_MESSAGE_MAX - 1)}…` : cleaned;
}
