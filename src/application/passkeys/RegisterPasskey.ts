import { ConflictError, ValidationError } from '../../domain/shared/DomainError.js';
import { UserNotFoundError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { Clock } from '../ports/Clock.js';
import type { IdGenerator } from '../ports/IdGenerator.js';
import type { Transactions } from '../ports/Jobs.js';
import type { Passkey, PasskeyStore } from '../ports/PasskeyStore.js';
import type { WebAuthn, WebAuthnCredentialJson } from '../ports/WebAuthn.js';
import type { CeremonyChallenges } from './CeremonyChallenges.js';

export interface RegisterPasskeyInput {
  readonly userId: string;
  /** What the browser's `navigator.credentials.create` answered, as WebAuthn JSON. */
  readonly credential: WebAuthnCredentialJson;
  /** A name for people; `Passkey <n>` when not given. */
  readonly name?: string;
}

/** What RegisterPasskey is given, by name. */
export interface RegisterPasskeyDependencies {
  readonly users: UserRepository;
  readonly passkeys: PasskeyStore;
  readonly ceremonies: CeremonyChallenges;
  readonly webAuthn: WebAuthn;
  readonly transactions: Transactions;
  readonly ids: IdGenerator;
  readonly clock: Clock;
  /** `auth.webauthn.require_user_verification`: a credential made without user verification is refused. */
  readonly requireUserVerification: boolean;
}

/**
 * Stores the caller's new passkey: the registration challenge it answers (made for this caller by
 * StartPasskeyRegistration) is spent, its attestation verified (origin, RP id, challenge), and the
 * credential stored — its public key, counter, transports, device type and backup state — with the
 * user's `hasPasskey` on, in one transaction. A passkey is a second factor from then on.
 *
 * @throws InvalidAccountTokenError (`INVALID_TOKEN`) when the challenge is not a live registration challenge of the caller.
 * @throws ValidationError on `response` when the attestation does not verify, or lacks user verification that is required.
 * @throws ConflictError when the credential is registered already.
 */
export class RegisterPasskey {
  constructor(private readonly deps: RegisterPasskeyDependencies) {}

  async execute(input: RegisterPasskeyInput): Promise<Passkey> {
    const { users, passkeys, ceremonies, webAuthn, transactions, ids, clock } = this.deps;
    const user = await users.findById(input.userId);
    if (!user) throw new UserNotFoundError(input.userId);
    const challenge = webAuthn.challengeOf(input.credential);
    await ceremonies.spend(challenge, 'registration', user.id);
    const registered = await webAuthn.verifyRegistration(input.credential, challenge as string);
    if (!registered) {
      throw new ValidationError([
        { field: 'response', message: 'is not a credential made for this service (origin, RP id or attestation)' },
      ]);
    }
    if (this.deps.requireUserVerification && !registered.userVerified) {
      throw new ValidationError([{ field: 'response', message: 'was made without user verification' }]);
    }
    const now = clock.now();
    return transactions.run(async (tx) => {
      const count = await passkeys.countOf(user.id, tx);
      const passkey: Passkey = {
        id: ids.newId(),
        userId: user.id,
        credentialId: registered.credentialId,
        publicKey: registered.publicKey,
        counter: registered.counter,
        transports: registered.transports,
        deviceType: registered.deviceType,
        backedUp: registered.backedUp,
        name: input.name ?? `Passkey ${count + 1}`,
        createdAt: now,
        lastUsedAt: null,
      };
      if (!(await passkeys.add(passkey, tx))) throw new ConflictError('this passkey is registered already');
      await users.setSecondFactors(user.id, { hasPasskey: true }, now, tx);
      return passkey;
    });
  }
}
