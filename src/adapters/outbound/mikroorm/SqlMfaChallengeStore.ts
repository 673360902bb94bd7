import type { MfaChallenge, MfaChallengeStore } from '../../../application/ports/MfaChallengeStore.js';
import { isSignInMethod } from '../../../domain/user/SignInMethod.js';
import type { Database } from './database.js';
import { SqlSingleUseRecords } from './SqlSingleUseRecords.js';

/**
 * Second-factor challenges (`mfa_challenges`), single-use records with their user and the first
 * step's methods (space-separated). Rows go with their user (foreign key); expired ones are purged
 * with the other expired tokens.
 */
export class SqlMfaChallengeStore extends SqlSingleUseRecords<MfaChallenge> implements MfaChallengeStore {
  constructor(database: Database) {
    super(database, {
      table: 'mfa_challenges',
      columns: ['user_id', 'methods'],
      values: (challenge) => [challenge.userId, challenge.methods.join(' ')],
      read: (row) => ({ userId: String(row.user_id), methods: String(row.methods).split(' ').filter(isSignInMethod) }),
    });
  }
}
