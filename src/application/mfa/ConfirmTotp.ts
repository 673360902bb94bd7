import { ConflictError, ValidationError } from '../../domain/shared/DomainError.js';
import { UserNotFoundError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { Transactions } from '../ports/Jobs.js';
import type { Clock } from '../ports/Clock.js';
import type { OneTimePasswords } from '../ports/OneTimePasswords.js';
import type { RecoveryCodes } from '../ports/RecoveryCodes.js';
import type { SecretBox } from '../ports/SecretBox.js';
import type { TotpStore } from '../ports/TotpStore.js';

/** How many recovery codes turning TOTP on answers. */
export const RECOVERY_CODE_COUNT = 10;

/** What ConfirmTotp is given, by name. */
export interface ConfirmTotpDependencies {
  readonly users: UserRepository;
  readonly totp: TotpStore;
  readonly otp: OneTimePasswords;
  readonly box: SecretBox;
  readonly recoveryCodes: RecoveryCodes;
  readonly transactions: Transactions;
  readonly clock: Clock;
}

/**
 * Turns TOTP on: a code of the secret StartTotp gave (within one step of now) proves the
 * authenticator has it. The enrolment is confirmed (that code's step counts as used), the user's
 * second factor is on — in one transaction — and ten recovery codes are answered, once: only their
 * keyed hashes are stored.
 *
 * @throws ValidationError on `code` when it does not match.
 * @throws ConflictError when there is no secret waiting for confirmation (none started, or TOTP is on).
 */
export class ConfirmTotp {
  constructor(private readonly deps: ConfirmTotpDependencies) {}

  async execute(input: { readonly userId: string; readonly code: string }): Promise<{ recoveryCodes: string[] }> {
    const { users, totp, otp, box, recoveryCodes, transactions, clock } = this.deps;
    const user = await users.findById(input.userId);
    if (!user) throw new UserNotFoundError(input.userId);
    const enrolment = await totp.find(user.id);
    if (!enrolment || enrolment.confirmedAt !== null) throw new ConflictError('no TOTP secret waits for confirmation');
    const secret = box.open(enrolment.sealedSecret, user.id);
    const now = clock.now();
    const step = secret === undefined ? undefined : otp.verify(secret, input.code.replace(/\s+/g, ''), now);
    if (step === undefined) throw new ValidationError([{ field: 'code', message: 'is incorrect' }]);
    const codes = recoveryCodes.create(RECOVERY_CODE_COUNT);
    const hashes = codes.map((code) => recoveryCodes.hash(code) as string);
    await transactions.run(async (tx) => {
      if (!(await totp.confirm(user.id, now, step, hashes, tx))) {
        throw new ConflictError('no TOTP secret waits for confirmation');
      }
      await users.setSecondFactors(user.id, { mfaEnabled: true }, now, tx);
    });
    return { recoveryCodes: codes };
  }
}
