import type { SignInMethod } from '../../domain/user/SignInMethod.js';
import type { User } from '../../domain/user/User.js';
import type { Clock } from '../ports/Clock.js';
import type { MfaChallengeStore } from '../ports/MfaChallengeStore.js';
import type { OneTimeSecrets } from '../ports/OneTimeSecrets.js';
import type { ClientInfo, SessionIssuer, TokenPair } from '../auth/SessionIssuer.js';

/** The second factors a sign-in can be finished with (`methods` of an `mfa_required` answer). */
export type SecondFactorMethod = 'totp' | 'recovery_code' | 'passkey';

/** How long an `mfa_token` lives. */
export const MFA_TOKEN_TTL_MS = 5 * 60 * 1000;

/** What a first step (a password, an identity provider) leads to. */
export type SignInOutcome =
  | { readonly kind: 'session'; readonly tokens: TokenPair }
  | {
      readonly kind: 'second-factor';
      /** Presented with a code to POST /auth/mfa; single use, MFA_TOKEN_TTL_MS. */
      readonly mfaToken: string;
      readonly methods: readonly SecondFactorMethod[];
    };

/** What SignInGate is given, by name. */
export interface SignInGateDependencies {
  readonly issuer: SessionIssuer;
  readonly challenges: MfaChallengeStore;
  readonly secrets: OneTimeSecrets;
  readonly clock: Clock;
}

/**
 * The one door every first step of a sign-in goes through (a password; later an identity provider):
 * a user without a second factor gets a session at once, signed in to by the first step's methods
 * (`pwd`, `fed`); a user with one gets a challenge instead — an `mfa_token` (a random selector and a
 * keyed verifier, stored only hashed, like e-mailed tokens) that VerifySecondFactor trades, with a
 * code, for the session. A method that is two factors on its own (a passkey with user verification)
 * starts its session with the issuer directly.
 *
 * The second factors are TOTP (`totp`, `recovery_code`) and a passkey (`passkey`, offered unless the
 * first step was that passkey: `hwk`). A passkey finishes a held sign-in by being a whole sign-in of
 * its own (POST /auth/passkey), so the `mfa_token` is traded only with a TOTP or recovery code; it
 * is made all the same, so the answer has one shape whatever the methods.
 */
export class SignInGate {
  constructor(private readonly deps: SignInGateDependencies) {}

  async pass(user: User, amr: readonly SignInMethod[], client: ClientInfo): Promise<SignInOutcome> {
    const methods: SecondFactorMethod[] = user.mfaEnabled ? ['totp', 'recovery_code'] : [];
    if (user.hasPasskey && !amr.includes('hwk')) methods.push('passkey');
    if (methods.length === 0) return { kind: 'session', tokens: await this.deps.issuer.start(user, client, amr) };
    const now = this.deps.clock.now();
    const secret = this.deps.secrets.create();
    await this.deps.challenges.add({
      selector: secret.selector,
      verifierHash: secret.verifierHash,
      userId: user.id,
      methods: amr,
      createdAt: now,
      expiresAt: new Date(now.getTime() + MFA_TOKEN_TTL_MS),
    });
    return {
      kind: 'second-factor',
      mfaToken: secret.token,
      methods,
    };
  }
}
