import { AssertionError } from 'node:assert';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { errorSchema, type OpenApiDocument } from '../../src/adapters/inbound/http/openapi.js';
import { apiDocument } from '../../src/main/wiring/apiDocument.js';
import type { Config } from '../../src/main/config/schema.js';
import { MODULES } from '../../src/main/modules/index.js';
import { testConfig } from './config.js';

/** What the contract reads of an answer: headers by lower-case name, the body as text. */
export interface Answered {
  readonly status: number;
  header(name: string): string | undefined;
  readonly text: string;
}

interface HeaderObject {
  readonly required?: boolean;
  readonly schema?: { readonly type?: string };
}

interface ResponseObject {
  readonly headers?: Record<string, HeaderObject | { $ref: string }>;
  readonly content?: { 'application/json'?: { schema: unknown } };
}

interface Template {
  readonly path: string;
  readonly segments: readonly string[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Checks every answer against the API document (README: API document): the route's operation must list
 * the status, the JSON body must validate against the answer's schema, its required headers be
 * there. Paths the document does not have (GraphQL, the playground, the docs pages, unknown paths)
 * are checked only where the HTTP layer answers them: a JSON error envelope for its status.
 * A mismatch throws an AssertionError naming the request and the answer.
 */
export class ResponseContract {
  private readonly ajv: Ajv2020;
  private readonly templates: Template[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: OpenApiDocument) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(this.ajv);
    this.ajv.addSchema({ $id: 'openapi', components: document.components } as object);
    this.templates = Object.keys(document.paths).map((path) => ({ path, segments: path.split('/') }));
  }

  /** The document's path for a request path (`/api/v1/products/{id}`); a literal segment wins over a parameter. */
  templateOf(requestPath: string): string | undefined {
    const segments = requestPath.split('?')[0]!.split('/');
    let best: { template: Template; literals: string } | undefined;
    for (const template of this.templates) {
      if (template.segments.length !== segments.length) continue;
      let literals = '';
      let ok = true;
      for (const [i, part] of template.segments.entries()) {
        const isParam = part.startsWith('{') && part.endsWith('}');
        if (isParam ? segments[i] === '' : part !== segments[i]) {
          ok = false;
          break;
        }
        literals += isParam ? '0' : '1';
      }
      if (ok && (best === undefined || literals > best.literals)) best = { template, literals };
    }
    return best?.template.path;
  }

  /** Throws an AssertionError when `answer` is not what the document says `method path` answers. */
  check(method: string, requestPath: string, answer: Answered): void {
    const fail = (why: string): never => {
      throw new AssertionError({
        message: `answer not in the API document: ${method} ${requestPath} → ${answer.status}: ${why}\nbody: ${answer.text.slice(0, 2000)}`,
      });
    };
    const path = this.templateOf(requestPath);
    const json = /^application\/json/.test(answer.header('content-type') ?? '');
    const body = (): unknown => {
      try {
        return JSON.parse(answer.text) as unknown;
      } catch {
        return fail('the body is not JSON though its content type says so');
      }
    };
    if (path === undefined) {
      // Not a REST route: only the HTTP layer's own answers (and any error envelope) are the document's to say.
      if (!json || answer.text === '') return;
      const parsed = body();
      const envelope = typeof parsed === 'object' && parsed !== null && 'success' in parsed;
      if (answer.status === 404 || answer.status === 405 || (envelope && answer.status >= 400)) {
        this.validate(`error:${answer.status}`, errorSchema(answer.status), parsed, fail);
      }
      return;
    }
    const operations = this.document.paths[path]!;
    const verb = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    const operation = operations[verb];
    if (operation === undefined) {
      const allowed = [
        ...Object.keys(operations)
          .filter((m) => METHODS.includes(m))
          .map((m) => m.toUpperCase()),
      ];
      if (allowed.includes('GET')) allowed.push('HEAD');
      allowed.push('OPTIONS');
      if (method.toUpperCase() === 'OPTIONS' && answer.status === 204 && answer.header('allow') === undefined) return; // a CORS preflight
      if (answer.status === 405 || (method.toUpperCase() === 'OPTIONS' && answer.status === 204)) {
        const allow = (answer.header('allow') ?? '')
          .split(',')
          .map((m) => m.trim())
          .filter((m) => m !== '');
        if ([...allow].sort().join(', ') !== [...allowed].sort().join(', ')) {
          fail(`Allow is "${answer.header('allow') ?? ''}", the document has ${allowed.join(', ')} for ${path}`);
        }
        if (answer.status === 405) this.validate('error:405', errorSchema(405), body(), fail);
        return;
      }
      if (answer.status === 404) return this.validate('error:404', errorSchema(404), body(), fail);
      return fail(`the document has no ${method} on ${path} (it has ${allowed.join(', ')})`);
    }
    const response = operation.responses[String(answer.status)] as ResponseObject | undefined;
    if (response === undefined) {
      fail(`${operation.operationId} documents ${Object.keys(operation.responses).join(', ')}, not ${answer.status}`);
      return;
    }
    for (const [name, ref] of Object.entries(response.headers ?? {})) {
      const header = this.header(ref);
      const value = answer.header(name.toLowerCase());
      if (value === undefined) {
        if (header.required) fail(`the required header ${name} is missing`);
        continue;
      }
      if (header.schema?.type === 'integer' && !/^-?\d+$/.test(value))
        fail(`the header ${name} is "${value}", not an integer`);
    }
    const schema = response.content?.['application/json']?.schema;
    if (method.toUpperCase() === 'HEAD') return;
    if (schema === undefined) {
      if (answer.text !== '') fail(`${operation.operationId} documents no body for ${answer.status}`);
      return;
    }
    if (!json) fail(`the content type is "${answer.header('content-type') ?? ''}", the document says application/json`);
    this.validate(`${operation.operationId}:${answer.status}`, schema, body(), fail);
  }

  private header(ref: HeaderObject | { $ref: string }): HeaderObject {
    if (!('$ref' in ref)) return ref;
    const name = ref.$ref.replace('#/components/headers/', '');
    return (this.document.components.headers as Record<string, HeaderObject>)[name] ?? {};
  }

  private validate(key: string, schema: unknown, value: unknown, fail: (why: string) => never): void {
    let validator = this.validators.get(key);
    if (validator === undefined) {
      validator = this.ajv.compile(retarget(schema) as object);
      this.validators.set(key, validator);
    }
    if (!validator(value)) fail(this.ajv.errorsText(validator.errors, { separator: '; ' }));
  }
}

/** Points the document's `#/components/...` refs at the schema registered under `openapi`. */
function retarget(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(retarget);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `openapi${value}` : retarget(value),
    ]),
  );
}

/** The contract of a service started with `config` (a route its api.mode or docs switch leaves out is then an unknown path). */
export function contractFor(config: Config): ResponseContract {
  return new ResponseContract(apiDocument(MODULES, config));
}

/** The contract a running service serves at `/api/v1/openapi.json` (a generated copy's, with its own resources). */
export async function servedContract(baseUrl: string): Promise<ResponseContract> {
  const response = await fetch(`${baseUrl}/api/v1/openapi.json`);
  if (response.status !== 200) throw new Error(`${baseUrl} serves no API document (${response.status})`);
  return new ResponseContract((await response.json()) as OpenApiDocument);
}

let full: ResponseContract | undefined;

/**
 * The contract of everything the service can serve: the document built in-process from MODULES with
 * the docs on and both APIs (the same function `GET /api/v1/openapi.json` answers with), so it does
 * not depend on the service under test serving its document.
 */
export function fullContract(): ResponseContract {
  full ??= new ResponseContract(apiDocument(MODULES, testConfig({ SVC_API_MODE: 'both', SVC_DOCS_ENABLED: 'true' })));
  return full;
}
