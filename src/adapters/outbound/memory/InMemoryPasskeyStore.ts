import type { Passkey, PasskeyStore } from '../../../application/ports/PasskeyStore.js';

/** Passkeys in memory (no transactions to join: every call is atomic on its own). */
export class InMemoryPasskeyStore implements PasskeyStore {
  private readonly rows = new Map<string, Passkey>();

  async add(passkey: Passkey): Promise<boolean> {
    await Promise.resolve();
    for (const row of this.rows.values()) if (row.credentialId === passkey.credentialId) return false;
    this.rows.set(passkey.id, { ...passkey, transports: [...passkey.transports] });
    return true;
  }

  async listOf(userId: string): Promise<Passkey[]> {
    await Promise.resolve();
    return [...this.rows.values()]
      .filter((row) => row.userId === userId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async findByCredentialId(credentialId: string): Promise<Passkey | undefined> {
    await Promise.resolve();
    for (const row of this.rows.values()) if (row.credentialId === credentialId) return row;
    return undefined;
  }

  async countOf(userId: string): Promise<number> {
    return (await this.listOf(userId)).length;
  }

  async remove(userId: string, id: string): Promise<boolean> {
    await Promise.resolve();
    const row = this.rows.get(id);
    if (row?.userId !== userId) return false;
    this.rows.delete(id);
    return true;
  }

  async recordUse(id: string, counter: number, backedUp: boolean, now: Date): Promise<boolean> {
    await Promise.resolve();
    const row = this.rows.get(id);
    if (!row || !(counter === 0 ? row.counter === 0 : row.counter < counter)) return false;
    this.rows.set(id, { ...row, counter, backedUp, lastUsedAt: now });
    return true;
  }
}
