import type { WebAuthn, WebAuthnOptionsJson } from '../ports/WebAuthn.js';
import { PASSKEY_CHALLENGE_TTL_MS, type CeremonyChallenges } from './CeremonyChallenges.js';

/** What StartPasskeySignIn is given, by name. */
export interface StartPasskeySignInDependencies {
  readonly ceremonies: CeremonyChallenges;
  readonly webAuthn: WebAuthn;
  /** `auth.webauthn.require_user_verification`: the options then ask the authenticator to verify its user. */
  readonly requireUserVerification: boolean;
}

/**
 * The options of a passkey sign-in: a new challenge bound to no user (single use, 5 minutes) and no
 * list of credentials — the browser offers the user's discoverable passkeys for this RP id, and the
 * one chosen names its user.
 */
export class StartPasskeySignIn {
  constructor(private readonly deps: StartPasskeySignInDependencies) {}

  async execute(): Promise<WebAuthnOptionsJson> {
    const challenge = await this.deps.ceremonies.issue('authentication', null);
    return this.deps.webAuthn.authenticationOptions({
      challenge,
      userVerification: this.deps.requireUserVerification ? 'required' : 'preferred',
      timeoutMs: PASSKEY_CHALLENGE_TTL_MS,
    });
  }
}
