import { isRight } from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { parseDuration } from '../../domain/shared/Duration.js';

/**
 * io-ts codecs for configuration values. Each accepts the typed YAML form and the string form
 * that environment variables carry; its `name` completes the sentence `"<value>" is not <name>`.
 */

const fromString = <A>(name: string, parse: (u: unknown) => A | undefined): t.Type<A, unknown, unknown> =>
  new t.Type<A, unknown, unknown>(
    name,
    (u): u is A => parse(u) !== undefined,
    (u, c) => {
      const value = parse(u);
      return value === undefined ? t.failure(u, c) : t.success(value);
    },
    (a) => a,
  );

/** Go duration (`90s`, `1m30s`, `24h`), decoded to positive milliseconds. */
export const Duration = fromString('a duration', (u) => {
  if (typeof u !== 'string') return undefined;
  const ms = parseDuration(u);
  return ms !== undefined && ms > 0 ? ms : undefined;
});

/** A Go duration that may be zero (`0s` turns the thing it bounds off). */
export const DurationOrZero = fromString('a duration (0s allowed)', (u) => {
  if (typeof u !== 'string') return undefined;
  const ms = parseDuration(u);
  return ms !== undefined && ms >= 0 ? ms : undefined;
});

export const Bool = fromString('a boolean', (u) => {
  if (typeof u === 'boolean') return u;
  if (typeof u !== 'string') return undefined;
  const s = u.trim().toLowerCase();
  return s === 'true' ? true : s === 'false' ? false : undefined;
});

/** A boolean that may be left out, which means `false`. */
export const OptionalBool = new t.Type<boolean, unknown, unknown>(
  Bool.name,
  (u): u is boolean => typeof u === 'boolean',
  (u, c) => (u === undefined ? t.success(false) : Bool.validate(u, c)),
  (a) => a,
);

export const intIn = (min: number, max: number): t.Type<number, unknown, unknown> =>
  fromString(`an integer from ${min} to ${max}`, (u) => {
    const n = typeof u === 'number' ? u : typeof u === 'string' && /^\s*-?\d+\s*$/.test(u) ? Number(u) : Number.NaN;
    return Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined;
  });

/** A number from 0 to 1 (a share, such as a sampling ratio). */
export const Ratio = fromString('a number from 0 to 1', (u) => {
  const n = typeof u === 'number' ? u : typeof u === 'string' && u.trim() !== '' ? Number(u) : Number.NaN;
  return Number.isFinite(n) && n >= 0 && n <= 1 ? n : undefined;
});

export const oneOf = <K extends string>(...values: K[]): t.Type<K, unknown, unknown> =>
  fromString(`one of ${values.join(', ')}`, (u) =>
    typeof u === 'string' && (values as string[]).includes(u.trim()) ? (u.trim() as K) : undefined,
  );

export const NonEmptyText = fromString('a non-empty string', (u) =>
  typeof u === 'string' && u.trim() !== '' ? u.trim() : undefined,
);

/** Any text, empty included (empty means "derive it"). */
export const Text = fromString('a string', (u) => (typeof u === 'string' ? u.trim() : undefined));

/** A route path: starts with `/`, no whitespace. */
export const RoutePath = fromString('a path starting with /', (u) =>
  typeof u === 'string' && /^\/\S*$/.test(u) ? u : undefined,
);

/** A list: a YAML sequence of strings or a comma-separated string; items trimmed, empty ones dropped. */
export const List = fromString('a list of strings', (u) => {
  const items =
    typeof u === 'string'
      ? u.split(',')
      : Array.isArray(u) && u.every((x) => typeof x === 'string')
        ? (u as string[])
        : undefined;
  return items?.map((s) => s.trim()).filter((s) => s !== '');
});

const SIZE_UNITS: Readonly<Record<string, number>> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** A byte size: an integer or `<n>b|kb|mb|gb` (case-insensitive). */
export const ByteSize = fromString('a size such as 512kb or 1mb', (u) => {
  if (typeof u === 'number') return Number.isSafeInteger(u) && u > 0 ? u : undefined;
  if (typeof u !== 'string') return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(u);
  if (!m || m[1] === undefined) return undefined;
  const bytes = Math.floor(Number(m[1]) * (SIZE_UNITS[(m[2] ?? 'b').toLowerCase()] ?? 1));
  return bytes > 0 ? bytes : undefined;
});

/** Rate `<count>-<S|M|H|D>`, e.g. `100-M`: decoded to points per window. */
export interface Rate {
  points: number;
  windowSeconds: number;
}
const WINDOW_SECONDS: Readonly<Record<string, number>> = { S: 1, M: 60, H: 3600, D: 86400 };
export const RateText = fromString('a rate such as 100-M (<count>-<S|M|H|D>)', (u): Rate | undefined => {
  if (typeof u !== 'string') return undefined;
  const m = /^\s*(\d+)-([SMHD])\s*$/i.exec(u);
  if (!m || m[1] === undefined || m[2] === undefined) return undefined;
  const points = Number(m[1]);
  const windowSeconds = WINDOW_SECONDS[m[2].toUpperCase()];
  return points > 0 && Number.isSafeInteger(points) && windowSeconds ? { points, windowSeconds } : undefined;
});

const urlWithScheme = (schemes: readonly string[], u: unknown): string | undefined => {
  if (typeof u !== 'string') return undefined;
  try {
    const url = new URL(u);
    return schemes.includes(url.protocol) ? u : undefined;
  } catch {
    return undefined;
  }
};

/** `sqlite:<file>`, `sqlite::memory:`, or a `postgres://` / `postgresql://` URL. */
export const DatabaseUrl = fromString('a database URL (sqlite:<file>, sqlite::memory: or postgres://...)', (u) => {
  if (typeof u !== 'string') return undefined;
  if (/^sqlite:.+/.test(u)) return u;
  return urlWithScheme(['postgres:', 'postgresql:'], u);
});

/** Empty, or a `postgres://` URL (`database.migration_url`: a direct connection for migrations). */
export const OptionalDatabaseUrl = fromString('empty or a postgres:// URL', (u) => {
  if (u === '' || u === null) return '';
  return urlWithScheme(['postgres:', 'postgresql:'], u);
});

/** A list (as {@link List}) of `postgres://` URLs (`database.replica_urls`), each kept as written; empty by default. */
export const DatabaseUrlList = fromString('a list of postgres:// URLs', (u) => {
  const decoded = List.decode(u === null ? [] : u);
  if (!isRight(decoded)) return undefined;
  const urls = decoded.right.map((item) => urlWithScheme(['postgres:', 'postgresql:'], item));
  return urls.every((url) => url !== undefined) ? (urls as string[]) : undefined;
});

/** Empty (no Redis) or a `redis://` / `rediss://` URL. */
export const RedisUrl = fromString('empty or a redis:// URL', (u) => {
  if (u === '' || u === null) return '';
  return urlWithScheme(['redis:', 'rediss:'], u);
});

export const HttpUrl = fromString('an http:// or https:// URL', (u) => urlWithScheme(['http:', 'https:'], u));

export const OptionalHttpUrl = fromString('empty or an http:// or https:// URL', (u) => {
  if (u === '' || u === null) return '';
  return urlWithScheme(['http:', 'https:'], u);
});

/** Empty (no SMTP: the development log mailer) or an `smtp://` / `smtps://` URL, `user:pass@` optional. */
export const SmtpUrl = fromString('empty or an smtp:// or smtps:// URL', (u) => {
  if (u === '' || u === null) return '';
  if (typeof u !== 'string' || /\s/.test(u)) return undefined;
  const url = urlWithScheme(['smtp:', 'smtps:'], u.trim());
  return url !== undefined && new URL(url).hostname !== '' ? url : undefined;
});

/** An address without display name: `local@domain`, no spaces, quotes or brackets. */
const ADDRESS = /^[^\s@<>()",;:\\[\]]+@[^\s@<>()",;:\\[\]]+$/;

/** `no-reply@example.com` or `Name <no-reply@example.com>` (the name may be quoted); one line. */
export const MailAddress = fromString('an e-mail address or "Name <address>"', (u) => {
  if (typeof u !== 'string') return undefined;
  const text = u.trim();
  if ([...text].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)) return undefined;
  if (ADDRESS.test(text)) return text;
  const named = /^(?:"([^"\\]+)"|([^"<>@]+?))\s*<([^<>]+)>$/.exec(text);
  const name = (named?.[1] ?? named?.[2])?.trim();
  return named && name && ADDRESS.test(named[3] ?? '') ? text : undefined;
});

/** The base of the links in account e-mails: absolute http(s), a path allowed, no query or fragment. */
export const LinkBaseUrl = fromString('an absolute http:// or https:// URL without query or fragment', (u) => {
  if (typeof u !== 'string' || /\s/.test(u.trim())) return undefined;
  const url = urlWithScheme(['http:', 'https:'], u.trim());
  if (url === undefined) return undefined;
  const parsed = new URL(url);
  return parsed.hostname !== '' &&
    parsed.search === '' &&
    parsed.hash === '' &&
    !url.includes('?') &&
    !url.includes('#')
    ? url
    : undefined;
});

/** Empty, or a {@link LinkBaseUrl} (without a trailing `/`): where the service's own links start. */
export const OptionalBaseUrl = fromString(
  'empty or an absolute http:// or https:// URL without query or fragment',
  (u) => {
    if (u === '' || u === null) return '';
    const url = LinkBaseUrl.decode(u);
    return isRight(url) ? url.right.replace(/\/+$/, '') : undefined;
  },
);

/** A list (as {@link List}) of absolute http:// or https:// URLs without a fragment, each kept as written. */
export const HttpUrlList = fromString('a list of absolute http:// or https:// URLs without a fragment', (u) => {
  const decoded = List.decode(u);
  if (!isRight(decoded)) return undefined;
  const items = decoded.right;
  const urls = items.map((item) => {
    const url = urlWithScheme(['http:', 'https:'], item);
    return url !== undefined && new URL(url).hostname !== '' && !url.includes('#') ? url : undefined;
  });
  return urls.every((url) => url !== undefined) ? (urls as string[]) : undefined;
});

/** A key the service encrypts or derives secrets with: empty (unset) or at least 32 bytes of text. */
export const SecretKey = fromString('empty or a secret of at least 32 bytes', (u) => {
  if (typeof u !== 'string') return undefined;
  return u === '' || Buffer.byteLength(u, 'utf8') >= 32 ? u : undefined;
});

export const LogLevel = oneOf('trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent');

/** A host name (a WebAuthn RP id): lower-case labels of letters, digits and hyphens, dot-separated; no scheme, port or path. */
export const HostName = fromString('a host name such as example.com (no scheme, port or path)', (u) => {
  if (typeof u !== 'string') return undefined;
  const host = u.trim().toLowerCase();
  return host.length <= 253 && host.split('.').every((label) => /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(label))
    ? host
    : undefined;
});

/**
 * A list of web origins (`https://app.example.com`, `http://localhost:3000`): each an http(s) URL
 * with nothing after its host and port, written as its origin; at least one.
 */
export const OriginList = fromString(
  'a list of origins such as https://app.example.com (scheme, host, port only)',
  (u) => {
    const decoded = List.decode(u);
    if (!isRight(decoded) || decoded.right.length === 0) return undefined;
    const origins: string[] = [];
    for (const item of decoded.right) {
      const url = urlWithScheme(['http:', 'https:'], item);
      if (url === undefined) return undefined;
      const parsed = new URL(url);
      if (parsed.hostname === '' || `${parsed.origin}` !== item.replace(/\/$/, '')) return undefined;
      origins.push(parsed.origin);
    }
    return origins;
  },
);
