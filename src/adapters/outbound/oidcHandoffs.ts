import type { OidcCode, OidcHandoffStore, OidcState } from '../../application/ports/OidcHandoffStore.js';
import type { SingleUseRecords } from '../../application/ports/SingleUseRecords.js';

/** A browser sign-in's states and one-time codes, over two stores of single-use records (memory or SQL). */
export class OidcHandoffs implements OidcHandoffStore {
  constructor(
    private readonly states: SingleUseRecords<OidcState>,
    private readonly codes: SingleUseRecords<OidcCode>,
  ) {}

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
