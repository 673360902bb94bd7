import type { TotpEnrolment, TotpStore } from '../../../application/ports/TotpStore.js';
import type { Transaction } from '../../../domain/shared/Transaction.js';

interface RecoveryCodeRow {
  readonly hash: string;
  usedAt: Date | null;
}

/** TOTP enrolments and recovery codes in memory; `within` is not joined (memory writes are not transactional). */
export class InMemoryTotpStore implements TotpStore {
  private readonly enrolments = new Map<string, TotpEnrolment>();
  private readonly codes = new Map<string, RecoveryCodeRow[]>();

  async find(userId: string): Promise<TotpEnrolment | undefined> {
    await Promise.resolve();
    return this.enrolments.get(userId);
  }

  async begin(enrolment: TotpEnrolment): Promise<boolean> {
    await Promise.resolve();
    if (this.enrolments.get(enrolment.userId)?.confirmedAt) return false;
    this.enrolments.set(enrolment.userId, enrolment);
    return true;
  }

  async confirm(
    userId: string,
    now: Date,
    step: number,
    recoveryCodeHashes: readonly string[],
    _within?: Transaction,
  ): Promise<boolean> {
    await Promise.resolve();
    const enrolment = this.enrolments.get(userId);
    if (!enrolment || enrolment.confirmedAt) return false;
    this.enrolments.set(userId, { ...enrolment, confirmedAt: now, lastUsedStep: step });
    this.codes.set(
      userId,
      recoveryCodeHashes.map((hash) => ({ hash, usedAt: null })),
    );
    return true;
  }

  async remove(userId: string, _within?: Transaction): Promise<boolean> {
    await Promise.resolve();
    this.codes.delete(userId);
    return this.enrolments.delete(userId);
  }

  async useStep(userId: string, step: number): Promise<boolean> {
    await Promise.resolve();
    const enrolment = this.enrolments.get(userId);
    if (!enrolment?.confirmedAt || (enrolment.lastUsedStep !== null && enrolment.lastUsedStep >= step)) return false;
    this.enrolments.set(userId, { ...enrolment, lastUsedStep: step });
    return true;
  }

  async useRecoveryCode(userId: string, codeHash: string, now: Date): Promise<boolean> {
    await Promise.resolve();
    const row = this.codes.get(userId)?.find((code) => code.hash === codeHash && code.usedAt === null);
    if (!row) return false;
    row.usedAt = now;
    return true;
  }

  async recoveryCodesLeft(userId: string): Promise<number> {
    await Promise.resolve();
    return (this.codes.get(userId) ?? []).filter((code) => code.usedAt === null).length;
  }

  /** The recovery code hashes kept for the user (for tests: only hashes are ever kept). */
  storedRecoveryCodeHashes(userId: string): string[] {
    return (this.codes.get(userId) ?? []).map((code) => code.hash);
  }
}
