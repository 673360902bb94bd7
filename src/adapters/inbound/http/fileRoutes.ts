import type Router from '@koa/router';
import type { RouterContext, RouterMiddleware } from '@koa/router';
import { fileFieldsOf, type FileField } from '../../../application/files/FileKit.js';
import { formatSize, PayloadTooLargeError, tooLarge } from '../../../domain/shared/files.js';
import { integerRule, stringRule } from '../../../domain/shared/fieldRules.js';
import type { ResourceDeclaration } from '../../../domain/shared/resource.js';
import { integerField, required, stringField } from '../codecs/fields.js';
import { closedObject, WIRE } from '../codecs/jsonSchema.js';
import { idReader, namesOf, ownerFor, pathsOf, type FileRouteUseCases } from '../resources.js';
import { ifMatchVersions } from './conditional.js';
import { success } from './envelope.js';
import { noContent, ok, RestRoutes, type Guards, type Operation } from './operations.js';
import { streamsBody } from './runtime/index.js';
import type { RequestState } from './state.js';

type Row = { readonly id: string; readonly version: number };

/** Told of every file stored through a route (an upload, a completed direct upload): the metrics. */
export type FileUploaded = (resource: string, field: string, bytes: number) => void;

const START_BODY = {
  contentType: required(stringField(stringRule(1, 255))),
  size: required(integerField(integerRule(0, Number.MAX_SAFE_INTEGER))),
};

const STARTED = {
  title: 'DirectUpload',
  ...closedObject({
    upload_id: { ...WIRE.uuid, description: 'Completes the upload: `POST …/uploads/{upload_id}`' },
    url: WIRE.text('Where to PUT the file, before expires_at'),
    method: { type: 'string', const: 'PUT' },
    headers: {
      type: 'object',
      description: 'The headers the PUT must carry, exactly (the signature binds the size and type)',
      additionalProperties: { type: 'string' },
    },
    expires_at: WIRE.dateTime,
  }),
};

const pascal = (snake: string): string => snake.replace(/(^|_)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());

/**
 * The REST operations of each `file` field of a resource (docs/files.md), by field then by route:
 * `PUT`, `DELETE` and `GET …/{id}/<field>`, `POST …/{id}/<field>/uploads` and
 * `POST …/{id}/<field>/uploads/{upload_id}`. Upload, direct upload and clear are authorised as the
 * item's `PUT`, download as its `GET` (no rule of their own: the item's rules, scope included).
 * `get` is the item's read, whose answer an upload repeats.
 */
export function fileOperationsOf(resource: ResourceDeclaration, get: Operation) {
  const names = namesOf(resource);
  const item = pathsOf(resource).item;
  const one = `the ${names.human.singular}`;
  const notFound = `No ${names.human.singular} has this id (an id that is not a UUID included), or it is another owner's`;
  const asPut = { path: item, method: 'PUT' } as const;
  const ops: Record<string, ReturnType<typeof fieldOperations>> = {};
  function fieldOperations(field: FileField) {
    const path = `${item}/${field.name}`;
    const words = field.name.replace(/_/g, ' ');
    const limits = `${field.types.join(', ')}; at most ${formatSize(field.maxBytes)}`;
    const named = `${names.pascal.singular}${pascal(field.name)}`;
    const base = { tag: get.tag, access: 'policy' } as const;
    const answered = (description: string) => get.answers.map((answer) => ({ ...answer, description }));
    return {
      upload: {
        ...base,
        id: `upload${named}`,
        method: 'PUT',
        path,
        summary: `Upload ${one}'s ${words}`,
        description: `The file is the raw body, its type as Content-Type (${limits}), streamed to storage; a type with a signature (PNG, JPEG, GIF, WebP, PDF…) is checked against the bytes. Replaces the file held before, which is then removed. Allowed when the item's PUT is. With \`If-Match\`, only if the version is still current.`,
        authorizeAs: asPut,
        rawBody: { types: field.types, maxBytes: field.maxBytes },
        ifMatch: true,
        answers: answered(`The ${names.human.singular} with its new ${words}, its new version in ETag`),
        failures: {
          404: notFound,
          413: `The file is larger than ${formatSize(field.maxBytes)} (answered as soon as it is; the connection is closed)`,
          415: `The type is not one of ${field.types.join(', ')}, or the bytes are not of the type sent`,
          503: 'the file storage is unreachable (SERVICE_UNAVAILABLE)',
        },
      },
      clear: {
        ...base,
        id: `clear${named}`,
        method: 'DELETE',
        path,
        summary: `Remove ${one}'s ${words}`,
        description: `Empties the field (its file is then removed). Allowed when the item's PUT is. With \`If-Match\`, only if the version is still current.`,
        authorizeAs: asPut,
        ifMatch: true,
        answers: [noContent(`The ${words} is removed (or was empty)`)],
        failures: { 404: notFound },
      },
      download: {
        ...base,
        id: `download${named}`,
        method: 'GET',
        path,
        summary: `Download ${one}'s ${words}`,
        description: `A redirect to a signed link that serves the file (valid storage.url_ttl; an attachment unless it is an image). Allowed when the item's GET is.`,
        authorizeAs: { path: item, method: 'GET' },
        answers: [{ status: 302, description: `To the ${words}'s signed link`, redirect: true }],
        failures: {
          404: `${notFound}; or it has no ${words}`,
          503: 'the file storage is unreachable (SERVICE_UNAVAILABLE)',
        },
      },
      startUpload: {
        ...base,
        id: `start${named}Upload`,
        method: 'POST',
        path: `${path}/uploads`,
        summary: `Start a direct upload of ${one}'s ${words}`,
        description: `For large files: a presigned PUT straight to storage, binding the size and type (${limits}), valid storage.url_ttl; then complete it. Allowed when the item's PUT is.`,
        authorizeAs: asPut,
        body: START_BODY,
        answers: [ok(201, 'Where and how to PUT the file', STARTED)],
        failures: {
          404: notFound,
          413: `size is larger than ${formatSize(field.maxBytes)}`,
          415: `content_type is not one of ${field.types.join(', ')}`,
          503: 'the file storage is unreachable (SERVICE_UNAVAILABLE)',
        },
      },
      completeUpload: {
        ...base,
        id: `complete${named}Upload`,
        method: 'POST',
        path: `${path}/uploads/:upload_id`,
        summary: `Complete a direct upload of ${one}'s ${words}`,
        description: `Checks the object uploaded (its size, type and first bytes), then sets the field; the file held before is removed. Completing it again answers the item as it is. Allowed when the item's PUT is. With \`If-Match\`, only if the version is still current.`,
        authorizeAs: asPut,
        ifMatch: true,
        answers: answered(`The ${names.human.singular} with its new ${words}, its new version in ETag`),
        failures: {
          404: `${notFound}; or upload_id is not one`,
          409: 'No object was uploaded, or it is larger than allowed, of a type not allowed, or its bytes are not of its type (the message says which; a refused object is removed)',
          503: 'the file storage is unreachable (SERVICE_UNAVAILABLE)',
        },
      },
    } satisfies Record<string, Operation>;
  }
  for (const field of fileFieldsOf(resource)) ops[field.name] = fieldOperations(field);
  return ops;
}

/** Every file operation of a resource, for the API document. */
export const fileOperationList = (resource: ResourceDeclaration, get: Operation): Operation[] =>
  Object.values(fileOperationsOf(resource, get)).flatMap((ops) => Object.values(ops));

/**
 * An upload's body is read by the route, never buffered: a `Content-Length` above the field's
 * largest size is refused at once (413) without reading; a body not read to its end when the
 * answer is given (413 or 415 midway, any refusal) closes the connection rather than draining it.
 */
function streamedBody(field: FileField): RouterMiddleware<RequestState> {
  return async (ctx, next) => {
    const length = ctx.get('content-length');
    if (length !== '' && Number(length) > field.maxBytes) {
      ctx.set('Connection', 'close');
      throw new PayloadTooLargeError(tooLarge(field.name, field.maxBytes));
    }
    try {
      await next();
    } finally {
      if (!ctx.req.complete) ctx.set('Connection', 'close');
    }
  };
}

/** Aborts when the client goes away before its body ended (a write in progress keeps nothing). */
function clientGone(ctx: RouterContext<RequestState>): AbortSignal {
  const controller = new AbortController();
  ctx.req.once('close', () => {
    if (!ctx.req.complete) controller.abort();
  });
  return controller.signal;
}

/**
 * The routes of every `file` field of a resource (docs/files.md), answering an item as `answer`
 * does (the item's own routes' answer, its ETag set): upload (`PUT`, the raw body streamed, 200 with the
 * item), clear (`DELETE`, 204), download (`GET`, 302 to the signed link), a direct upload's start
 * (`POST …/uploads`, 201) and completion (`POST …/uploads/{upload_id}`, 200 with the item).
 */
export function fileFieldRoutes<E extends Row>(
  resource: ResourceDeclaration & { readonly notFound: (id: string) => Error },
  get: Operation,
  files: FileRouteUseCases<E>,
  options: {
    readonly guards: Guards;
    readonly answer: (ctx: RouterContext<RequestState>, entity: E) => unknown;
    readonly uploaded?: FileUploaded;
  },
): (router: Router<RequestState>) => void {
  const { guards, answer, uploaded } = options;
  const idOf = idReader(resource.notFound);
  const owned = (ctx: RouterContext<RequestState>) =>
    ownerFor(resource, ctx.state.access?.scope, ctx.state.principal?.userId);
  const sizeOf = (row: E, field: FileField): number =>
    ((row as unknown as Record<string, { size?: number } | null>)[field.key]?.size ?? 0) as number;
  return (router) => {
    const api = new RestRoutes(router, guards);
    for (const field of fileFieldsOf(resource)) {
      const ops = fileOperationsOf(resource, get)[field.name]!;
      const target = (ctx: RouterContext<RequestState>) => ({
        id: idOf(ctx.params.id),
        field: field.name,
        ...owned(ctx),
      });
      const versions = (ctx: RouterContext<RequestState>) => {
        const expected = ifMatchVersions(ctx.headers['if-match']);
        return expected === undefined ? {} : { expectedVersions: expected };
      };

      api.on(
        ops.upload,
        async (ctx) => {
          const row = await files.upload.execute({
            ...target(ctx),
            ...versions(ctx),
            contentType: ctx.get('content-type') || undefined,
            body: ctx.req,
            signal: clientGone(ctx),
          });
          uploaded?.(resource.plural, field.name, sizeOf(row, field));
          ctx.body = success(await answer(ctx, row));
        },
        streamsBody as RouterMiddleware<RequestState>,
        streamedBody(field),
      );

      api.on(ops.clear, async (ctx) => {
        await files.clear.execute({ ...target(ctx), ...versions(ctx) });
        ctx.status = 204;
      });

      api.on(ops.download, async (ctx) => {
        const url = await files.download.execute(target(ctx));
        ctx.status = 302;
        ctx.set('Location', url);
        ctx.body = '';
      });

      api.on(ops.startUpload, async (ctx, { body }) => {
        const started = await files.startUpload.execute({
          ...target(ctx),
          contentType: body.contentType,
          size: body.size,
        });
        ctx.status = 201;
        ctx.body = success({
          upload_id: started.uploadId,
          url: started.url,
          method: started.method,
          headers: started.headers,
          expires_at: started.expiresAt.toISOString(),
        });
      });

      api.on(ops.completeUpload, async (ctx) => {
        const row = await files.completeUpload.execute({
          ...target(ctx),
          ...versions(ctx),
          uploadId: String(ctx.params.upload_id),
        });
        uploaded?.(resource.plural, field.name, sizeOf(row, field));
        ctx.body = success(await answer(ctx, row));
      });
    }
  };
}
