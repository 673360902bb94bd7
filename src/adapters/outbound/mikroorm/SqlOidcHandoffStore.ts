import type { OidcCode, OidcHandoffStore, OidcState } from '../../../application/ports/OidcHandoffStore.js';
import type { Database } from './database.js';
import { SqlSingleUseRecords } from './SqlSingleUseRecords.js';

/**
 * A browser sign-in's states (`oidc_states`) and one-time codes (`oidc_codes`), single-use records
 * each (a state's nonce and PKCE verifier only sealed). Codes go with their user (foreign key);
 * expired rows are purged with the other tokens.
 */
export class SqlOidcHandoffStore implements OidcHandoffStore {
  private readonly states: SqlSingleUseRecords<OidcState>;
  private readonly codes: SqlSingleUseRecords<OidcCode>;

  constructor(database: Database) {
    this.states = new SqlSingleUseRecords<OidcState>(database, {
      table: 'oidc_states',
      columns: ['provider', 'redirect_uri', 'sealed'],
      values: (state) => [state.provider, state.redirectUri, state.sealed],
      read: (row) => ({
        provider: String(row.provider),
        redirectUri: String(row.redirect_uri),
        sealed: String(row.sealed),
      }),
    });
    this.codes = new SqlSingleUseRecords<OidcCode>(database, {
      table: 'oidc_codes',
      columns: ['user_id'],
      values: (code) => [code.userId],
      read: (row) => ({ userId: String(row.user_id) }),
    });
  }

  addState(state: OidcState): Promise<void> {
    return this.states.add(state);
  }

  findState(selector: string, now: Date): Promise<OidcState | undefined> {
    return this.states.find(selector, now);
  }

  spendState(selector: string, now: Date): Promise<boolean> {
    return this.states.spend(selector, now);
  }

  addCode(code: OidcCode): Promise<void> {
    return this.codes.add(code);
  }

  findCode(selector: string, now: Date): Promise<OidcCode | undefined> {
    return this.codes.find(selector, now);
  }

  spendCode(selector: string, now: Date): Promise<boolean> {
    return this.codes.spend(selector, now);
  }

  async purgeExpired(before: Date): Promise<number> {
    return (await this.states.purgeExpired(before)) + (await this.codes.purgeExpired(before));
  }
}
