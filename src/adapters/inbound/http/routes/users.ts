import type Router from '@koa/router';
import type { AddPolicy } from '../../../../application/admin/AddPolicy.js';
import type { ChangeUserRole } from '../../../../application/admin/ChangeUserRole.js';
import type { DeleteUser } from '../../../../application/admin/DeleteUser.js';
import type { GetUser } from '../../../../application/admin/GetUser.js';
import type { ListPolicies } from '../../../../application/admin/ListPolicies.js';
import type { ListUsers } from '../../../../application/admin/ListUsers.js';
import type { RemovePolicy } from '../../../../application/admin/RemovePolicy.js';
import type { Authenticate } from '../../../../application/auth/Authenticate.js';
import type { AccessPolicy } from '../../../../application/ports/AccessPolicy.js';
import type { GetProfile } from '../../../../application/profile/GetProfile.js';
import type { UpdateProfile } from '../../../../application/profile/UpdateProfile.js';
import { USER_SORT_FIELDS } from '../../../../domain/user/UserRepository.js';
import { decodeFields } from '../../codecs/fields.js';
import { decodeListQuery } from '../../codecs/listCodecs.js';
import { PolicyBody } from '../../codecs/policyCodecs.js';
import { ProfileUpdateBody, RoleChangeBody } from '../../codecs/userCodecs.js';
import { UserNotFoundError } from '../../../../domain/user/UserErrors.js';
import { idOf } from '../../ids.js';
import { success } from '../envelope.js';
import { authenticate } from '../middleware/authenticate.js';
import { authorize } from '../middleware/authorize.js';
import { pageMeta, presentUser } from '../presenters.js';
import type { RequestState } from '../state.js';

export interface UserUseCases {
  authenticate: Authenticate;
  policy: AccessPolicy;
  getProfile: GetProfile;
  updateProfile: UpdateProfile;
  listUsers: ListUsers;
  getUser: GetUser;
  changeUserRole: ChangeUserRole;
  deleteUser: DeleteUser;
  listPolicies: ListPolicies;
  addPolicy: AddPolicy;
  removePolicy: RemovePolicy;
}

/** An id that cannot name a user is answered like an unknown one, without a query. */
const userId = (raw: unknown): string => idOf(raw, (id) => new UserNotFoundError(id));

/** `/api/v1/profile` (token only) and `/api/v1/admin/*` (token and policy). */
export function userRoutes(useCases: UserUseCases): (router: Router<RequestState>) => void {
  const auth = authenticate(useCases.authenticate);
  const guard = (pattern: string) => [auth, authorize(useCases.policy, pattern)] as const;

  return (router) => {
    router.get('/api/v1/profile', auth, async (ctx) => {
      ctx.body = success(presentUser(await useCases.getProfile.execute({ userId: ctx.state.principal!.userId })));
    });

    router.put('/api/v1/profile', auth, async (ctx) => {
      const body = decodeFields(ProfileUpdateBody, ctx.request.body);
      const user = await useCases.updateProfile.execute({
        userId: ctx.state.principal!.userId,
        ...(body.first_name !== undefined ? { firstName: body.first_name } : {}),
        ...(body.last_name !== undefined ? { lastName: body.last_name } : {}),
        ...(body.email !== undefined ? { email: body.email } : {}),
        ...(body.password !== undefined ? { password: body.password } : {}),
        ...(body.current_password !== undefined ? { currentPassword: body.current_password } : {}),
      });
      ctx.body = success(presentUser(user));
    });

    const users = '/api/v1/admin/users';
    router.get(users, ...guard(users), async (ctx) => {
      const query = decodeListQuery(ctx.query, USER_SORT_FIELDS, { search: 'optional' });
      const page = await useCases.listUsers.execute(query);
      ctx.body = success(page.items.map(presentUser), { meta: pageMeta(page) });
    });

    const user = '/api/v1/admin/users/:id';
    router.get(user, ...guard(user), async (ctx) => {
      ctx.body = success(presentUser(await useCases.getUser.execute({ userId: userId(ctx.params.id) })));
    });

    router.put(user, ...guard(user), async (ctx) => {
      const body = decodeFields(RoleChangeBody, ctx.request.body);
      const updated = await useCases.changeUserRole.execute({ actorId: ctx.state.principal!.userId, userId: userId(ctx.params.id), role: body.role });
      ctx.body = success(presentUser(updated));
    });

    router.delete(user, ...guard(user), async (ctx) => {
      await useCases.deleteUser.execute({ actorId: ctx.state.principal!.userId, userId: userId(ctx.params.id) });
      ctx.status = 204;
    });

    const policies = '/api/v1/admin/policies';
    router.get(policies, ...guard(policies), async (ctx) => {
      ctx.body = success(await useCases.listPolicies.execute());
    });

    router.post(policies, ...guard(policies), async (ctx) => {
      const rule = decodeFields(PolicyBody, ctx.request.body);
      ctx.status = 201;
      ctx.body = success(await useCases.addPolicy.execute(rule));
    });

    router.delete(policies, ...guard(policies), async (ctx) => {
      const rule = decodeFields(PolicyBody, ctx.request.body);
      await useCases.removePolicy.execute(rule);
      ctx.status = 204;
    });
  };
}
