import type { PasskeyChallenge, PasskeyChallengeStore } from '../../../application/ports/PasskeyChallengeStore.js';
import { MikroOrmStore } from './MikroOrmStore.js';
import { guarded } from './errors.js';

/** A `passkey_challenges` row as a raw read returns it (timestamps: numbers on SQLite, Dates on PostgreSQL). */
interface ChallengeRow {
  selector: string;
  verifier_hash: string;
  purpose: string;
  user_id: string | null;
  created_at: Date | number | string;
  expires_at: Date | number | string;
}

const toChallenge = (row: ChallengeRow): PasskeyChallenge => ({
  selector: row.selector,
  verifierHash: row.verifier_hash,
  purpose: row.purpose === 'registration' ? 'registration' : 'authentication',
  userId: row.user_id,
  createdAt: new Date(row.created_at),
  expiresAt: new Date(row.expires_at),
});

/**
 * The challenges of passkey ceremonies (`passkey_challenges`): found by selector, only the
 * verifier's hash stored; `spend` is one conditional UPDATE (unspent, unexpired), so of concurrent
 * spends one wins. A registration's row goes with its user (foreign key); expired ones are purged
 * with the other expired tokens.
 */
export class SqlPasskeyChallengeStore extends MikroOrmStore implements PasskeyChallengeStore {
  add(challenge: PasskeyChallenge): Promise<void> {
    return guarded(this.orm, async () => {
      await this.sql.run(
        'insert into passkey_challenges (selector, verifier_hash, purpose, user_id, created_at, expires_at, spent_at) ' +
          'values (?, ?, ?, ?, ?, ?, null)',
        [
          challenge.selector,
          challenge.verifierHash,
          challenge.purpose,
          challenge.userId,
          challenge.createdAt,
          challenge.expiresAt,
        ],
      );
    });
  }

  find(selector: string, now: Date): Promise<PasskeyChallenge | undefined> {
    return guarded(this.orm, async () => {
      const row = await this.sql.one<ChallengeRow>(
        'select selector, verifier_hash, purpose, user_id, created_at, expires_at from passkey_challenges ' +
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
          'update passkey_challenges set spent_at = ? where selector = ? and spent_at is null and expires_at > ?',
          [now, selector, now],
        )) === 1,
    );
  }

  purgeExpired(before: Date): Promise<number> {
    return guarded(this.orm, () => this.sql.run('delete from passkey_challenges where expires_at < ?', [before]));
  }
}
