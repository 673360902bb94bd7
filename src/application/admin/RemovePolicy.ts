import type { AccessPolicy, PolicyRule } from '../ports/AccessPolicy.js';
import { PolicyNotFoundError } from './PolicyNotFoundError.js';

/** Removes an allow rule, effective at once and persisted; an unknown rule is not found. */
export class RemovePolicy {
  constructor(private readonly policy: AccessPolicy) {}

  async execute(rule: PolicyRule): Promise<void> {
    if (!(await this.policy.remove(rule))) throw new PolicyNotFoundError(rule);
  }
}
