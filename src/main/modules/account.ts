import { ContainerModule } from 'inversify';
import type { EntitySchema } from '@mikro-orm/core';
import { KeyedOneTimeSecrets } from '../../adapters/outbound/crypto/KeyedOneTimeSecrets.js';
import { MikroOrmEmailTokenStore } from '../../adapters/outbound/mikroorm/MikroOrmEmailTokenStore.js';
import { EmailTokenSchema } from '../../adapters/outbound/mikroorm/schemas/EmailTokenSchema.js';
import { AccountLinks } from '../../application/account/AccountLinks.js';
import { accountMailJobs } from '../../application/account/AccountMailJobs.js';
import type { EmailTokenStore } from '../../application/ports/EmailTokenStore.js';
import { bindBuilt, built } from './built.js';
import { ACCOUNT_OPERATIONS, accountRoutes, type AccountUseCases } from '../../adapters/inbound/http/routes/account.js';
import { ConfirmEmail } from '../../application/account/ConfirmEmail.js';
import { EndAllSessions } from '../../application/account/EndAllSessions.js';
import { EndSession } from '../../application/account/EndSession.js';
import { ListSessions } from '../../application/account/ListSessions.js';
import { RequestEmailVerification } from '../../application/account/RequestEmailVerification.js';
import { RequestPasswordReset } from '../../application/account/RequestPasswordReset.js';
import { ResetPassword } from '../../application/account/ResetPassword.js';
import { PurgeExpiredTokens, TOKENS_PURGE_JOB } from '../../application/account/PurgeExpiredTokens.js';
import { secretsKey } from '../config/secretsKey.js';
import { token, TOKENS } from '../wiring/tokens.js';
import type { FeatureModule } from './FeatureModule.js';
import { MailTokens, SessionTokens, SignInTokens, UserTokens } from './identityTokens.js';

export const AccountTokens = {
  UseCases: token<AccountUseCases>('account.UseCases'),
} as const;

/**
 * The account lifecycle (docs/authentication.md), always served: password reset and e-mail
 * verification by e-mailed links, and the sessions a user can see and end. It binds the e-mailed
 * tokens and the links (which profile changes use too), runs the account mail jobs (`account.link`,
 * `mail.send`) and `tokens.purge` (scheduled hourly by default); the sessions it lists are the auth module's.
 */
export const account: FeatureModule = {
  name: 'account',
  bindings: new ContainerModule(({ bind }) => {
    bindBuilt(
      bind(MailTokens.EmailTokens),
      built({ database: TOKENS.Database }, ({ database }): EmailTokenStore => new MikroOrmEmailTokenStore(database)),
    );
    bindBuilt(
      bind(MailTokens.AccountLinks),
      built(
        {
          tokens: MailTokens.EmailTokens,
          jobs: TOKENS.JobQueue,
          transactions: TOKENS.Transactions,
          clock: TOKENS.Clock,
          config: TOKENS.Config,
        },
        ({ tokens, jobs, transactions, clock, config }) =>
          new AccountLinks({
            tokens,
            secrets: new KeyedOneTimeSecrets(secretsKey(config)),
            jobs,
            transactions,
            clock,
            mailsPerIpPerHour: config.account.mailsPerIpPerHour,
          }),
      ),
    );
    bindBuilt(
      bind(AccountTokens.UseCases),
      built(
        {
          authenticate: TOKENS.Authenticate,
          users: UserTokens.Repository,
          hasher: UserTokens.PasswordHasher,
          sessions: SessionTokens.Sessions,
          ender: SessionTokens.SessionEnder,
          links: MailTokens.AccountLinks,
          clock: TOKENS.Clock,
        },
        ({ authenticate, users, hasher, sessions, ender, links, clock }): AccountUseCases => ({
          authenticate,
          requestPasswordReset: new RequestPasswordReset(links),
          resetPassword: new ResetPassword({ users, hasher, links, ender, clock }),
          requestEmailVerification: new RequestEmailVerification(users, links),
          confirmEmail: new ConfirmEmail(users, links, clock),
          listSessions: new ListSessions(sessions, clock),
          endSession: new EndSession(ender),
          endAllSessions: new EndAllSessions(users, ender),
        }),
      ),
    );
  }),
  entities: [EmailTokenSchema] as EntitySchema[],
  jobs: built(
    {
      links: MailTokens.AccountLinks,
      users: UserTokens.Repository,
      mailer: TOKENS.Mailer,
      sessions: SessionTokens.Sessions,
      refreshTokens: SessionTokens.RefreshTokenStore,
      emailTokens: MailTokens.EmailTokens,
      challenges: SignInTokens.Challenges,
      oidcHandoffs: SignInTokens.OidcHandoffs,
      passkeyChallenges: SignInTokens.PasskeyChallenges,
      clock: TOKENS.Clock,
    },
    ({
      links,
      users,
      mailer,
      sessions,
      refreshTokens,
      emailTokens,
      challenges,
      oidcHandoffs,
      passkeyChallenges,
      clock,
    }) => ({
      ...accountMailJobs(links, users, mailer),
      // Refresh tokens first: a family goes once its every token expired, its session after.
      [TOKENS_PURGE_JOB]: new PurgeExpiredTokens(
        {
          refreshTokens,
          sessions,
          emailTokens,
          mfaChallenges: challenges,
          oidcHandoffs,
          passkeyChallenges,
        },
        clock,
      ).handler(),
    }),
  ),
  rest: {
    always: true,
    operations: Object.values(ACCOUNT_OPERATIONS),
    routes: built({ uses: AccountTokens.UseCases }, ({ uses }) => accountRoutes(uses)),
  },
};
