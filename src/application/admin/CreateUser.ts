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

/**
 * Creates a user with any role the access policy knows — the operator's way to make the first
 * admin. Rejects an unknown role (validation error on `role`) and a taken e-mail (conflict). The
 * operator vouches for the address, so its e-mail counts as verified (else, with
 * `auth.require_verified_email`, the first admin could not log in without a mail server).
 */
export class CreateUser {
  constructor(
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly policy: AccessPolicy,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  async execute(input: CreateUserInput): Promise<User> {
    const roles = await this.policy.roles();
    if (!roles.includes(input.role)) {
      throw new ValidationError([
        { field: 'role', message: `is not a role the access policy knows (${roles.join(', ')})` },
      ]);
    }
    if (await this.users.findByEmail(input.email)) throw new EmailAlreadyRegisteredError();
    const user = User.register(
      {
        id: this.ids.newId(),
        email: input.email,
        firstName: input.firstName,
        lastName: input.lastName,
        role: input.role,
        passwordHash: await this.hasher.hash(input.password),
        emailVerified: true,
      },
      this.clock.now(),
    );
    await this.users.add(user);
    return user;
  }
}
