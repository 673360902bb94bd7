import { signInMethods } from '../../domain/user/SignInMethod.js';
import type { User } from '../../domain/user/User.js';
import { PasskeyRefusedError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { Clock } from '../ports/Clock.js';
import type { PasskeyStore } from '../ports/PasskeyStore.js';
import type { WebAuthn, WebAuthnCredentialJson } from '../ports/WebAuthn.js';
import type { ClientInfo, SessionIssuer } from '../auth/SessionIssuer.js';
import type { SignInGate, SignInOutcome } from '../mfa/SignInGate.js';
import type { CeremonyChallenges } from './CeremonyChallenges.js';

export interface SignInWithPasskeyInput {
  /** What the browser's `navigator.credentials.get` answered, as WebAuthn JSON. */
  readonly credential: WebAuthnCredentialJson;
  readonly client: ClientInfo;
}

/** What SignInWithPasskey is given, by name. */
export interface SignInWithPasskeyDependencies {
  readonly users: UserRepository;
  readonly passkeys: PasskeyStore;
  readonly ceremonies: CeremonyChallenges;
  readonly webAuthn: WebAuthn;
  readonly issuer: SessionIssuer;
  readonly gate: SignInGate;
  readonly clock: Clock;
  /** `auth.webauthn.require_user_verification`: an assertion without user verification is refused. */
  readonly requireUserVerification: boolean;
}

/**
 * Signs in with a discoverable passkey: the sign-in challenge the assertion answers is spent (one
 * attempt per challenge), the credential it names looked up, its signature verified (origin, RP
 * id, challenge), and its signature counter checked — a counter that does not move forward (while
 * either it or the stored one is not 0) is a cloned authenticator's, refused — then recorded with
 * the time of use. With user verification the passkey is two factors on its own (something held,
 * and a PIN or body): a session starts at once, `amr` `hwk`, without a TOTP step. Without it
 * (allowed only when `requireUserVerification` is off) it is one factor, and goes through the
 * sign-in gate like a password: a user with TOTP on then finishes with a code.
 *
 * @throws InvalidAccountTokenError (`INVALID_TOKEN`) when the challenge is not a live sign-in challenge.
 * @throws PasskeyRefusedError (`UNAUTHORIZED`) for an unknown credential, an assertion that does not verify, a counter that did not advance, or missing user verification that is required.
 */
export class SignInWithPasskey {
  constructor(private readonly deps: SignInWithPasskeyDependencies) {}

  async execute(input: SignInWithPasskeyInput): Promise<{ user: User; outcome: SignInOutcome }> {
    const { users, passkeys, ceremonies, webAuthn, issuer, gate, clock } = this.deps;
    const challenge = webAuthn.challengeOf(input.credential);
    await ceremonies.spend(challenge, 'authentication', null);
    const passkey = await passkeys.findByCredentialId(input.credential.id);
    const user = passkey ? await users.findById(passkey.userId) : undefined;
    if (!passkey || !user) throw new PasskeyRefusedError();
    const assertion = await webAuthn.verifyAssertion(input.credential, challenge as string, passkey);
    if (!assertion) throw new PasskeyRefusedError();
    if (this.deps.requireUserVerification && !assertion.userVerified) {
      throw new PasskeyRefusedError('user verification required');
    }
    const advanced = assertion.counter > passkey.counter || (assertion.counter === 0 && passkey.counter === 0);
    if (!advanced || !(await passkeys.recordUse(passkey.id, assertion.counter, assertion.backedUp, clock.now()))) {
      throw new PasskeyRefusedError('signature counter did not advance');
    }
    const amr = signInMethods('hwk');
    if (assertion.userVerified) {
      return { user, outcome: { kind: 'session', tokens: await issuer.start(user, input.client, amr) } };
    }
    return { user, outcome: await gate.pass(user, amr, input.client) };
  }
}
