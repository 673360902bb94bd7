import type { Clock } from '../ports/Clock.js';
import type { SessionRecord, SessionStore } from '../ports/SessionStore.js';

/** A session as its owner sees it: `current` marks the one the request came from. */
export interface SessionView extends SessionRecord {
  readonly current: boolean;
}

/** The caller's active sessions, newest first (docs/authentication.md). */
export class ListSessions {
  constructor(
    private readonly sessions: SessionStore,
    private readonly clock: Clock,
  ) {}

  async execute(input: { readonly userId: string; readonly sessionId: string }): Promise<SessionView[]> {
    const active = await this.sessions.listActive(input.userId, this.clock.now());
    return active.map((session) => ({ ...session, current: session.id === input.sessionId }));
  }
}
