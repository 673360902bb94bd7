import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';
import type Koa from 'koa';

/** A header name and its value. */
export type Header = readonly [name: string, value: string];

export interface SecurityHeaderOptions {
  /** `server.hsts`: `Strict-Transport-Security` too, for a service reached over HTTPS only. */
  hsts: boolean;
}

/**
 * The headers every answer carries (README: Metrics and Tracing), the app's and those Node's parser
 * makes the server write on the socket alike: `X-Content-Type-Options: nosniff`,
 * `Referrer-Policy: no-referrer`, `X-Frame-Options: DENY`, and with `hsts`
 * `Strict-Transport-Security: max-age=31536000; includeSubDomains`. Helmet writes them, configured
 * to these four and nothing else: no `Cross-Origin-Resource-Policy` (the JSON API is read by browser
 * apps on other origins), no `Cross-Origin-Opener-Policy` or `Origin-Agent-Cluster`, no
 * Content-Security-Policy (only the pages have one, their own: `pagePolicy.ts`), none of the
 * legacy `X-DNS-Prefetch-Control`, `X-Download-Options`, `X-Permitted-Cross-Domain-Policies`,
 * `X-XSS-Protection`. Helmet's `X-Powered-By` removal is off: nothing in the service writes that
 * header (Koa does not), and a removal is not a header to write.
 *
 * Helmet runs once, here, at start-up, against a response that only records `setHeader`; the
 * list it wrote is what {@link writeSecurityHeaders} sets per answer, and what the answers written
 * without any middleware (the socket's 431/400/408 in `httpServer.ts`, the metrics listener) carry.
 * Not helmet per request: these values never change for the life of the process (no CSP nonce),
 * those other answers need the list anyway, and helmet per request walks a chain of closures
 * with a `next` callback each where a loop over the list does the same `setHeader` calls.
 */
export function securityHeaderList(options: SecurityHeaderOptions): readonly Header[] {
  return headersWrittenBy({
    contentSecurityPolicy: false,
    crossOriginEmbedderPolicy: false,
    crossOriginOpenerPolicy: false,
    crossOriginResourcePolicy: false,
    originAgentCluster: false,
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: options.hsts ? { maxAge: 31_536_000, includeSubDomains: true, preload: false } : false,
    xContentTypeOptions: true,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xFrameOptions: { action: 'deny' },
    xPermittedCrossDomainPolicies: false,
    xPoweredBy: false,
    xXssProtection: false,
  });
}

/**
 * Runs helmet once against a response that records what it sets. Helmet's middleware is
 * synchronous; anything else (an error, a later `next`, a call other than `setHeader`) fails start-up.
 */
function headersWrittenBy(options: HelmetOptions): readonly Header[] {
  const headers: Header[] = [];
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers.push([name, String(value)]);
      return recorder;
    },
  };
  let done = false;
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error !== undefined) throw error instanceof Error ? error : new Error(String(error));
    done = true;
  });
  if (!done) throw new Error('helmet did not finish at once: its headers cannot be worked out at start-up');
  return Object.freeze(headers);
}

/**
 * Sets `headers` on an answer: the spine's first step, before anything else runs, so they stay on
 * what recovery answers (it only adds headers); {@link keepOnKoaErrors} covers Koa's own error
 * answer, which removes every header first.
 */
export function writeSecurityHeaders(res: ServerResponse, headers: readonly Header[]): void {
  for (const [name, value] of headers) res.setHeader(name, value);
}

/**
 * Koa answers an error that escapes the middleware (one thrown above recovery: the request logger,
 * a failing log destination) itself: it removes every header, then sets the error's `headers`.
 * Those get `headers` first, so even that answer carries them.
 */
export function keepOnKoaErrors(app: Pick<Koa, 'context'>, headers: readonly Header[]): void {
  if (headers.length === 0) return;
  const onerror = app.context.onerror;
  app.context.onerror = function (this: Koa.Context, error: unknown) {
    // Nothing to answer, as Koa's own handler does for it (`ctx.onerror` doubles as a node-style callback).
    if (error === null || error === undefined) return;
    const target = error instanceof Error ? error : new Error(`non-error thrown: ${String(error)}`);
    const own = (target as { headers?: unknown }).headers;
    (target as { headers?: unknown }).headers = {
      ...Object.fromEntries(headers),
      ...(typeof own === 'object' ? own : {}),
    };
    onerror.call(this, target);
  };
}
