import type { MfaChallenge, MfaChallengeStore } from '../../../application/ports/MfaChallengeStore.js';
import { isSignInMethod } from '../../../domain/user/SignInMethod.js';
import { MikroOrmStore } from './MikroOrmStore.js';
import { guarded } from './errors.js';

/** An `mfa_challenges` row as a raw read returns it (timestamps: numbers on SQLite, Dates on PostgreSQL). */
interface ChallengeRow {
  selector: string;
  verifier_hash: string;
  user_id: string;
  methods: string;
  created_at: Date | number | string;
  expires_at: Date | number | string;
}

const toChallenge = (row: ChallengeRow): MfaChallenge => ({
  selector: row.selector,
  verifierHash: row.verifier_hash,
  userId: row.user_id,
  methods: row.methods.split(' ').filter(isSignInMethod),
  createdAt: new Date(row.created_at),
  expiresAt: new Date(row.expires_at),
});

/**
 * Second-factor challenges (`mfa_challenges`): found by selector, only the verifier's hash stored;
 * `spend` is one conditional UPDATE (unspent, unexpired), so of concurrent spends one wins. Rows go
 * with their user (foreign key); expired ones are purged with the e-mailed tokens.
 */
export class SqlMfaChallengeStore extends MikroOrmStore implements MfaChallengeStore {
  add(challenge: MfaChallenge): Promise<void> {
    return guarded(this.orm, async () => {
      await this.sql.run(
        'insert into mfa_challenges (selector, verifier_hash, user_id, methods, created_at, expires_at, spent_at) ' +
          'values (?, ?, ?, ?, ?, ?, null)',
        [
          challenge.selector,
          challenge.verifierHash,
          challenge.userId,
          challenge.methods.join(' '),
          challenge.createdAt,
          challenge.expiresAt,
        ],
      );
    });
  }

  find(selector: string, now: Date): Promise<MfaChallenge | undefined> {
    return guarded(this.orm, async () => {
      const row = await this.sql.one<ChallengeRow>(
        'select selector, verifier_hash, user_id, methods, created_at, expires_at from mfa_challenges ' +
          'where selector = ? and spent_at is null and expires_at > ?',
        [selector, now],
      );
      return row ? toChallenge(row) : undefined;
    });
  }

  spend(selector: string, now: Date): Promise<boolean> {
    return guarded(
      this.orm,
      async () =>
        (await this.sql.run(
          'update mfa_challenges set spent_at = ? where selector = ? and spent_at is null and expires_at > ?',
          [now, selector, now],
        )) === 1,
    );
  }

  purgeExpired(before: Date): Promise<number> {
    return guarded(this.orm, () => this.sql.run('delete from mfa_challenges where expires_at < ?', [before]));
  }
}
