/** Takes a change of a user to the other instances; resolves once it is sent (or given up on), never rejects. */
export type UserChangePublisher = (userId: string) => Promise<void>;

/**
 * Where writes that make remembered answers about a user stale meet the caches that remember
 * them (ADR 0021, 0024): the user cache, and the caller lookup's cache (a user deleted, a session
 * ended). A write here makes every cache of this instance forget the user at once, then is
 * published to the other instances (when Redis is there) before the write is answered; a change
 * heard from another instance is only forgotten.
 */
export class UserChanges {
  private readonly caches: ((userId: string) => void)[] = [];
  private publisher: UserChangePublisher | undefined;

  /** A cache that must forget what it remembers of a user when the user changes. */
  register(forget: (userId: string) => void): void {
    this.caches.push(forget);
  }

  /** Sends every later change to the other instances too. */
  publishTo(publisher: UserChangePublisher): void {
    this.publisher = publisher;
  }

  /** User `userId` was written here: forget it everywhere, then tell the other instances. */
  async changed(userId: string): Promise<void> {
    this.forget(userId);
    await this.publisher?.(userId);
  }

  /** Another instance wrote user `userId`: forget it here. */
  forget(userId: string): void {
    for (const forget of this.caches) forget(userId);
  }
}
