import type { Transaction } from '../../../domain/shared/Transaction.js';
import type { Identity, IdentityStore } from '../../../application/ports/IdentityStore.js';

/** Linked identities in memory. */
export class InMemoryIdentityStore implements IdentityStore {
  private readonly rows = new Map<string, Identity>();

  async add(identity: Identity): Promise<boolean> {
    await Promise.resolve();
    // Checked and written with no await between: of racing adds of one identity one wins.
    if (this.linked(identity.issuer, identity.subject)) return false;
    this.rows.set(identity.id, identity);
    return true;
  }

  async find(issuer: string, subject: string): Promise<Identity | undefined> {
    await Promise.resolve();
    return this.linked(issuer, subject);
  }

  async listOf(userId: string): Promise<Identity[]> {
    await Promise.resolve();
    return [...this.rows.values()]
      .filter((row) => row.userId === userId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  private linked(issuer: string, subject: string): Identity | undefined {
    return [...this.rows.values()].find((row) => row.issuer === issuer && row.subject === subject);
  }

  async countOf(userId: string, _within?: Transaction): Promise<number> {
    return (await this.listOf(userId)).length;
  }

  /** `within` is not joined: memory writes are not transactional. */
  async remove(userId: string, id: string, _within?: Transaction): Promise<boolean> {
    await Promise.resolve();
    const row = this.rows.get(id);
    if (!row || row.userId !== userId) return false;
    return this.rows.delete(id);
  }
}
