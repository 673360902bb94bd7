import type { UserUseCases } from '../../adapters/inbound/http/routes/users.js';
import type { AccountLinks } from '../../application/account/AccountLinks.js';
import type { SessionEnder } from '../../application/account/SessionEnder.js';
import type { LoginAttempts } from '../../application/auth/LoginAttempts.js';
import type { SessionIssuer } from '../../application/auth/SessionIssuer.js';
import type { CreateUser } from '../../application/admin/CreateUser.js';
import type { SignInGate } from '../../application/mfa/SignInGate.js';
import type { MfaChallengeStore } from '../../application/ports/MfaChallengeStore.js';
import type { OidcHandoffStore } from '../../application/ports/OidcHandoffStore.js';
import type { PasskeyChallengeStore } from '../../application/ports/PasskeyChallengeStore.js';
import type { PasskeyStore } from '../../application/ports/PasskeyStore.js';
import type { IdentityStore } from '../../application/ports/IdentityStore.js';
import type { CallerLookup } from '../../application/ports/CallerLookup.js';
import type { EmailTokenStore } from '../../application/ports/EmailTokenStore.js';
import type { PasswordHasher } from '../../application/ports/PasswordHasher.js';
import type { RefreshTokenStore } from '../../application/ports/RefreshTokenStore.js';
import type { SessionStore } from '../../application/ports/SessionStore.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import { token } from '../wiring/tokens.js';

/*
 * The tokens of the features around a user — users (and the admin API), auth (sessions), mfa (second
 * factors) and account (e-mailed links) — kept apart from the modules that bind them, because each feature
 * builds on the others' (a profile change ends sessions and mails a link; a reset ends sessions):
 * the modules import these tokens, never one another.
 */

/** Bound by the users module: the users, their caches, credentials and the admin API. */
export const UserTokens = {
  Repository: token<UserRepository>('users.Repository'),
  PasswordHasher: token<PasswordHasher>('users.PasswordHasher'),
  /** The one lookup of every authenticated request: the user, if its session is active (remembered for a second). */
  Callers: token<CallerLookup>('users.Callers'),
  UseCases: token<UserUseCases>('users.UseCases'),
  /** Makes a user of any role the policy knows: the CLI's `users:create`, served by no route. */
  CreateUser: token<CreateUser>('users.CreateUser'),
} as const;

/** Bound by the auth module: sessions and their refresh-token families. */
export const SessionTokens = {
  Sessions: token<SessionStore>('sessions.Store'),
  RefreshTokenStore: token<RefreshTokenStore>('sessions.RefreshTokenStore'),
  SessionEnder: token<SessionEnder>('sessions.SessionEnder'),
  /** Starts and continues sessions: every sign-in's token pair. */
  Issuer: token<SessionIssuer>('auth.SessionIssuer'),
  /** The bound on concurrent checks per login-throttle key, one per process (passwords and second factors). */
  LoginAttempts: token<LoginAttempts>('auth.LoginAttempts'),
} as const;

/** Bound by the mfa module: where a first sign-in step (a password) leads — a session, or a second factor. */
export const SignInTokens = {
  Gate: token<SignInGate>('mfa.SignInGate'),
  /** Sign-ins waiting for their second factor (purged with the expired tokens). */
  Challenges: token<MfaChallengeStore>('mfa.Challenges'),
  /** Bound by the oidc module: the states and one-time codes of sign-ins at a provider (purged with the expired tokens). */
  OidcHandoffs: token<OidcHandoffStore>('oidc.Handoffs'),
  /** Bound by the passkeys module: the challenges of passkey ceremonies (purged with the expired tokens). */
  PasskeyChallenges: token<PasskeyChallengeStore>('passkeys.Challenges'),
  /** Bound by the oidc module: the identities linked to accounts (a way in, counted before one goes). */
  Identities: token<IdentityStore>('oidc.Identities'),
  /** Bound by the passkeys module: the passkeys of accounts (a way in, counted before one goes). */
  Passkeys: token<PasskeyStore>('passkeys.Store'),
} as const;

/** Bound by the account module: e-mailed links (their mail goes out as jobs). */
export const MailTokens = {
  EmailTokens: token<EmailTokenStore>('account.EmailTokens'),
  AccountLinks: token<AccountLinks>('account.AccountLinks'),
} as const;
