import type { OidcCode, OidcHandoffStore, OidcState } from '../../../application/ports/OidcHandoffStore.js';
import { InMemorySingleUseRecords } from './InMemorySingleUseRecords.js';

/** A browser sign-in's states and one-time codes in memory. */
export class InMemoryOidcHandoffStore implements OidcHandoffStore {
  private readonly states = new InMemorySingleUseRecords<OidcState>();
  private readonly codes = new InMemorySingleUseRecords<OidcCode>();

  addState(state: OidcState): Promise<void> {
    return this.states.add(state);
  }

  findState(selector: string, now: Date): Promise<OidcState | undefined> {
    return this.states.find(selector, now);
  }

  spendState(selector: string, now: Date): Promise<boolean> {
    return this.states.spend(selector, now);
  }

  addCode(code: OidcCode): Promise<void> {
    return this.codes.add(code);
  }

  findCode(selector: string, now: Date): Promise<OidcCode | undefined> {
    return this.codes.find(selector, now);
  }

  spendCode(selector: string, now: Date): Promise<boolean> {
    return this.codes.spend(selector, now);
  }

  async purgeExpired(before: Date): Promise<number> {
    return (await this.states.purgeExpired(before)) + (await this.codes.purgeExpired(before));
  }
}
