import { ValidationError } from '../../domain/shared/DomainError.js';
import { User } from '../../domain/user/User.js';
import { EmailAlreadyRegisteredError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { AccessPolicy } from '../ports/AccessPolicy.js';
import type { Clock } from '../ports/Clock.js';
import type { IdGenerator } from '../ports/IdGenerator.js';
import type { PasswordHasher } from '../ports/PasswordHasher.js';

export interface CreateUserInput {
  readonly email: string;
  readonly password: string;
  readonly firstName: string;
  readonly lastName: string;
  readonly role: string;
}

/** What CreateUser is given, by name. */
export interface CreateUserDependencies {
  readonly users: UserRepository;
  readonly hasher: PasswordHasher;
  readonly policy: AccessPolicy;
  readonly ids: IdGenerator;
  readonly clock: Clock;
}

/**
 * Creates a user with any role the access policy knows — the operator's way to make the first
 * admin. Rejects an unknown role (validation error on `role`) and a taken e-mail (conflict). The
 * operator vouches for the address, so its e-mail counts as verified (else, with
 * `auth.require_verified_email`, the first admin could not log in without a mail server).
 */
export class CreateUser {
  constructor(private readonly deps: CreateUserDependencies) {}

  async execute(input: CreateUserInput): Promise<User> {
    const { policy, users, ids, hasher, clock } = this.deps;
    const roles = await policy.roles();
    if (!roles.includes(input.role)) {
      throw new ValidationError([
        { field: 'role', message: `is not a role the access policy knows (${roles.join(', ')})` },
      ]);
    }
    if (await users.findByEmail(input.email)) throw new EmailAlreadyRegisteredError();
    const user = User.register(
      {
        id: ids.newId(),
        email: input.email,
        firstName: input.firstName,
        lastName: input.lastName,
        role: input.role,
        passwordHash: await hasher.hash(input.password),
        emailVerified: true,
      },
      clock.now(),
    );
    await users.add(user);
    return user;
  }
}
