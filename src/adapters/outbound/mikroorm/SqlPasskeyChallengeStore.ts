import type { PasskeyChallenge, PasskeyChallengeStore } from '../../../application/ports/PasskeyChallengeStore.js';
import type { Database } from './database.js';
import { SqlSingleUseRecords } from './SqlSingleUseRecords.js';

/**
 * The challenges of passkey ceremonies (`passkey_challenges`), single-use records with their
 * ceremony and (a registration's) user. A registration's row goes with its user (foreign key);
 * expired ones are purged with the other expired tokens.
 */
export class SqlPasskeyChallengeStore extends SqlSingleUseRecords<PasskeyChallenge> implements PasskeyChallengeStore {
  constructor(database: Database) {
    super(database, {
      table: 'passkey_challenges',
      columns: ['purpose', 'user_id'],
      values: (challenge) => [challenge.purpose, challenge.userId],
      read: (row) => ({
        purpose: row.purpose === 'registration' ? 'registration' : 'authentication',
        userId: row.user_id === null || row.user_id === undefined ? null : String(row.user_id),
      }),
    });
  }
}
