import type Router from '@koa/router';
import type { ChangeUserRole } from '../../../../application/admin/ChangeUserRole.js';
import type { DeleteUser } from '../../../../application/admin/DeleteUser.js';
import type { GetUser } from '../../../../application/admin/GetUser.js';
import type { ListUsers } from '../../../../application/admin/ListUsers.js';
import type { EndAllSessions } from '../../../../application/account/EndAllSessions.js';
import type { Authenticate } from '../../../../application/auth/Authenticate.js';
import type { AccessPolicy } from '../../../../application/ports/AccessPolicy.js';
import type { GetProfile } from '../../../../application/profile/GetProfile.js';
import type { UpdateProfile } from '../../../../application/profile/UpdateProfile.js';
import { USER_SORT_FIELDS } from '../../../../domain/user/UserRepository.js';
import { ProfileUpdateBody, RoleChangeBody } from '../../codecs/userCodecs.js';
import { UserNotFoundError } from '../../../../domain/user/UserErrors.js';
import { idOf } from '../../ids.js';
import { success } from '../envelope.js';
import { noContent, ok, operation, page, RestRoutes } from '../operations.js';
import { pageMeta, presentUser, USER_SCHEMA } from '../presenters.js';
import type { RequestState } from '../state.js';

export interface UserUseCases {
  endUserSessions: EndAllSessions;
  authenticate: Authenticate;
  policy: AccessPolicy;
  getProfile: GetProfile;
  updateProfile: UpdateProfile;
  listUsers: ListUsers;
  getUser: GetUser;
  changeUserRole: ChangeUserRole;
  deleteUser: DeleteUser;
}

/** An id that cannot name a user is answered like an unknown one, without a query. */
const userId = (raw: unknown): string => idOf(raw, (id) => new UserNotFoundError(id));

const profileTag = { name: 'profile', description: "The caller's own account (a token is all it needs)" };
/** The admin API's tag: its users here, and its access rules (policies.ts). */
export const ADMIN_TAG = {
  name: 'admin',
  description: 'Users and access rules, for roles the policy lets in (admin by default)',
};

const USER_PATH = '/api/v1/admin/users/:id';
const userNotFound = 'No user has this id (an id that is not a UUID included)';

/** The profile and admin operations: the router and the API document both read them. */
export const USER_OPERATIONS = {
  getProfile: operation({
    id: 'getProfile',
    method: 'GET',
    path: '/api/v1/profile',
    tag: profileTag,
    summary: 'Get my profile',
    access: 'token',
    answers: [ok(200, 'The caller', USER_SCHEMA)],
  }),
  updateProfile: operation({
    id: 'updateProfile',
    method: 'PUT',
    path: '/api/v1/profile',
    tag: profileTag,
    summary: 'Update my profile',
    description:
      'Any of the fields; a new `password` or a new `email` needs the right `current_password` (wrong guesses count ' +
      'toward the login throttle of the e-mail and client IP). A new password ends every other session of the caller ' +
      'and spends every outstanding e-mailed link. A new `email` is unverified and is mailed a verification link; the ' +
      'old address is mailed a notice. A `role` in the body is ignored.',
    access: 'token',
    body: ProfileUpdateBody,
    answers: [ok(200, 'The caller, updated', USER_SCHEMA)],
    failures: {
      409: 'The new e-mail is already registered',
      429: 'Too many wrong `current_password` attempts for this e-mail from this client; `Retry-After` says when to try again',
    },
  }),
  listUsers: operation({
    id: 'listUsers',
    method: 'GET',
    path: '/api/v1/admin/users',
    tag: ADMIN_TAG,
    summary: 'List users',
    description: 'A page of users; `q` filters on e-mail and names.',
    access: 'policy',
    list: { sortFields: USER_SORT_FIELDS, search: 'optional' },
    answers: [page('A page of users', USER_SCHEMA)],
  }),
  getUser: operation({
    id: 'getUser',
    method: 'GET',
    path: USER_PATH,
    tag: ADMIN_TAG,
    summary: 'Get a user',
    access: 'policy',
    answers: [ok(200, 'The user', USER_SCHEMA)],
    failures: { 404: userNotFound },
  }),
  changeUserRole: operation({
    id: 'changeUserRole',
    method: 'PUT',
    path: USER_PATH,
    tag: ADMIN_TAG,
    summary: "Change a user's role",
    description: "Takes effect at the user's next login or refresh (the role travels in the access token).",
    access: 'policy',
    body: RoleChangeBody,
    answers: [ok(200, 'The user, with its new role', USER_SCHEMA)],
    failures: { 404: userNotFound, 409: 'The caller would demote itself, or no admin would be left' },
  }),
  deleteUser: operation({
    id: 'deleteUser',
    method: 'DELETE',
    path: USER_PATH,
    tag: ADMIN_TAG,
    summary: 'Delete a user',
    description: 'Its refresh tokens stop working, and its access tokens are refused.',
    access: 'policy',
    answers: [noContent('The user is deleted')],
    failures: { 404: userNotFound, 409: 'The caller would delete itself, or no admin would be left' },
  }),
  endUserSessions: operation({
    id: 'endUserSessions',
    method: 'POST',
    path: `${USER_PATH}/logout`,
    tag: ADMIN_TAG,
    summary: "End all of a user's sessions",
    description: 'Its refresh tokens stop working at once, its access tokens within a second (docs/authentication.md).',
    access: 'policy',
    answers: [noContent('Every session of the user is ended')],
    failures: { 404: userNotFound },
  }),
};

/** `/api/v1/profile` (token only) and `/api/v1/admin/*` (token and policy). */
export function userRoutes(useCases: UserUseCases): (router: Router<RequestState>) => void {
  const ops = USER_OPERATIONS;
  return (router) => {
    const api = new RestRoutes(router, useCases);

    api.on(ops.getProfile, async (ctx) => {
      ctx.body = success(presentUser(await useCases.getProfile.execute({ userId: ctx.state.principal!.userId })));
    });

    api.on(ops.updateProfile, async (ctx, { body }) => {
      const user = await useCases.updateProfile.execute({
        userId: ctx.state.principal!.userId,
        sessionId: ctx.state.principal!.sessionId,
        clientIp: ctx.ip,
        ...(body.first_name !== undefined ? { firstName: body.first_name } : {}),
        ...(body.last_name !== undefined ? { lastName: body.last_name } : {}),
        ...(body.email !== undefined ? { email: body.email } : {}),
        ...(body.password !== undefined ? { password: body.password } : {}),
        ...(body.current_password !== undefined ? { currentPassword: body.current_password } : {}),
      });
      ctx.body = success(presentUser(user));
    });

    api.on(ops.listUsers, async (ctx, { query }) => {
      const page = await useCases.listUsers.execute(query);
      ctx.body = success(page.items.map(presentUser), { meta: pageMeta(page) });
    });

    api.on(ops.getUser, async (ctx) => {
      ctx.body = success(presentUser(await useCases.getUser.execute({ userId: userId(ctx.params.id) })));
    });

    api.on(ops.changeUserRole, async (ctx, { body }) => {
      const updated = await useCases.changeUserRole.execute({
        actorId: ctx.state.principal!.userId,
        userId: userId(ctx.params.id),
        role: body.role,
      });
      ctx.body = success(presentUser(updated));
    });

    api.on(ops.deleteUser, async (ctx) => {
      await useCases.deleteUser.execute({ actorId: ctx.state.principal!.userId, userId: userId(ctx.params.id) });
      ctx.status = 204;
    });

    api.on(ops.endUserSessions, async (ctx) => {
      await useCases.endUserSessions.execute({ userId: userId(ctx.params.id) });
      ctx.status = 204;
    });
  };
}
