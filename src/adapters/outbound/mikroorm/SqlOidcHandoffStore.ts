import type { OidcCode, OidcHandoffStore, OidcState } from '../../../application/ports/OidcHandoffStore.js';
import { MikroOrmStore } from './MikroOrmStore.js';
import { guarded } from './errors.js';

type Timestamp = Date | number | string;

/** An `oidc_states` row as a raw read returns it (timestamps: numbers on SQLite, Dates on PostgreSQL). */
interface StateRow {
  selector: string;
  verifier_hash: string;
  provider: string;
  redirect_uri: string;
  sealed: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

/** An `oidc_codes` row as a raw read returns it. */
interface CodeRow {
  selector: string;
  verifier_hash: string;
  user_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

const toState = (row: StateRow): OidcState => ({
  selector: row.selector,
  verifierHash: row.verifier_hash,
  provider: row.provider,
  redirectUri: row.redirect_uri,
  sealed: row.sealed,
  createdAt: new Date(row.created_at),
  expiresAt: new Date(row.expires_at),
});

const toCode = (row: CodeRow): OidcCode => ({
  selector: row.selector,
  verifierHash: row.verifier_hash,
  userId: row.user_id,
  createdAt: new Date(row.created_at),
  expiresAt: new Date(row.expires_at),
});

/**
 * A browser sign-in's states (`oidc_states`) and one-time codes (`oidc_codes`): found by selector,
 * only the verifier's hash stored (and a state's nonce and PKCE verifier only sealed); each spend
 * is one conditional UPDATE (unspent, unexpired), so of concurrent spends one wins. Codes go with
 * their user (foreign key); expired rows are purged with the other tokens.
 */
export class SqlOidcHandoffStore extends MikroOrmStore implements OidcHandoffStore {
  addState(state: OidcState): Promise<void> {
    return guarded(this.orm, async () => {
      await this.sql.run(
        'insert into oidc_states (selector, verifier_hash, provider, redirect_uri, sealed, created_at, expires_at, spent_at) ' +
          'values (?, ?, ?, ?, ?, ?, ?, null)',
        [
          state.selector,
          state.verifierHash,
          state.provider,
          state.redirectUri,
          state.sealed,
          state.createdAt,
          state.expiresAt,
        ],
      );
    });
  }

  findState(selector: string, now: Date): Promise<OidcState | undefined> {
    return guarded(this.orm, async () => {
      const row = await this.sql.one<StateRow>(
        'select selector, verifier_hash, provider, redirect_uri, sealed, created_at, expires_at from oidc_states ' +
          'where selector = ? and spent_at is null and expires_at > ?',
        [selector, now],
      );
      return row ? toState(row) : undefined;
    });
  }

  spendState(selector: string, now: Date): Promise<boolean> {
    return this.spend('oidc_states', selector, now);
  }

  addCode(code: OidcCode): Promise<void> {
    return guarded(this.orm, async () => {
      await this.sql.run(
        'insert into oidc_codes (selector, verifier_hash, user_id, created_at, expires_at, spent_at) values (?, ?, ?, ?, ?, null)',
        [code.selector, code.verifierHash, code.userId, code.createdAt, code.expiresAt],
      );
    });
  }

  findCode(selector: string, now: Date): Promise<OidcCode | undefined> {
    return guarded(this.orm, async () => {
      const row = await this.sql.one<CodeRow>(
        'select selector, verifier_hash, user_id, created_at, expires_at from oidc_codes ' +
          'where selector = ? and spent_at is null and expires_at > ?',
        [selector, now],
      );
      return row ? toCode(row) : undefined;
    });
  }

  spendCode(selector: string, now: Date): Promise<boolean> {
    return this.spend('oidc_codes', selector, now);
  }

  purgeExpired(before: Date): Promise<number> {
    return guarded(this.orm, async () => {
      const states = await this.sql.run('delete from oidc_states where expires_at < ?', [before]);
      const codes = await this.sql.run('delete from oidc_codes where expires_at < ?', [before]);
      return states + codes;
    });
  }

  private spend(table: 'oidc_states' | 'oidc_codes', selector: string, now: Date): Promise<boolean> {
    return guarded(
      this.orm,
      async () =>
        (await this.sql.run(
          `update ${table} set spent_at = ? where selector = ? and spent_at is null and expires_at > ?`,
          [now, selector, now],
        )) === 1,
    );
  }
}
