import { ConflictError } from '../../domain/shared/DomainError.js';
import type { AccessPolicy, PolicyRule, Reach } from '../ports/AccessPolicy.js';
import { PolicyNotFoundError } from './PolicyNotFoundError.js';

/** Where the access policy itself is changed: some role must always be able to reach it. */
export const POLICY_ADMINISTRATION: Reach = { path: '/api/v1/admin/policies', action: 'POST' };

/**
 * Removes an allow rule (of the scope given, `all` when none), effective at once and persisted; an unknown rule is not found. A rule
 * without which no role could reach `POST /api/v1/admin/policies` stays (a conflict), so the
 * policy can always be repaired through the API; the check and the removal are one atomic step
 * of the access policy.
 */
export class RemovePolicy {
  constructor(private readonly policy: AccessPolicy) {}

  async execute(rule: PolicyRule): Promise<void> {
    const outcome = await this.policy.removeKeepingReach(rule, POLICY_ADMINISTRATION);
    if (outcome === 'not-found') throw new PolicyNotFoundError(rule);
    if (outcome === 'unreachable') throw new ConflictError('no role could manage the access policy without this rule');
  }
}
