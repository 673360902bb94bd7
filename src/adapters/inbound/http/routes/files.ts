import type Router from '@koa/router';
import type { Readable } from 'node:stream';
import type { WriteOptions, WrittenObject } from '../../../../application/ports/FileStorage.js';
import { HttpProblem } from '../HttpProblem.js';
import { streamsBody } from '../runtime/index.js';
import type { RequestState } from '../state.js';

/** A link's query parameters, as the request carried them. */
type LinkQuery = Readonly<Record<string, string | string[] | undefined>>;

/**
 * What the `/files/` routes need of the local storage engine: to verify its signed links, open an
 * object with its size, and write one.
 */
export interface ServedFiles {
  /** What a download link to `key` grants; undefined when it is not a valid, unexpired link of that key. */
  allowedDownload(key: string, query: LinkQuery): { contentType: string; attachment: boolean } | undefined;
  /** What a presigned upload to `key` grants; undefined when it is not a valid, unexpired link of that key. */
  allowedUpload(key: string, query: LinkQuery): { contentType: string; size: number } | undefined;
  /** The object's size and bytes; undefined when there is none. */
  open(key: string): Promise<{ size: number; body: Readable } | undefined>;
  write(key: string, body: AsyncIterable<Uint8Array>, options: WriteOptions): Promise<WrittenObject>;
  remove(key: string): Promise<void>;
}

/** The route of the local engine's links (`/files/<key>`). */
export const FILES_ROUTE = '/files/*key';

/** What every file the service serves itself carries: never sniffed, never run as a page in the API's origin. */
const SERVED_FILE_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; sandbox",
};

const refused = (): HttpProblem => new HttpProblem(403, 'FORBIDDEN', 'the link is invalid or has expired');

/**
 * The local engine's signed links (docs/files.md), no token needed — the signature is the grant:
 *
 * - `GET /files/<key>?expires&type&disposition&signature` serves the object with the signed type
 *   (`Content-Disposition: attachment` when signed so), 404 when there is none;
 * - `PUT /files/<key>?expires&type&size&signature`, a presigned upload, stores the body when its
 *   `Content-Type` and `Content-Length` are the signed ones, streamed (never the JSON body parser,
 *   never `server.body_limit`), at most the signed size → 200, empty.
 *
 * A link whose signature does not hold, that expired, or that was made for another key is 403
 * `FORBIDDEN`, as is an upload of another type or size.
 */
export function fileRoutes(files: ServedFiles): (router: Router<RequestState>) => void {
  return (router) => {
    router.get(FILES_ROUTE, async (ctx) => {
      const key = String(ctx.params.key);
      const grant = files.allowedDownload(key, ctx.query);
      if (!grant) throw refused();
      const opened = await files.open(key);
      if (!opened) throw new HttpProblem(404, 'NOT_FOUND', 'file not found');
      ctx.set(SERVED_FILE_HEADERS);
      ctx.set('Content-Type', grant.contentType);
      if (grant.attachment) ctx.set('Content-Disposition', 'attachment');
      ctx.body = opened.body;
      ctx.length = opened.size;
    });

    router.put(FILES_ROUTE, streamsBody, async (ctx) => {
      const key = String(ctx.params.key);
      const grant = files.allowedUpload(key, ctx.query);
      const headers = ctx.req.headers;
      if (
        !grant ||
        headers['transfer-encoding'] !== undefined ||
        headers['content-length'] !== String(grant.size) ||
        headers['content-type']?.trim().toLowerCase() !== grant.contentType
      )
        throw refused();
      // Node reads no more than Content-Length bytes of the body; the limit holds whatever reads it.
      const written = await files.write(key, ctx.req, {
        contentType: grant.contentType,
        maxBytes: grant.size,
        signal: ctx.state.signal,
      });
      if (written.size !== grant.size) {
        await files.remove(key);
        throw refused();
      }
      ctx.status = 200;
      ctx.body = '';
      ctx.remove('Content-Type');
    });
  };
}
