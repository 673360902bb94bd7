/**
 * One session: everything descended from one login (or registration). Its id is the refresh
 * family's id and the `sid` claim of every access token issued to it.
 */
export interface SessionRecord {
  readonly id: string;
  readonly userId: string;
  readonly createdAt: Date;
  /** When the session last got tokens: its login, or its latest refresh. */
  readonly lastUsedAt: Date;
  /** When its newest refresh token expires: past this the session is over. */
  readonly expiresAt: Date;
  /** The client's `User-Agent` at login (cut to 500 characters), if it sent one. */
  readonly userAgent: string | null;
  /** The client's address at login. */
  readonly ip: string | null;
}

/**
 * Sessions (docs/authentication.md). A session is active from `start` until it is ended or `expiresAt`
 * passes. Promises: ending is final (a `touch` never revives an ended session); `end` and `endAll`
 * answer only what they changed; lists are newest first (by `createdAt`, then id). Records
 * survive a restart (persistent adapters), and go with their user.
 */
export interface SessionStore {
  start(session: SessionRecord): Promise<void>;
  /** The session was refreshed at `now`: `lastUsedAt` and `expiresAt` move (an ended session stays ended). */
  touch(id: string, now: Date, expiresAt: Date): Promise<void>;
  /** The user's active sessions at `now`, newest first. */
  listActive(userId: string, now: Date): Promise<SessionRecord[]>;
  /** Whether `id` is an active session of `userId` at `now`. */
  isActive(userId: string, id: string, now: Date): Promise<boolean>;
  /** Ends one active session of the user; `false` when the user has no such active session. */
  end(userId: string, id: string, now: Date): Promise<boolean>;
  /** Ends every active session of the user but `keep` (if given); answers the ids it ended. */
  endAll(userId: string, now: Date, keep?: string): Promise<string[]>;
  /** Deletes the sessions that expired before `before` (ended or not); answers how many (`tokens.purge`). */
  purgeExpired(before: Date): Promise<number>;
}
