import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { expect } from 'chai';
import { readingFromPrimary } from '../../src/adapters/outbound/mikroorm/readRouting.js';
import type { RunningService } from '../../src/main/wiring/service.js';
import { UserTokens } from '../../src/main/modules/identityTokens.js';
import { TOKENS } from '../../src/main/wiring/tokens.js';
import { fullContract, type ResponseContract } from './contract.js';

/** A user as the REST API shows it (docs/authentication.md). */
export interface UserJson {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  role: string;
  email_verified: boolean;
  created_at: string;
  updated_at: string;
}

/** The token part of register, login and refresh answers (docs/authentication.md). */
export interface TokensJson {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
}

/** Register and login answers. */
export interface SessionJson extends TokensJson {
  user: UserJson;
}

export interface FieldJson {
  field: string;
  message: string;
}

/** The one error envelope (docs/errors.md). */
export interface ErrorJson {
  success: false;
  error: { code: string; message: string; detail?: string; fields?: FieldJson[] };
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON, or `undefined` when the body is empty. */
  body: unknown;
  text: string;
}

export interface RequestOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Serialized as JSON with `Content-Type: application/json`. */
  json?: unknown;
  /** A raw body, sent as is (set the content type in `headers`). */
  raw?: string;
  headers?: Record<string, string>;
  /** Answer a redirect as it is (its `Location`), not following it. */
  manualRedirect?: boolean;
}

/**
 * A small typed client for one running service, on Node's global fetch. Every answer is checked
 * against the API document (`contract`): a status, body or header the document does not list for
 * the route throws an AssertionError, so every end-to-end test also tests the document.
 */
export class Api {
  constructor(
    readonly baseUrl: string,
    readonly contract: ResponseContract = fullContract(),
  ) {}

  async send(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = {};
    let body: string | undefined;
    if (options.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    if (options.raw !== undefined) body = options.raw;
    if (options.token !== undefined) headers.Authorization = `Bearer ${options.token}`;
    Object.assign(headers, options.headers);
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
      ...(options.manualRedirect ? { redirect: 'manual' as const } : {}),
    });
    const text = await response.text();
    this.contract.check(method, path, {
      status: response.status,
      header: (name) => response.headers.get(name) ?? undefined,
      text,
    });
    return {
      status: response.status,
      headers: response.headers,
      body: text === '' ? undefined : (JSON.parse(text) as unknown),
      text,
    };
  }

  get(path: string, options?: RequestOptions): Promise<ApiResponse> {
    return this.send('GET', path, options);
  }
  post(path: string, options?: RequestOptions): Promise<ApiResponse> {
    return this.send('POST', path, options);
  }
  put(path: string, options?: RequestOptions): Promise<ApiResponse> {
    return this.send('PUT', path, options);
  }
  delete(path: string, options?: RequestOptions): Promise<ApiResponse> {
    return this.send('DELETE', path, options);
  }
}

/** Asserts a success envelope with this status and returns its `data`. */
export function dataOf<T>(response: ApiResponse, status = 200): T {
  expect(response.status, response.text).to.equal(status);
  const body = response.body as { success: boolean; data: T };
  expect(body.success, response.text).to.equal(true);
  return body.data;
}

/** Asserts an error answer: exact status and exact envelope (`detail` and `fields` only when given). */
export function expectError(
  response: ApiResponse,
  status: number,
  code: string,
  message: string,
  extra: { detail?: string; fields?: FieldJson[] } = {},
): void {
  expect(response.status, response.text).to.equal(status);
  expect(response.headers.get('content-type')).to.match(/^application\/json/);
  const error: ErrorJson['error'] = { code, message };
  if (extra.detail !== undefined) error.detail = extra.detail;
  if (extra.fields !== undefined) error.fields = extra.fields;
  expect(response.body).to.deep.equal({ success: false, error });
}

/** Asserts 401 `UNAUTHORIZED` with this message and the `WWW-Authenticate: Bearer` challenge. */
export function expectUnauthorized(response: ApiResponse, message = 'invalid token'): void {
  expectError(response, 401, 'UNAUTHORIZED', message);
  expect(response.headers.get('www-authenticate')).to.equal('Bearer');
}

/** Asserts 400 `VALIDATION_ERROR` listing exactly these fields, in this order. */
export function expectValidation(response: ApiResponse, fields: FieldJson[]): void {
  expectError(response, 400, 'VALIDATION_ERROR', 'validation failed', { fields });
}

/** Asserts 400 `VALIDATION_ERROR` naming exactly these fields, in this order (whatever the messages). */
export function expectInvalidFields(response: ApiResponse, names: string[]): void {
  expect(response.status, response.text).to.equal(400);
  const { error } = response.body as ErrorJson;
  expect(error.code).to.equal('VALIDATION_ERROR');
  expect(error.message).to.equal('validation failed');
  expect(
    (error.fields ?? []).map((f) => f.field),
    response.text,
  ).to.deep.equal(names);
}

let counter = 0;

/** An e-mail no other test uses. */
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}-${counter}-${randomUUID().slice(0, 8)}@example.com`;
}

export interface Registration {
  email: string;
  password: string;
  first_name: string;
  last_name: string;
}

export function newRegistration(overrides: Partial<Registration> = {}): Registration {
  return {
    email: uniqueEmail(),
    password: 'correct horse battery',
    first_name: 'Ada',
    last_name: 'Lovelace',
    ...overrides,
  };
}

/** A registered user (role `user`), with the password it was registered with. */
export interface Account extends SessionJson {
  password: string;
}

export async function register(api: Api, overrides: Partial<Registration> = {}): Promise<Account> {
  const input = newRegistration(overrides);
  const session = dataOf<SessionJson>(await api.post('/api/v1/auth/register', { json: input }), 201);
  return { ...session, password: input.password };
}

export async function login(
  api: Api,
  email: string,
  password: string,
  headers?: Record<string, string>,
): Promise<SessionJson> {
  return dataOf<SessionJson>(
    await api.post('/api/v1/auth/login', { json: { email, password }, ...(headers ? { headers } : {}) }),
  );
}

export async function refresh(api: Api, refreshToken: string): Promise<TokensJson> {
  return dataOf<TokensJson>(await api.post('/api/v1/auth/refresh', { json: { refresh_token: refreshToken } }));
}

/**
 * Changes a user's role straight in the repository (what `users:create --role` or an admin would
 * do), reading the user from the primary (with replicas: this is no client's request, so no
 * read-your-writes; without, no async context is started).
 */
export async function setRole(service: RunningService, userId: string, role: string): Promise<void> {
  const users = service.container.get(UserTokens.Repository);
  const replicas = service.container.get(TOKENS.Database).reads.replicas > 0;
  const user = await (replicas ? readingFromPrimary(() => users.findById(userId)) : users.findById(userId));
  if (!user) throw new Error(`no user ${userId}`);
  await users.update(user.with({ role }, new Date()));
}

/** A new user with `role`, logged in again after the change so its token carries the role. */
export async function accountWithRole(
  service: RunningService,
  api: Api,
  role: string,
  overrides: Partial<Registration> = {},
): Promise<Account> {
  const account = await register(api, overrides);
  await setRole(service, account.user.id, role);
  const session = await login(api, account.user.email, account.password);
  expect(session.user.role).to.equal(role);
  return { ...session, password: account.password };
}

/** The header and payload of a JWT, without verifying it. */
export function decodeJwt(token: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [header, payload] = token.split('.');
  const part = (text: string | undefined) =>
    JSON.parse(Buffer.from(text ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
  return { header: part(header), payload: part(payload) };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * A request whose path goes on the wire exactly as written (fetch would resolve `..` and
 * normalize it), for path-confusion tests. A header given as an array is sent once per value
 * (fetch would join them into one). The answer is checked against the API document like `Api`'s.
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string | string[]> = {},
  body?: string,
): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const header = (name: string) => {
          const value = res.headers[name.toLowerCase()];
          return Array.isArray(value) ? value.join(', ') : value;
        };
        try {
          fullContract().check(method, path, { status, header, text });
        } catch (error) {
          reject(error as Error);
          return;
        }
        resolve({ status, headers: res.headers, text });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}
