import { isDeepStrictEqual } from 'node:util';
import type { Shape } from '../codecs/fields.js';
import { snakeName } from '../codecs/fields.js';
import { closedObject, exampleOf, type JsonSchema } from '../codecs/jsonSchema.js';
import { listQueryShape } from '../codecs/listCodecs.js';
import { policyPath } from './middleware/authorize.js';
import type { Answer, Operation } from './operations.js';
import { formatSize } from '../../../domain/shared/files.js';

/** The OpenAPI 3.1 document (README: API document), as plain JSON. */
export type OpenApiDocument = Record<string, unknown> & {
  readonly openapi: '3.1.0';
  readonly paths: Record<string, Record<string, OpenApiOperation>>;
  readonly components: { readonly schemas: Record<string, JsonSchema> } & Record<string, unknown>;
};

export interface OpenApiOperation {
  readonly operationId: string;
  readonly responses: Record<string, { description: string; content?: { 'application/json': { schema: JsonSchema } } }>;
  readonly [key: string]: unknown;
}

export interface DocumentInfo {
  readonly title: string;
  readonly version: string;
  readonly description: string;
}

/**
 * The error codes each failing status answers with (docs/errors.md), and the name of its schema.
 * The end-to-end tests validate every answer against these, so a code added without its line here fails them.
 */
export const ERROR_STATUSES: Readonly<Record<number, { readonly schema: string; readonly codes: readonly string[] }>> =
  {
    400: { schema: 'BadRequestError', codes: ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_TOKEN'] },
    401: { schema: 'UnauthorizedError', codes: ['UNAUTHORIZED'] },
    403: { schema: 'ForbiddenError', codes: ['FORBIDDEN', 'EMAIL_NOT_VERIFIED', 'MFA_ENROLLMENT_REQUIRED'] },
    404: { schema: 'NotFoundError', codes: ['NOT_FOUND'] },
    405: { schema: 'MethodNotAllowedError', codes: ['METHOD_NOT_ALLOWED'] },
    409: { schema: 'ConflictError', codes: ['CONFLICT'] },
    412: { schema: 'PreconditionFailedError', codes: ['PRECONDITION_FAILED'] },
    413: { schema: 'PayloadTooLargeError', codes: ['PAYLOAD_TOO_LARGE'] },
    415: { schema: 'UnsupportedMediaTypeError', codes: ['UNSUPPORTED_MEDIA_TYPE'] },
    429: { schema: 'RateLimitedError', codes: ['RATE_LIMITED'] },
    431: { schema: 'HeadersTooLargeError', codes: ['HEADERS_TOO_LARGE'] },
    500: { schema: 'InternalError', codes: ['INTERNAL_ERROR'] },
    503: { schema: 'UnavailableError', codes: ['TIMEOUT', 'OVERLOADED', 'SERVICE_UNAVAILABLE'] },
  };

/** The error envelope (docs/errors.md) with the codes a status answers with. */
export function errorSchema(status: number): JsonSchema {
  const codes = ERROR_STATUSES[status]?.codes;
  return closedObject({
    success: { const: false },
    error: {
      type: 'object',
      properties: {
        code: codes ? { type: 'string', enum: codes } : { type: 'string' },
        message: { type: 'string', description: 'What went wrong, for people' },
        detail: { type: 'string', description: 'More about it, when there is more (`id: <id>`)' },
        fields: {
          type: 'array',
          description: 'VALIDATION_ERROR: every failing field or parameter, by its JSON name',
          items: closedObject({ field: { type: 'string' }, message: { type: 'string' } }),
        },
      },
      required: ['code', 'message'],
      additionalProperties: false,
    },
  });
}

const header = (description: string, schema: JsonSchema = { type: 'integer' }, required = false) => ({
  description,
  ...(required ? { required } : {}),
  schema,
});

/** Response headers, each described once (`required`: every answer that lists it carries it). */
const HEADERS = {
  'X-Request-ID': header(
    'The request id: the incoming one when it is 1 to 128 of [A-Za-z0-9._-], else a new UUID',
    { type: 'string' },
    true,
  ),
  'X-RateLimit-Limit': header('Requests allowed per window (when rate limiting is on)'),
  'X-RateLimit-Remaining': header('Requests left in this window'),
  'X-RateLimit-Reset': header('Seconds until the window resets'),
  'Retry-After': header('Seconds to wait before trying again'),
  ETag: header(
    'The version of the resource, as a strong tag (`"3"`); send it back in If-Match',
    { type: 'string' },
    true,
  ),
  Location: header('The path of the item created (`/api/v1/products/{id}`)', { type: 'string' }, true),
  /** `Location` of a redirect to a stored file. */
  'Location-file': header('The signed link that serves the file, valid storage.url_ttl', { type: 'string' }, true),
  /** `Location` of a redirect to an identity provider. */
  'Location-identity-provider': header(
    "The identity provider's authorization URL (code flow, PKCE S256, `state`, `nonce`)",
    { type: 'string' },
    true,
  ),
  /** `Location` of a redirect back to a front end after a sign-in at a provider. */
  'Location-front-end': header(
    'The `redirect_uri` the sign-in started with, with `?code=<one-time code>` or `?error=<error code>`',
    { type: 'string' },
    true,
  ),
  'WWW-Authenticate': header('The challenge: `Bearer`', { type: 'string', const: 'Bearer' }, true),
  /** `Retry-After` on 429, which always has it (503 has it only when it is OVERLOADED). */
  'Retry-After-429': header('Seconds to wait before trying again', { type: 'integer', minimum: 1 }, true),
  /** `WWW-Authenticate` on a 401 that may also be about something else than the bearer token (logout's refresh token). */
  'WWW-Authenticate-if-bearer': header('The challenge `Bearer`, when it is the access token that is refused', {
    type: 'string',
    const: 'Bearer',
  }),
} as const;

type HeaderName = keyof typeof HEADERS;

/** The header a component describes (`Retry-After-429` is `Retry-After`). */
const headerName = (name: HeaderName): string =>
  (
    ({
      'Retry-After-429': 'Retry-After',
      'WWW-Authenticate-if-bearer': 'WWW-Authenticate',
      'Location-file': 'Location',
      'Location-identity-provider': 'Location',
      'Location-front-end': 'Location',
    }) as Record<string, string>
  )[name as string] ?? name;

/** Statuses every operation of a kind may answer, and why. */
function failuresOf(op: Operation): Map<number, { description: string; headers?: HeaderName[] }> {
  const failures = new Map<number, { description: string; headers?: HeaderName[] }>();
  const own = op.failures ?? {};
  const readsBody = op.method !== 'GET';
  // Answered by the HTTP layer on any route, before the app sees the request (connection closed).
  const bad: string[] = ['the request is not well-formed HTTP (BAD_REQUEST)'];
  if (readsBody && !op.rawBody) bad.push('the body is not JSON (BAD_REQUEST)');
  if (op.body || op.list) bad.push('a field or parameter breaks its rule (VALIDATION_ERROR, each one in `fields`)');
  if (op.access !== 'public') bad.push('two Authorization headers (BAD_REQUEST)');
  if (op.ifMatch) bad.push('If-Match is not `*` or a list of quoted versions (BAD_REQUEST)');
  if (own[400]) bad.push(own[400]);
  failures.set(400, { description: `Bad request: ${bad.join('; ')}` });
  if (op.access !== 'public' || own[401]) {
    const refused =
      'The access token is missing, malformed, expired, of the wrong type or wrongly signed, or its user is gone';
    const why =
      op.access === 'public' ? [own[401]] : own[401] ? [`${refused} (with WWW-Authenticate)`, own[401]] : [refused];
    const challenge: HeaderName | undefined =
      op.access === 'public' ? undefined : own[401] ? 'WWW-Authenticate-if-bearer' : 'WWW-Authenticate';
    failures.set(401, { description: why.join('; or '), ...(challenge ? { headers: [challenge] } : {}) });
  }
  const forbidden = [
    ...(op.access === 'policy' ? ["The access policy does not let the caller's role use this route"] : []),
    ...(op.access !== 'public' && !op.enrolment
      ? [
          "The caller's role needs a second factor (`auth.mfa.required_roles`) and none is on yet: only " +
            'its enrolment is open (MFA_ENROLLMENT_REQUIRED)',
        ]
      : []),
    ...(own[403] ? [own[403]] : []),
  ];
  if (forbidden.length > 0) failures.set(403, { description: forbidden.join('; or ') });
  if (own[404]) failures.set(404, { description: own[404] });
  if (own[409]) failures.set(409, { description: own[409] });
  if (op.ifMatch) failures.set(412, { description: 'If-Match names a version that is no longer current' });
  if (op.rawBody) {
    failures.set(413, { description: own[413] ?? 'The file is larger than its field allows' });
    failures.set(415, { description: own[415] ?? 'The file is of a type its field does not take' });
  } else if (readsBody) {
    failures.set(413, { description: own[413] ?? 'The body is larger than server.body_limit' });
    failures.set(415, {
      description: own[415] ?? 'A body was sent with a content type other than application/json',
    });
  }
  const rateLimited = op.rateLimited !== false;
  if (rateLimited || own[429]) {
    const why = [...(rateLimited ? ["the client's rate limit is spent"] : []), ...(own[429] ? [own[429]] : [])];
    failures.set(429, { description: `Too many requests: ${why.join('; ')}`, headers: ['Retry-After-429'] });
  }
  failures.set(431, {
    description: 'The request line and headers are over 16 KiB (HEADERS_TOO_LARGE; the connection is closed)',
  });
  failures.set(500, { description: 'An unexpected fault (the body never holds a stack, SQL or a path)' });
  failures.set(503, {
    description:
      'Unavailable: the request ran past server.request_timeout (TIMEOUT); the service sheds load (OVERLOADED, with Retry-After); the database is unreachable, too slow or full (SERVICE_UNAVAILABLE)' +
      (own[503] ? `; ${own[503]}` : ''),
    headers: ['Retry-After'],
  });
  return failures;
}

/** Puts every titled schema under `components/schemas` (once; two different ones of a name are a mistake) and refers to it. */
class SchemaRegistry {
  readonly schemas: Record<string, JsonSchema> = {};
  /** The response headers referred to, so that components list only those (an unused one is a lint warning). */
  private readonly headers = new Set<HeaderName>();

  header(name: HeaderName): { $ref: string } {
    this.headers.add(name);
    return { $ref: `#/components/headers/${name}` };
  }

  /** The headers referred to so far, in HEADERS' order. */
  usedHeaders(): Partial<typeof HEADERS> {
    return Object.fromEntries(Object.entries(HEADERS).filter(([name]) => this.headers.has(name as HeaderName)));
  }

  use(schema: JsonSchema): JsonSchema {
    const inner = this.children(schema);
    if (inner.title === undefined) return inner;
    const { title, ...rest } = inner;
    const known = this.schemas[title];
    if (known !== undefined && !isDeepStrictEqual(known, rest))
      throw new Error(`two different schemas are named ${title}`);
    this.schemas[title] = rest;
    return { $ref: `#/components/schemas/${title}` };
  }

  resolve = (ref: string): JsonSchema => this.schemas[ref.replace('#/components/schemas/', '')] ?? {};

  private children(schema: JsonSchema): JsonSchema {
    const out: Record<string, unknown> = { ...schema };
    if (schema.properties)
      out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, this.use(v)]));
    if (schema.items) out.items = this.use(schema.items);
    if (typeof schema.additionalProperties === 'object')
      out.additionalProperties = this.use(schema.additionalProperties);
    if (schema.oneOf) out.oneOf = schema.oneOf.map((s) => this.use(s));
    return out as JsonSchema;
  }
}

/** Drops a schema's `description` (a parameter carries it itself). */
function withoutDescription(schema: JsonSchema): JsonSchema {
  const { description: _description, ...rest } = schema;
  return rest;
}

/** A request body's example: without the properties only the server sets (`readOnly`: a file), which a request does not carry. */
function requestExample(body: JsonSchema, resolve: (ref: string) => JsonSchema): unknown {
  const example = exampleOf(body, resolve) as Record<string, unknown>;
  const readOnly = Object.entries(body.properties ?? {}).filter(([, schema]) => schema.readOnly === true);
  if (readOnly.length === 0) return example;
  return Object.fromEntries(Object.entries(example).filter(([name]) => !readOnly.some(([key]) => key === name)));
}

function bodySchema(shape: Shape, registry: SchemaRegistry): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [key, spec] of Object.entries(shape)) {
    const name = snakeName(key);
    properties[name] = registry.use(spec.codec.schema);
    if (spec.required) required.push(name);
  }
  return {
    type: 'object',
    description:
      'Unknown fields are ignored. Text is trimmed before it is checked; lengths count characters after trimming.',
    properties,
    ...(required.length > 0 ? { required } : {}),
  };
}

function parametersOf(op: Operation, registry: SchemaRegistry): unknown[] {
  const parameters: unknown[] = [];
  for (const match of op.path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)) {
    const named = op.pathNames?.[match[1]!];
    parameters.push(
      named === undefined
        ? {
            name: match[1],
            in: 'path',
            required: true,
            description: 'The id (a UUID; any other text is answered 404)',
            schema: { type: 'string', format: 'uuid' },
          }
        : { name: match[1], in: 'path', required: true, description: named, schema: { type: 'string' } },
    );
  }
  for (const query of op.queryParams ?? []) {
    parameters.push({ ...query, in: 'query', schema: { type: 'string' } });
  }
  if (op.list) {
    for (const [name, spec] of Object.entries(listQueryShape(op.list))) {
      const { schema } = spec.codec;
      parameters.push({
        name,
        in: 'query',
        required: spec.required,
        ...(schema.description ? { description: schema.description } : {}),
        schema: registry.use(withoutDescription(schema)),
      });
    }
  }
  if (op.ifMatch) {
    parameters.push({
      name: 'If-Match',
      in: 'header',
      required: false,
      description:
        'Only if the resource is still at one of these versions (its ETag), or `*`; a stale version answers 412',
      schema: { type: 'string' },
      example: '"3"',
    });
  }
  return parameters;
}

/**
 * The headers on every answer of `op`: the request id, and the rate limiter's on the answers it
 * counted (when it is on; failures included, 429 too — docs/http.md).
 */
function answerHeaders(op: Operation, registry: SchemaRegistry): Record<string, unknown> {
  const headers: Record<string, unknown> = { 'X-Request-ID': registry.header('X-Request-ID') };
  if (op.rateLimited !== false) {
    for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const) {
      headers[name] = registry.header(name);
    }
  }
  return headers;
}

function answerObject(answer: Answer, op: Operation, registry: SchemaRegistry): Record<string, unknown> {
  const headers = answerHeaders(op, registry);
  if (answer.etag) headers.ETag = registry.header('ETag');
  if (answer.location) headers.Location = registry.header('Location');
  if (answer.redirect) {
    headers.Location = registry.header(
      answer.redirect === true ? 'Location-file' : (`Location-${answer.redirect}` as HeaderName),
    );
  }
  if (!answer.body) return { description: answer.description, headers };
  const schema = registry.use(answer.body);
  return {
    description: answer.description,
    headers,
    content: { 'application/json': { schema, example: exampleOf(schema, registry.resolve) } },
  };
}

function operationObject(op: Operation, registry: SchemaRegistry): OpenApiOperation {
  const responses: Record<string, unknown> = {};
  for (const answer of op.answers) responses[String(answer.status)] = answerObject(answer, op, registry);
  for (const [status, failure] of failuresOf(op)) {
    if (responses[String(status)] !== undefined) continue;
    const headers = answerHeaders(op, registry);
    for (const name of failure.headers ?? []) headers[headerName(name)] = registry.header(name);
    const schema = registry.use({ title: ERROR_STATUSES[status]!.schema, ...errorSchema(status) });
    responses[String(status)] = {
      description: failure.description,
      headers,
      content: { 'application/json': { schema, example: exampleOf(schema, registry.resolve) } },
    };
  }
  const parameters = parametersOf(op, registry);
  const body = op.body ? bodySchema(op.body, registry) : undefined;
  return {
    operationId: op.id,
    tags: [op.tag.name],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    ...(op.access === 'public' ? { security: [] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(op.rawBody ? { requestBody: rawRequestBody(op.rawBody) } : {}),
    ...(body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: body, example: requestExample(body, registry.resolve) } },
          },
        }
      : {}),
    responses: responses as OpenApiOperation['responses'],
  };
}

/** A file as the raw body, in any of the types it may be (docs/files.md). */
function rawRequestBody(raw: NonNullable<Operation['rawBody']>): Record<string, unknown> {
  return {
    required: true,
    description: `The file itself, its type as Content-Type (${raw.types.join(', ')}), at most ${formatSize(raw.maxBytes)}.`,
    content: Object.fromEntries(raw.types.map((type) => [type, { schema: { type: 'string', format: 'binary' } }])),
  };
}

/** The document's path of a router pattern: `/api/v1/products/:id` → `/api/v1/products/{id}`. */
export const documentPath = policyPath;

/**
 * The OpenAPI 3.1 document of `operations`: each operation's parameters and body read off the
 * codecs it decodes with, its answers off the presenters' schemas, and the failures it can meet
 * (docs/errors.md) from what it does (a token, the policy, a body, an id, If-Match, the rate limit).
 */
export function buildOpenApiDocument(operations: readonly Operation[], info: DocumentInfo): OpenApiDocument {
  const registry = new SchemaRegistry();
  const paths: Record<string, Record<string, OpenApiOperation>> = {};
  const tags = new Map<string, string>();
  const ids = new Set<string>();
  for (const op of operations) {
    if (ids.has(op.id)) throw new Error(`two operations are named ${op.id}`);
    ids.add(op.id);
    const path = documentPath(op.path);
    const methods = (paths[path] ??= {});
    const method = op.method.toLowerCase();
    if (methods[method]) throw new Error(`${op.method} ${path} is documented twice`);
    methods[method] = operationObject(op, registry);
    if (!tags.has(op.tag.name)) tags.set(op.tag.name, op.tag.description);
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: info.description },
    servers: [{ url: '/', description: 'This service' }],
    tags: [...tags].map(([name, description]) => ({ name, description })),
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(registry.schemas).sort(([a], [b]) => a.localeCompare(b))),
      headers: registry.usedHeaders(),
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'The access_token of register, login or refresh (HS256; a refresh token is refused here)',
        },
      },
    },
  };
}
