import type { TokenPair } from '../../../application/auth/SessionIssuer.js';
import type { Page } from '../../../domain/shared/Page.js';
import { totalPages } from '../../../domain/shared/Page.js';
import type { User } from '../../../domain/user/User.js';
import type { PageMeta } from './envelope.js';

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

export function presentTokens(tokens: TokenPair): Record<string, string | number> {
  return { access_token: tokens.accessToken, refresh_token: tokens.refreshToken, token_type: 'Bearer', expires_in: tokens.expiresIn };
}

export function pageMeta(page: Page<unknown>): PageMeta {
  return { page: page.page, per_page: page.perPage, total: page.total, total_pages: totalPages(page) };
}
