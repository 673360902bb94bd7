import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider from 'oidc-provider';

/** What the test provider says of one person (the test decides `email_verified`). */
export interface TestAccount {
  readonly email?: string;
  readonly email_verified?: boolean;
  readonly given_name?: string;
  readonly family_name?: string;
}

/** A client registered at the test provider. */
export interface TestClient {
  readonly client_id: string;
  readonly client_secret: string;
  readonly redirect_uris: readonly string[];
}

/** A signing key of the provider, private part included (a test can sign a token the provider would not). */
export type SigningKey = JWK & { kid: string };

/** An RSA signing key (RS256) with a private part, for a provider or a test's own tokens. */
export async function newSigningKey(kid: string): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
}

/** A real OpenID Provider (`oidc-provider`) on a loopback port, its accounts and clients given by the test. */
export interface TestProvider {
  /** `http://127.0.0.1:<port>`: the issuer, discovered at `/.well-known/openid-configuration`. */
  readonly issuer: string;
  /** Every request it was sent, as `METHOD /path` (a test can tell whether its token endpoint was asked). */
  readonly requests: string[];
  /** The people it signs in, by subject; tests add to it. */
  readonly accounts: Map<string, TestAccount>;
  readonly keys: readonly SigningKey[];
  stop(): Promise<void>;
}

/**
 * Starts a provider with `clients` registered (secrets sent in the token request's body), its
 * development login and consent pages on (`devInteractions`: any password signs in as the login
 * typed), PKCE required, and `keys` (new ones when not given) signing its ID tokens.
 */
export async function startTestProvider(clients: readonly TestClient[], keys?: SigningKey[]): Promise<TestProvider> {
  const accounts = new Map<string, TestAccount>();
  const signing = keys ?? [await newSigningKey('test-key-1')];
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: clients.map((client) => ({
      ...client,
      redirect_uris: [...client.redirect_uris],
      token_endpoint_auth_method: 'client_secret_post',
      grant_types: ['authorization_code'],
      response_types: ['code'],
    })),
    jwks: { keys: signing },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name'] },
    // Every claim in the ID token, so the service need not ask the userinfo endpoint.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true } },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    pkce: { required: () => true },
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: () => ({ sub, ...account }) };
    },
  });
  provider.on('server_error', (_ctx, error) => {
    // A provider fault would otherwise surface only as an opaque 500 in a test.
    console.error('test OpenID Provider:', error);
  });
  const requests: string[] = [];
  const handle = provider.callback();
  server.on('request', (req, res) => {
    requests.push(`${req.method} ${new URL(req.url ?? '/', issuer).pathname}`);
    void handle(req, res);
  });
  return {
    issuer,
    requests,
    accounts,
    keys: signing,
    stop: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

/** Cookies by name, as one browser keeps them for the provider (paths ignored: one flow at a time). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** A form's action in a page of the provider's development interactions. */
function formAction(html: string, base: string): string {
  const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error(`no form in the provider's page:\n${html.slice(0, 500)}`);
  return new URL(action.replace(/&amp;/g, '&'), base).href;
}

/**
 * A browser at the provider: from `authorizationUrl`, follows redirects with cookies, signs in as
 * `subject` on the login page and consents, until a redirect leaves the provider. Answers that
 * redirect's URL (the `redirect_uri` with `code` and `state`, or an `error`).
 */
export async function signInAtProvider(
  provider: TestProvider,
  authorizationUrl: string,
  subject: string,
): Promise<URL> {
  const jar = new CookieJar();
  let url = authorizationUrl;
  let body: URLSearchParams | undefined;
  for (let hops = 0; hops < 20; hops += 1) {
    const response = await fetch(url, {
      method: body ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: jar.header(),
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(body ? { body: body.toString() } : {}),
    });
    jar.take(response);
    body = undefined;
    const location = response.headers.get('location');
    if (location) {
      const next = new URL(location, url);
      if (next.origin !== provider.issuer) return next;
      await response.arrayBuffer();
      url = next.href;
      continue;
    }
    const html = await response.text();
    if (response.status !== 200) throw new Error(`the provider answered ${response.status}: ${html.slice(0, 500)}`);
    const action = formAction(html, url);
    body = html.includes('name="prompt" value="login"')
      ? new URLSearchParams({ prompt: 'login', login: subject, password: 'any password' })
      : new URLSearchParams({ prompt: 'consent' });
    url = action;
  }
  throw new Error('the provider kept redirecting');
}

/** PKCE's S256 challenge of `verifier`. */
const s256 = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');

/**
 * What a native client does on its own: signs in at the provider as `subject` (code flow, PKCE,
 * the `nonce` given) with `client`, trades the code at the token endpoint, and answers the ID token
 * the provider issued it.
 */
export async function idTokenFor(
  provider: TestProvider,
  client: TestClient,
  subject: string,
  nonce: string,
): Promise<string> {
  const verifier = randomBytes(32).toString('base64url');
  const redirectUri = client.redirect_uris[0]!;
  const authorization = new URL(`${provider.issuer}/auth`);
  for (const [name, value] of Object.entries({
    client_id: client.client_id,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid email profile',
    state: randomBytes(16).toString('base64url'),
    nonce,
    code_challenge: s256(verifier),
    code_challenge_method: 'S256',
  }))
    authorization.searchParams.set(name, value);
  const back = await signInAtProvider(provider, authorization.href, subject);
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`the provider sent no code: ${back.href}`);
  const response = await fetch(`${provider.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      client_id: client.client_id,
      client_secret: client.client_secret,
    }).toString(),
  });
  const tokens = (await response.json()) as { id_token?: string };
  if (!tokens.id_token) throw new Error(`the provider issued no ID token: ${JSON.stringify(tokens)}`);
  return tokens.id_token;
}
