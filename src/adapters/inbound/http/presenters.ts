import type { SessionView } from '../../../application/account/ListSessions.js';
import { USER_AGENT_MAX_LENGTH, type TokenPair } from '../../../application/auth/SessionIssuer.js';
import type { Page } from '../../../domain/shared/Page.js';
import { totalPages } from '../../../domain/shared/Page.js';
import type { User } from '../../../domain/user/User.js';
import { closedObject, WIRE, type JsonSchema } from '../codecs/jsonSchema.js';
import { EmailField, NameField, RoleField } from '../codecs/userCodecs.js';
import type { PageMeta } from './envelope.js';

/** A user as `presentUser` writes it. */
export const USER_SCHEMA: JsonSchema = {
  title: 'User',
  ...closedObject({
    id: WIRE.uuid,
    email: EmailField.schema,
    first_name: NameField.schema,
    last_name: NameField.schema,
    role: RoleField.schema,
    email_verified: { type: 'boolean', description: 'Whether the user followed a verification link sent to `email`' },
    created_at: WIRE.dateTime,
    updated_at: WIRE.dateTime,
  }),
};

/** A user on the wire: never the password hash. */
export function presentUser(user: User): Record<string, string | boolean> {
  return {
    id: user.id,
    email: user.email,
    first_name: user.firstName,
    last_name: user.lastName,
    role: user.role,
    email_verified: user.emailVerified,
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
  };
}

/** A token pair as `presentTokens` writes it. */
export const TOKENS_SCHEMA: JsonSchema = {
  title: 'Tokens',
  ...closedObject({
    access_token: WIRE.text('A JWT to send as `Authorization: Bearer <access_token>`'),
    refresh_token: WIRE.text('A single-use JWT for POST /api/v1/auth/refresh'),
    token_type: { const: 'Bearer' },
    expires_in: WIRE.integer('Seconds until the access token expires', 1),
  }),
};

/** Register and login: the user and a token pair. */
export const SESSION_SCHEMA: JsonSchema = {
  title: 'Session',
  ...closedObject({ user: USER_SCHEMA, ...TOKENS_SCHEMA.properties }),
};

/** Register when `auth.require_verified_email` is on: the user, and no session until it verifies its e-mail. */
export const REGISTERED_SCHEMA: JsonSchema = {
  title: 'Registered',
  ...closedObject({ user: USER_SCHEMA }),
};

/** One of the caller's sessions, as `presentSession` writes it. */
export const ACTIVE_SESSION_SCHEMA: JsonSchema = {
  title: 'ActiveSession',
  ...closedObject({
    id: WIRE.uuid,
    created_at: WIRE.dateTime,
    last_used_at: {
      ...WIRE.dateTime,
      description: 'When the session last got tokens (its login or its latest refresh)',
    },
    user_agent: {
      type: ['string', 'null'],
      maxLength: USER_AGENT_MAX_LENGTH,
      description: 'The User-Agent of the login, if it sent one',
    },
    ip: { type: ['string', 'null'], description: 'The client address of the login' },
    current: { type: 'boolean', description: 'The session the request came from' },
  }),
};

export function presentSession(session: SessionView): Record<string, string | boolean | null> {
  return {
    id: session.id,
    created_at: session.createdAt.toISOString(),
    last_used_at: session.lastUsedAt.toISOString(),
    user_agent: session.userAgent,
    ip: session.ip,
    current: session.current,
  };
}

export function presentTokens(tokens: TokenPair): Record<string, string | number> {
  return {
    access_token: tokens.accessToken,
    refresh_token: tokens.refreshToken,
    token_type: 'Bearer',
    expires_in: tokens.expiresIn,
  };
}

export function pageMeta(page: Page<unknown>): PageMeta {
  return { page: page.page, per_page: page.perPage, total: page.total, total_pages: totalPages(page) };
}
