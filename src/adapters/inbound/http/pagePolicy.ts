/**
 * What the service's own HTML pages (`/docs`, the GraphQL playground) may load: their own scripts,
 * styles, images, fonts and calls to the service; nothing inline (no `'unsafe-inline'`, no
 * `'unsafe-eval'`: Swagger UI and GraphiQL set styles through the DOM, which CSP allows), no
 * frames, no forms elsewhere, and no page may frame them.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/*
 * No `Cross-Origin-Opener-Policy` on them: served over plain HTTP (development, an internal
 * address) Chromium ignores it and logs an error on every load.
 * No `Cross-Origin-Resource-Policy` on the API: browser apps on other origins read it.
 */
