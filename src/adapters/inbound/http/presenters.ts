import type { TokenPair } from '../../../application/auth/SessionIssuer.js';
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
    created_at: WIRE.dateTime,
    updated_at: WIRE.dateTime,
  }),
};

/** A user on the wire: never the password hash. */
export function presentUser(user: User): Record<string, string> {
  return {
    id: user.id,
    email: user.email,
    first_name: user.firstName,
    last_name: user.lastName,
    role: user.role,
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

export function presentTokens(tokens: TokenPair): Record<string, string | number> {
  return { access_token: tokens.accessToken, refresh_token: tokens.refreshToken, token_type: 'Bearer', expires_in: tokens.expiresIn };
}

export function pageMeta(page: Page<unknown>): PageMeta {
  return { page: page.page, per_page: page.perPage, total: page.total, total_pages: totalPages(page) };
}
