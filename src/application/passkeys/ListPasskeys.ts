import type { Passkey, PasskeyStore } from '../ports/PasskeyStore.js';

/** The caller's passkeys, oldest first (never a key: the presenter shows names, dates and kinds). */
export class ListPasskeys {
  constructor(private readonly deps: { readonly passkeys: PasskeyStore }) {}

  execute(input: { readonly userId: string }): Promise<Passkey[]> {
    return this.deps.passkeys.listOf(input.userId);
  }
}
