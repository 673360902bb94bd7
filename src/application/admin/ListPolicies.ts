import type { AccessPolicy, PolicyRule, RoleInheritance } from '../ports/AccessPolicy.js';

/** Every rule and inheritance line in force. */
export class ListPolicies {
  constructor(private readonly policy: AccessPolicy) {}

  execute(): Promise<{ policies: PolicyRule[]; inheritance: RoleInheritance[] }> {
    return this.policy.list();
  }
}
