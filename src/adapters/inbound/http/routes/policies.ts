import type Router from '@koa/router';
import type { AddPolicy } from '../../../../application/admin/AddPolicy.js';
import type { ListPolicies } from '../../../../application/admin/ListPolicies.js';
import type { RemovePolicy } from '../../../../application/admin/RemovePolicy.js';
import type { Authenticate } from '../../../../application/auth/Authenticate.js';
import type { AccessPolicy } from '../../../../application/ports/AccessPolicy.js';
import { arrayOf, closedObject, type JsonSchema } from '../../codecs/jsonSchema.js';
import { PolicyActionField, PolicyBody, PolicyPathField, PolicyScopeField } from '../../codecs/policyCodecs.js';
import { RoleField } from '../../codecs/userCodecs.js';
import { success } from '../envelope.js';
import { noContent, ok, operation, RestRoutes } from '../operations.js';
import type { RequestState } from '../state.js';
import { ADMIN_TAG } from './users.js';

export interface PolicyUseCases {
  authenticate: Authenticate;
  policy: AccessPolicy;
  listPolicies: ListPolicies;
  addPolicy: AddPolicy;
  removePolicy: RemovePolicy;
}

const POLICY_RULE_SCHEMA: JsonSchema = {
  title: 'PolicyRule',
  ...closedObject({
    role: RoleField.schema,
    path: PolicyPathField.schema,
    action: PolicyActionField.schema,
    scope: PolicyScopeField.schema,
  }),
};
const POLICIES_SCHEMA: JsonSchema = {
  title: 'Policies',
  ...closedObject({
    policies: arrayOf(
      POLICY_RULE_SCHEMA,
      'Who may do what: a role, a path pattern, a regular expression over methods, and the rows it reaches',
    ),
    inheritance: arrayOf(
      closedObject({ role: RoleField.schema, parent: RoleField.schema }),
      'A role has every right of its parent',
    ),
  }),
};

/** The access rules under `/api/v1/admin/policies` (docs/access-rules.md). */
export const POLICY_OPERATIONS = {
  listPolicies: operation({
    id: 'listPolicies',
    method: 'GET',
    path: '/api/v1/admin/policies',
    tag: ADMIN_TAG,
    summary: 'List the access rules',
    access: 'policy',
    answers: [ok(200, 'Every rule and every role inheritance', POLICIES_SCHEMA)],
  }),
  addPolicy: operation({
    id: 'addPolicy',
    method: 'POST',
    path: '/api/v1/admin/policies',
    tag: ADMIN_TAG,
    summary: 'Add an access rule',
    description: 'Persisted, and with Redis configured effective on every instance within a second.',
    access: 'policy',
    body: PolicyBody,
    answers: [ok(201, 'The rule added', POLICY_RULE_SCHEMA)],
    failures: { 409: 'The rule already exists' },
  }),
  removePolicy: operation({
    id: 'removePolicy',
    method: 'DELETE',
    path: '/api/v1/admin/policies',
    tag: ADMIN_TAG,
    summary: 'Remove an access rule',
    access: 'policy',
    body: PolicyBody,
    answers: [noContent('The rule is removed')],
    failures: { 404: 'No such rule', 409: 'Without it no role could manage the access rules' },
  }),
};

/** `/api/v1/admin/policies` (token and policy). */
export function policyRoutes(useCases: PolicyUseCases): (router: Router<RequestState>) => void {
  const ops = POLICY_OPERATIONS;
  return (router) => {
    const api = new RestRoutes(router, useCases);

    api.on(ops.listPolicies, async (ctx) => {
      ctx.body = success(await useCases.listPolicies.execute());
    });

    api.on(ops.addPolicy, async (ctx, { body }) => {
      ctx.status = 201;
      ctx.body = success(await useCases.addPolicy.execute(body));
    });

    api.on(ops.removePolicy, async (ctx, { body }) => {
      await useCases.removePolicy.execute(body);
      ctx.status = 204;
    });
  };
}
