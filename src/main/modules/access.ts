import { ContainerModule } from 'inversify';
import { POLICY_OPERATIONS, policyRoutes, type PolicyUseCases } from '../../adapters/inbound/http/routes/policies.js';
import { AddPolicy } from '../../application/admin/AddPolicy.js';
import { ListPolicies } from '../../application/admin/ListPolicies.js';
import { RemovePolicy } from '../../application/admin/RemovePolicy.js';
import { token, TOKENS } from '../wiring/tokens.js';
import { bindBuilt, built } from './built.js';
import type { FeatureModule } from './FeatureModule.js';

export const AccessTokens = {
  UseCases: token<PolicyUseCases>('access.UseCases'),
} as const;

/**
 * Administration of the access rules (docs/access-rules.md), always served under the admin API:
 * list, add and remove rules. The rules themselves are loaded and kept in step at start-up
 * (src/main/infrastructure/accessPolicy.ts); the users module's migration creates their table,
 * this module's gives the rules their scope.
 */
export const access: FeatureModule = {
  name: 'access',
  bindings: new ContainerModule(({ bind }) => {
    bindBuilt(
      bind(AccessTokens.UseCases),
      built(
        { authenticate: TOKENS.Authenticate, policy: TOKENS.AccessPolicy },
        ({ authenticate, policy }): PolicyUseCases => ({
          authenticate,
          policy,
          listPolicies: new ListPolicies(policy),
          addPolicy: new AddPolicy(policy),
          removePolicy: new RemovePolicy(policy),
        }),
      ),
    );
  }),
  rest: {
    always: true,
    operations: Object.values(POLICY_OPERATIONS),
    routes: built({ uses: AccessTokens.UseCases }, ({ uses }) => policyRoutes(uses)),
  },
};
