import { ConflictError, ValidationError } from '../../domain/shared/DomainError.js';
import type { User } from '../../domain/user/User.js';
import { UserNotFoundError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { AccessPolicy } from '../ports/AccessPolicy.js';
import type { Clock } from '../ports/Clock.js';

/**
 * Gives a user another role. The role must be one the access policy knows; an admin cannot
 * change their own role, and the last user whose role is `admin` cannot be demoted (a conflict,
 * decided atomically by the repository, so two admins demoting each other cannot both succeed).
 * The change reaches RBAC at the user's next login or refresh.
 */
export class ChangeUserRole {
  constructor(
    private readonly users: UserRepository,
    private readonly policy: AccessPolicy,
    private readonly clock: Clock,
  ) {}

  async execute(input: { readonly actorId: string; readonly userId: string; readonly role: string }): Promise<User> {
    if (!(await this.policy.roles()).includes(input.role)) {
      throw new ValidationError([{ field: 'role', message: 'is not a role the access policy knows' }]);
    }
    const user = await this.users.findById(input.userId);
    if (!user) throw new UserNotFoundError(input.userId);
    if (user.id === input.actorId && user.role !== input.role)
      throw new ConflictError('you cannot change your own role');
    if (user.role === input.role) return user;
    const updated = user.with({ role: input.role }, this.clock.now());
    const outcome = await this.users.updateKeepingAnAdmin(updated);
    if (outcome === 'not-found') throw new UserNotFoundError(input.userId);
    if (outcome === 'last-admin') throw new ConflictError('the last admin cannot be demoted');
    return updated;
  }
}
