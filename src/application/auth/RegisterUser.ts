import { DEFAULT_ROLE } from '../../domain/user/Role.js';
import { User } from '../../domain/user/User.js';
import { EmailAlreadyRegisteredError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { Clock } from '../ports/Clock.js';
import type { IdGenerator } from '../ports/IdGenerator.js';
import type { Transactions } from '../ports/Jobs.js';
import type { PasswordHasher } from '../ports/PasswordHasher.js';
import type { AccountLinks } from '../account/AccountLinks.js';
import type { ClientInfo, SessionIssuer, TokenPair } from './SessionIssuer.js';

/** Validated, normalized registration data (e-mail lower-cased, names trimmed). */
export interface RegisterUserInput {
  readonly email: string;
  readonly password: string;
  readonly firstName: string;
  readonly lastName: string;
  readonly client: ClientInfo;
}

/** What RegisterUser is given, by name. */
export interface RegisterUserDependencies {
  readonly users: UserRepository;
  readonly hasher: PasswordHasher;
  readonly ids: IdGenerator;
  readonly clock: Clock;
  readonly issuer: SessionIssuer;
  readonly links: AccountLinks;
  readonly transactions: Transactions;
  /** Whether registering starts a session: false with `auth.require_verified_email` (the user logs in once verified). */
  readonly sessionOnRegister: boolean;
}

/**
 * Registers a user with role `user` (never anything else, whatever the client sends), storing
 * only a hash of the password, starts a session and mails a verification link (in the background:
 * registration never fails because of the mail server). Rejects with EmailAlreadyRegisteredError.
 * With `sessionOnRegister` false, no session starts.
 */
export class RegisterUser {
  constructor(private readonly deps: RegisterUserDependencies) {}

  async execute(input: RegisterUserInput): Promise<{ user: User; tokens: TokenPair | undefined }> {
    const { users, hasher, ids, clock, transactions, links, issuer, sessionOnRegister } = this.deps;
    if (await users.findByEmail(input.email)) throw new EmailAlreadyRegisteredError();
    const passwordHash = await hasher.hash(input.password);
    const user = User.register(
      {
        id: ids.newId(),
        email: input.email,
        firstName: input.firstName,
        lastName: input.lastName,
        role: DEFAULT_ROLE,
        passwordHash,
      },
      clock.now(),
    );
    // The user and its verification mail's job in one transaction: no user without its mail, no
    // mail for a user that was not stored (the repository still guards the race on the e-mail).
    await transactions.run(async (tx) => {
      await users.add(user, tx);
      await links.request(
        { userId: user.id },
        'email-verification',
        input.client.ip === null ? undefined : { ip: input.client.ip },
        tx,
      );
    });
    return { user, tokens: sessionOnRegister ? await issuer.start(user, input.client, ['pwd']) : undefined };
  }
}
