import type Router from '@koa/router';
import type { RouterContext, RouterMiddleware } from '@koa/router';
import type { Authenticate } from '../../../application/auth/Authenticate.js';
import type { AccessPolicy } from '../../../application/ports/AccessPolicy.js';
import { decodeBody, type Decoded, type Shape } from '../codecs/fields.js';
import { arrayOf, closedObject, type JsonSchema } from '../codecs/jsonSchema.js';
import type { ListQuery } from '../../../domain/shared/Page.js';
import { LIST_DEFAULTS, listQueryDecoder, type DefaultSort, type ListQuerySpec } from '../codecs/listCodecs.js';
import { authenticate } from './middleware/authenticate.js';
import { authorize } from './middleware/authorize.js';
import type { RequestState } from './state.js';

/**
 * A REST operation, written once: the route registers its handler under it (method, path, guards,
 * the body and query it decodes), and the API document (README: API document) is read off the same object,
 * so neither can say something the other does not.
 */
export interface Operation {
  /** The document's operationId (`createProduct`). */
  readonly id: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The router's pattern (`/api/v1/products/:id`). */
  readonly path: string;
  readonly tag: Tag;
  readonly summary: string;
  readonly description?: string;
  /**
   * `public`: no token; `token`: a valid access token; `policy`: a token whose role the access
   * policy lets use this path with this method.
   */
  readonly access: 'public' | 'token' | 'policy';
  /**
   * `token` only: a second factor's enrolment route, open to a caller whose role needs a second
   * factor and who has none yet (`auth.mfa.required_roles`; every other route answers them 403).
   */
  readonly enrolment?: boolean;
  /**
   * `policy` only: other routes (their patterns) whose GET the caller's role must be allowed too —
   * a nested list's parent row, so that a role that may not read customers cannot learn from a 404
   * which customers exist.
   */
  readonly readsToo?: readonly string[];
  /**
   * `policy` only: the route (its pattern) and method the policy is asked about instead of this
   * one's own — a file route follows its item's rules (docs/files.md): an upload its `PUT`, a
   * download its `GET`.
   */
  readonly authorizeAs?: { readonly path: string; readonly method: 'GET' | 'PUT' };
  /**
   * The body is the raw file, streamed by the route (never parsed as JSON): the types it takes and
   * its largest size, for the document's request body and its 413 and 415.
   */
  readonly rawBody?: { readonly types: readonly string[]; readonly maxBytes: number };
  /** The JSON body it decodes (keys in camel or snake case; on the wire in snake case). */
  readonly body?: Shape;
  /** Path parameters that are not ids (`provider`): each one's description; the others are UUIDs. */
  readonly pathNames?: Readonly<Record<string, string>>;
  /** Query parameters the handler reads itself (not a list query): each one's description and whether it must be there. */
  readonly queryParams?: readonly { readonly name: string; readonly description: string; readonly required: boolean }[];
  /** The list query (`page`, `per_page`, `sort`, `order`, `q`, filters) it decodes. */
  readonly list?: ListQuerySpec;
  /** Takes `If-Match` (412 when stale). */
  readonly ifMatch?: boolean;
  /** Counted by the rate limiter (default true; health probes and the API document are not). */
  readonly rateLimited?: boolean;
  /** What it answers when it succeeds (and, for health probes, when it reports `down`). */
  readonly answers: readonly Answer[];
  /** When it answers these failures, in its own words (the document adds the ones every route shares). */
  readonly failures?: Readonly<Partial<Record<400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 503, string>>>;
}

/** A group of operations in the document. */
export interface Tag {
  readonly name: string;
  readonly description: string;
}

/** One answer: its status, what it means, its body's schema (none for 204) and the headers it carries. */
export interface Answer {
  readonly status: number;
  readonly description: string;
  readonly body?: JsonSchema;
  /** `ETag`: the answer carries one resource's version. */
  readonly etag?: boolean;
  /** `Location`: the answer names the path of the item it created. */
  readonly location?: boolean;
  /**
   * `Location`: a redirect — `true` to a stored file's signed link; `identity-provider` to a provider's
   * sign-in page; `front-end` to an allowed front-end URL with the outcome of a sign-in.
   */
  readonly redirect?: true | 'identity-provider' | 'front-end';
}

/** Keeps an operation's literal types (its body shape, its sort fields) for the handler's input. */
export const operation = <const O extends Operation>(op: O): O => op;

/** The success envelope around `data` (docs/errors.md). */
export function envelopeSchema(data: JsonSchema, meta?: JsonSchema): JsonSchema {
  return closedObject({ success: { const: true }, data, ...(meta ? { meta } : {}) });
}

/** `meta` of every list answer. */
export const PAGE_META_SCHEMA: JsonSchema = {
  title: 'PageMeta',
  ...closedObject({
    page: { type: 'integer', minimum: 1, description: 'This page, from 1' },
    per_page: {
      type: 'integer',
      minimum: 1,
      maximum: 100,
      description: 'Items per page',
      default: LIST_DEFAULTS.perPage,
    },
    total: { type: 'integer', minimum: 0, description: 'Items in the whole list' },
    total_pages: { type: 'integer', minimum: 0, description: 'ceil(total / per_page); 0 when the list is empty' },
  }),
};

/** A success answer whose `data` is `schema`. */
export const ok = (
  status: number,
  description: string,
  schema: JsonSchema,
  options: { etag?: boolean; location?: boolean } = {},
): Answer => ({
  status,
  description,
  body: envelopeSchema(schema),
  ...options,
});

/** A page of a list: `data` the items, `meta` the pagination. */
export const page = (description: string, item: JsonSchema): Answer => ({
  status: 200,
  description,
  body: envelopeSchema(arrayOf(item), PAGE_META_SCHEMA),
});

/** 204, no body. */
export const noContent = (description: string): Answer => ({ status: 204, description });

/** A body that is not the envelope (health reports, the API document). */
export const raw = (status: number, description: string, body: JsonSchema): Answer => ({ status, description, body });

/** A 202: the request is taken (`data` null, a `message` saying what happens next, e.g. by e-mail). */
export const accepted = (description: string): Answer =>
  raw(
    202,
    description,
    closedObject({ success: { const: true }, data: { type: 'null' }, message: { type: 'string' } }),
  );

/** What a handler gets, decoded per its operation (after the guards): its body and its list query. */
export interface Input<O extends Operation> {
  readonly body: O['body'] extends Shape ? Decoded<O['body']> : undefined;
  readonly query: O['list'] extends ListQuerySpec<infer F> ? ListQuery<F | DefaultSort> : undefined;
}

export type Handler<O extends Operation> = (ctx: RouterContext<RequestState>, input: Input<O>) => Promise<void>;

/** What the guards of `token` and `policy` operations ask. */
export interface Guards {
  readonly authenticate?: Authenticate;
  readonly policy?: AccessPolicy;
}

/** Registers operations' handlers on a router, each behind the guards its `access` names. */
export class RestRoutes {
  private readonly auth: RouterMiddleware<RequestState> | undefined;
  private readonly enrolling: RouterMiddleware<RequestState> | undefined;

  constructor(
    private readonly router: Router<RequestState>,
    private readonly guards: Guards = {},
  ) {
    this.auth = guards.authenticate ? authenticate(guards.authenticate) : undefined;
    this.enrolling = guards.authenticate ? authenticate(guards.authenticate, true) : undefined;
  }

  /**
   * `handler` answers `op`: token and policy checked first (as `op.access` says), then the body and
   * list query decoded (a well-formed body is validated only after auth, docs/http.md). `before` runs
   * ahead of the guards (routing decisions, such as `/search` never being an id).
   */
  on<O extends Operation>(op: O, handler: Handler<O>, ...before: RouterMiddleware<RequestState>[]): void {
    const body = op.body;
    const list = op.list ? listQueryDecoder(op.list) : undefined;
    const run: RouterMiddleware<RequestState> = (ctx) =>
      handler(ctx, {
        body: body ? decodeBody(body, ctx.request.body, ctx.request.rawBody) : undefined,
        query: list ? list(ctx.query) : undefined,
      } as Input<O>);
    const middleware = [...before, ...this.guardsOf(op), run];
    const [first, ...rest] = middleware as [RouterMiddleware<RequestState>, ...RouterMiddleware<RequestState>[]];
    switch (op.method) {
      case 'GET':
        this.router.get(op.path, first, ...rest);
        break;
      case 'POST':
        this.router.post(op.path, first, ...rest);
        break;
      case 'PUT':
        this.router.put(op.path, first, ...rest);
        break;
      case 'DELETE':
        this.router.delete(op.path, first, ...rest);
        break;
    }
  }

  private guardsOf(op: Operation): RouterMiddleware<RequestState>[] {
    if (op.access === 'public') return [];
    if (!this.auth) throw new Error(`${op.id}: a ${op.access} operation needs the Authenticate use case`);
    if (op.access === 'token') return [op.enrolment && this.enrolling ? this.enrolling : this.auth];
    if (!this.guards.policy) throw new Error(`${op.id}: a policy operation needs the access policy`);
    const as = op.authorizeAs;
    return [
      this.auth,
      authorize(this.guards.policy, as?.path ?? op.path, op.readsToo, as?.method) as RouterMiddleware<RequestState>,
    ];
  }
}
