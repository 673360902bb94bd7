import { UserNotFoundError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { PasskeyStore } from '../ports/PasskeyStore.js';
import type { WebAuthn, WebAuthnOptionsJson } from '../ports/WebAuthn.js';
import { PASSKEY_CHALLENGE_TTL_MS, type CeremonyChallenges } from './CeremonyChallenges.js';

/** What StartPasskeyRegistration is given, by name. */
export interface StartPasskeyRegistrationDependencies {
  readonly users: UserRepository;
  readonly passkeys: PasskeyStore;
  readonly ceremonies: CeremonyChallenges;
  readonly webAuthn: WebAuthn;
  /** `auth.webauthn.require_user_verification`: the options then ask the authenticator to verify its user. */
  readonly requireUserVerification: boolean;
}

/**
 * The options of a passkey registration for the caller: a new challenge bound to the caller (single
 * use, 5 minutes), a discoverable credential asked for (`residentKey: required`, so it signs in
 * without an e-mail), user verification required or preferred as configured, and the caller's
 * passkeys excluded (an authenticator holding one is not registered twice).
 */
export class StartPasskeyRegistration {
  constructor(private readonly deps: StartPasskeyRegistrationDependencies) {}

  async execute(input: { readonly userId: string }): Promise<WebAuthnOptionsJson> {
    const { users, passkeys, ceremonies, webAuthn, requireUserVerification } = this.deps;
    const user = await users.findById(input.userId);
    if (!user) throw new UserNotFoundError(input.userId);
    const existing = await passkeys.listOf(user.id);
    const challenge = await ceremonies.issue('registration', user.id);
    return webAuthn.registrationOptions({
      user: { id: user.id, name: user.email, displayName: `${user.firstName} ${user.lastName}` },
      challenge,
      exclude: existing,
      userVerification: requireUserVerification ? 'required' : 'preferred',
      timeoutMs: PASSKEY_CHALLENGE_TTL_MS,
    });
  }
}
