import { DomainError } from '../../domain/shared/DomainError.js';
import type { PolicyRule } from '../ports/AccessPolicy.js';

/** No such rule in the access policy. */
export class PolicyNotFoundError extends DomainError {
  readonly code = 'NOT_FOUND';
  constructor(rule: PolicyRule) {
    super(
      'Policy not found',
      `role: ${rule.role}, path: ${rule.path}, action: ${rule.action}, scope: ${rule.scope ?? 'all'}`,
    );
  }
}
