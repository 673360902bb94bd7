import { signInMethods } from '../../domain/user/SignInMethod.js';
import type { User } from '../../domain/user/User.js';
import { InvalidAccountTokenError, InvalidSecondFactorError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { Clock } from '../ports/Clock.js';
import type { LoginThrottle } from '../ports/LoginThrottle.js';
import type { MfaChallengeStore } from '../ports/MfaChallengeStore.js';
import type { OneTimePasswords } from '../ports/OneTimePasswords.js';
import type { OneTimeSecrets } from '../ports/OneTimeSecrets.js';
import type { RecoveryCodes } from '../ports/RecoveryCodes.js';
import type { SecretBox } from '../ports/SecretBox.js';
import type { TotpStore } from '../ports/TotpStore.js';
import type { ClientInfo, SessionIssuer, TokenPair } from '../auth/SessionIssuer.js';
import type { LoginAttempts } from '../auth/LoginAttempts.js';
import { throttleKey } from '../auth/LoginAttempts.js';

/** A TOTP code as typed: six digits (spaces around and inside ignored). */
const TOTP_CODE = /^\d{6}$/;

export interface VerifySecondFactorInput {
  readonly mfaToken: string;
  /** A TOTP code or a recovery code. */
  readonly code: string;
  readonly client: ClientInfo & { readonly ip: string };
}

/** What VerifySecondFactor is given, by name. */
export interface VerifySecondFactorDependencies {
  readonly users: UserRepository;
  readonly challenges: MfaChallengeStore;
  readonly secrets: OneTimeSecrets;
  readonly totp: TotpStore;
  readonly otp: OneTimePasswords;
  readonly box: SecretBox;
  readonly recoveryCodes: RecoveryCodes;
  readonly throttle: LoginThrottle;
  /** The process's bound on concurrent checks per throttle key, shared with LoginUser. */
  readonly attempts: LoginAttempts;
  readonly issuer: SessionIssuer;
  readonly clock: Clock;
}

/**
 * Finishes a sign-in that SignInGate held for a second factor: the `mfa_token` and a code (a TOTP
 * code within one step of now, or an unused recovery code) → the session the first step would have
 * started, its `amr` gaining `otp`. A TOTP code is accepted once (its time step, and every earlier
 * one, is then spent for the user); a recovery code once. A wrong code counts toward the login
 * throttle of the user's e-mail and the client's IP (past it: RateLimitedError, even for a right
 * code) and leaves the token usable; the first success spends the token. Concurrent guesses cannot
 * overrun the limit (LoginAttempts, shared with the password step).
 *
 * @throws InvalidAccountTokenError (`INVALID_TOKEN`) for a malformed, unknown, expired or spent token.
 * @throws InvalidSecondFactorError (`UNAUTHORIZED`) for a wrong, replayed or spent code.
 * @throws RateLimitedError past the login throttle.
 */
export class VerifySecondFactor {
  constructor(private readonly deps: VerifySecondFactorDependencies) {}

  async execute(input: VerifySecondFactorInput): Promise<{ user: User; tokens: TokenPair }> {
    const { challenges, secrets, users, throttle, attempts, clock, issuer } = this.deps;
    const now = clock.now();
    const parsed = secrets.parse(input.mfaToken);
    const challenge = parsed ? await challenges.find(parsed.selector, now) : undefined;
    if (!parsed || !challenge || !secrets.matches(parsed.verifier, challenge.verifierHash)) {
      throw new InvalidAccountTokenError();
    }
    const user = await users.findById(challenge.userId);
    if (!user) throw new InvalidAccountTokenError();
    const key = throttleKey(user.email, input.client.ip);
    await attempts.run(key, 'too many failed attempts', async () => {
      if (!(await this.accepts(user, input.code.replace(/\s+/g, ''), now))) {
        await throttle.recordFailure(key);
        throw new InvalidSecondFactorError();
      }
      await throttle.reset(key);
    });
    if (!(await challenges.spend(challenge.selector, now))) throw new InvalidAccountTokenError();
    const amr = signInMethods(...challenge.methods, 'otp');
    return { user, tokens: await issuer.start(user, input.client, amr) };
  }

  /** Whether `code` is a TOTP code of the user not used yet, or one of its unused recovery codes (spending it). */
  private async accepts(user: User, code: string, now: Date): Promise<boolean> {
    const { totp, otp, box, recoveryCodes } = this.deps;
    const enrolment = await totp.find(user.id);
    if (!enrolment?.confirmedAt) return false;
    if (TOTP_CODE.test(code)) {
      const secret = box.open(enrolment.sealedSecret, user.id);
      const step = secret === undefined ? undefined : otp.verify(secret, code, now);
      return step !== undefined && (await totp.useStep(user.id, step));
    }
    const hash = recoveryCodes.hash(code);
    return hash !== undefined && (await totp.useRecoveryCode(user.id, hash, now));
  }
}
