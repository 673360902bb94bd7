import type Router from '@koa/router';
import type { Authenticate } from '../../../../application/auth/Authenticate.js';
import type { LoginUser } from '../../../../application/auth/LoginUser.js';
import type { Logout } from '../../../../application/auth/Logout.js';
import type { RefreshSession } from '../../../../application/auth/RefreshSession.js';
import type { RegisterUser } from '../../../../application/auth/RegisterUser.js';
import { decodeFields } from '../../codecs/fields.js';
import { LoginBody, RefreshBody, RegisterBody } from '../../codecs/userCodecs.js';
import { success } from '../envelope.js';
import { authenticate } from '../middleware/authenticate.js';
import { presentTokens, presentUser } from '../presenters.js';
import type { RequestState } from '../state.js';

export interface AuthUseCases {
  register: RegisterUser;
  login: LoginUser;
  refresh: RefreshSession;
  logout: Logout;
  authenticate: Authenticate;
}

/** `/api/v1/auth/*`: register (201), login, refresh (public), logout (bearer token, 204). */
export function authRoutes(useCases: AuthUseCases): (router: Router<RequestState>) => void {
  return (router) => {
    router.post('/api/v1/auth/register', async (ctx) => {
      const body = decodeFields(RegisterBody, ctx.request.body);
      const { user, tokens } = await useCases.register.execute({
        email: body.email,
        password: body.password,
        firstName: body.first_name,
        lastName: body.last_name,
      });
      ctx.status = 201;
      ctx.body = success({ user: presentUser(user), ...presentTokens(tokens) });
    });

    router.post('/api/v1/auth/login', async (ctx) => {
      const body = decodeFields(LoginBody, ctx.request.body);
      const { user, tokens } = await useCases.login.execute({ email: body.email, password: body.password, clientIp: ctx.ip });
      ctx.body = success({ user: presentUser(user), ...presentTokens(tokens) });
    });

    router.post('/api/v1/auth/refresh', async (ctx) => {
      const body = decodeFields(RefreshBody, ctx.request.body);
      ctx.body = success(presentTokens(await useCases.refresh.execute({ refreshToken: body.refresh_token })));
    });

    router.post('/api/v1/auth/logout', authenticate(useCases.authenticate), async (ctx) => {
      const body = decodeFields(RefreshBody, ctx.request.body);
      await useCases.logout.execute({ userId: ctx.state.principal!.userId, refreshToken: body.refresh_token });
      ctx.status = 204;
    });
  };
}
