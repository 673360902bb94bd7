import { SessionNotFoundError } from '../../domain/user/UserErrors.js';
import type { SessionEnder } from './SessionEnder.js';

/**
 * Ends one of the caller's sessions, the current one included (docs/authentication.md). Another user's
 * session, an ended one or an unknown id: SessionNotFoundError, alike.
 */
export class EndSession {
  constructor(private readonly ender: SessionEnder) {}

  async execute(input: { readonly userId: string; readonly sessionId: string }): Promise<void> {
    if (!(await this.ender.endOne(input.userId, input.sessionId))) throw new SessionNotFoundError(input.sessionId);
  }
}
