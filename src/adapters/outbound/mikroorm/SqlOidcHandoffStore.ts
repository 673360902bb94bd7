import type { OidcCode, OidcState } from '../../../application/ports/OidcHandoffStore.js';
import { OidcHandoffs } from '../oidcHandoffs.js';
import type { Database } from './database.js';
import { SqlSingleUseRecords } from './SqlSingleUseRecords.js';

/**
 * A browser sign-in's states (`oidc_states`) and one-time codes (`oidc_codes`), single-use records
 * each (a state's nonce and PKCE verifier only sealed). Codes go with their user (foreign key);
 * expired rows are purged with the other tokens.
 */
export class SqlOidcHandoffStore extends OidcHandoffs {
  constructor(database: Database) {
    super(
      new SqlSingleUseRecords<OidcState>(database, {
        table: 'oidc_states',
        columns: ['provider', 'redirect_uri', 'sealed'],
        values: (state) => [state.provider, state.redirectUri, state.sealed],
        read: (row) => ({
          provider: String(row.provider),
          redirectUri: String(row.redirect_uri),
          sealed: String(row.sealed),
        }),
      }),
      new SqlSingleUseRecords<OidcCode>(database, {
        table: 'oidc_codes',
        columns: ['user_id'],
        values: (code) => [code.userId],
        read: (row) => ({ userId: String(row.user_id) }),
      }),
    );
  }
}
