import { ContainerModule } from 'inversify';
import { bindBuilt, built } from './built.js';
import { ACCOUNT_OPERATIONS, accountRoutes, type AccountUseCases } from '../../adapters/inbound/http/routes/account.js';
import { ConfirmEmail } from '../../application/account/ConfirmEmail.js';
import { EndAllSessions } from '../../application/account/EndAllSessions.js';
import { EndSession } from '../../application/account/EndSession.js';
import { ListSessions } from '../../application/account/ListSessions.js';
import { RequestEmailVerification } from '../../application/account/RequestEmailVerification.js';
import { RequestPasswordReset } from '../../application/account/RequestPasswordReset.js';
import { ResetPassword } from '../../application/account/ResetPassword.js';
import { token, TOKENS } from '../tokens.js';
import type { FeatureModule } from './FeatureModule.js';
import { UserTokens } from './users.js';

export const AccountTokens = {
  UseCases: token<AccountUseCases>('account.UseCases'),
} as const;

/**
 * The account lifecycle (docs/authentication.md), always served: password reset and e-mail verification by
 * e-mailed links, and the sessions a user can see and end. Its storage (sessions, e-mailed tokens)
 * and the links belong to the users module, which profile changes share.
 */
export const account: FeatureModule = {
  name: 'account',
  bindings: new ContainerModule(({ bind }) => {
    bindBuilt(
      bind(AccountTokens.UseCases),
      built(
        {
          authenticate: TOKENS.Authenticate,
          users: UserTokens.Repository,
          hasher: UserTokens.PasswordHasher,
          sessions: UserTokens.Sessions,
          ender: UserTokens.SessionEnder,
          links: UserTokens.AccountLinks,
          clock: TOKENS.Clock,
        },
        ({ authenticate, users, hasher, sessions, ender, links, clock }): AccountUseCases => ({
          authenticate,
          requestPasswordReset: new RequestPasswordReset(users, links),
          resetPassword: new ResetPassword(users, hasher, links, ender, clock),
          requestEmailVerification: new RequestEmailVerification(users, links),
          confirmEmail: new ConfirmEmail(users, links, clock),
          listSessions: new ListSessions(sessions, clock),
          endSession: new EndSession(ender),
          endAllSessions: new EndAllSessions(users, ender),
        }),
      ),
    );
  }),
  rest: {
    always: true,
    operations: Object.values(ACCOUNT_OPERATIONS),
    routes: built({ uses: AccountTokens.UseCases }, ({ uses }) => accountRoutes(uses)),
  },
};
