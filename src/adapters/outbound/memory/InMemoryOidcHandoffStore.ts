import type { OidcCode, OidcHandoffStore, OidcState } from '../../../application/ports/OidcHandoffStore.js';

interface Row<T> {
  readonly record: T;
  spentAt: Date | null;
}

/** A browser sign-in's states and one-time codes in memory. */
export class InMemoryOidcHandoffStore implements OidcHandoffStore {
  private readonly states = new Map<string, Row<OidcState>>();
  private readonly codes = new Map<string, Row<OidcCode>>();

  async addState(state: OidcState): Promise<void> {
    await Promise.resolve();
    this.states.set(state.selector, { record: state, spentAt: null });
  }

  async findState(selector: string, now: Date): Promise<OidcState | undefined> {
    await Promise.resolve();
    return live(this.states.get(selector), now)?.record;
  }

  async spendState(selector: string, now: Date): Promise<boolean> {
    await Promise.resolve();
    return spend(this.states.get(selector), now);
  }

  async addCode(code: OidcCode): Promise<void> {
    await Promise.resolve();
    this.codes.set(code.selector, { record: code, spentAt: null });
  }

  async findCode(selector: string, now: Date): Promise<OidcCode | undefined> {
    await Promise.resolve();
    return live(this.codes.get(selector), now)?.record;
  }

  async spendCode(selector: string, now: Date): Promise<boolean> {
    await Promise.resolve();
    return spend(this.codes.get(selector), now);
  }

  async purgeExpired(before: Date): Promise<number> {
    await Promise.resolve();
    let purged = 0;
    for (const rows of [this.states, this.codes] as Map<string, Row<{ expiresAt: Date }>>[]) {
      for (const [selector, row] of rows) {
        if (row.record.expiresAt < before) {
          rows.delete(selector);
          purged += 1;
        }
      }
    }
    return purged;
  }
}

function live<T extends { expiresAt: Date }>(row: Row<T> | undefined, now: Date): Row<T> | undefined {
  return row && row.spentAt === null && row.record.expiresAt > now ? row : undefined;
}

function spend(row: Row<{ expiresAt: Date }> | undefined, now: Date): boolean {
  if (!live(row, now)) return false;
  row!.spentAt = now;
  return true;
}
