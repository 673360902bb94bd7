import { ConflictError } from '../../domain/shared/DomainError.js';
import type { AccessPolicy, PolicyRule } from '../ports/AccessPolicy.js';

/** Adds an allow rule, effective at once and persisted; a rule already present is a conflict. */
export class AddPolicy {
  constructor(private readonly policy: AccessPolicy) {}

  async execute(rule: PolicyRule): Promise<PolicyRule> {
    if (!(await this.policy.add(rule))) throw new ConflictError('policy already exists');
    return rule;
  }
}
