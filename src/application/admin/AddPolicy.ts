import { ConflictError } from '../../domain/shared/DomainError.js';
import type { AccessPolicy, PolicyRule } from '../ports/AccessPolicy.js';

/**
 * Adds an allow rule, effective at once and persisted, and answers it with its scope stated (`all`
 * when not given); a rule already present (the same scope included) is a conflict.
 */
export class AddPolicy {
  constructor(private readonly policy: AccessPolicy) {}

  async execute(rule: PolicyRule): Promise<PolicyRule> {
    const scoped: PolicyRule = { ...rule, scope: rule.scope ?? 'all' };
    if (!(await this.policy.add(scoped))) throw new ConflictError('policy already exists');
    return scoped;
  }
}
