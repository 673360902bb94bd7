import { ConflictError, UnauthorizedError } from '../../domain/shared/DomainError.js';
import type { Transaction } from '../../domain/shared/Transaction.js';
import { parseEmail } from '../../domain/user/Email.js';
import { personNameProblem } from '../../domain/user/PersonName.js';
import { DEFAULT_ROLE } from '../../domain/user/Role.js';
import { User } from '../../domain/user/User.js';
import { EmailNotVerifiedError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { AccountLinks } from '../account/AccountLinks.js';
import type { ClientInfo } from '../auth/SessionIssuer.js';
import type { SignInGate, SignInOutcome } from '../mfa/SignInGate.js';
import type { Clock } from '../ports/Clock.js';
import type { IdentityStore } from '../ports/IdentityStore.js';
import type { ProviderClaims } from '../ports/IdentityProviders.js';
import type { IdGenerator } from '../ports/IdGenerator.js';
import type { Transactions } from '../ports/Jobs.js';

/** The longest first or last name an account takes (as the codecs do). */
const NAME_MAX_LENGTH = 100;

/** What OidcAccounts is given, by name. */
export interface OidcAccountsDependencies {
  readonly users: UserRepository;
  readonly identities: IdentityStore;
  readonly links: AccountLinks;
  readonly gate: SignInGate;
  readonly transactions: Transactions;
  readonly ids: IdGenerator;
  readonly clock: Clock;
  /** `auth.require_verified_email`: a sign-in to an account whose address is not verified is refused, as login's. */
  readonly requireVerifiedEmail: boolean;
}

/** The claim as a name an account takes (trimmed, 1 to 100 characters, no control characters), else undefined. */
function nameOf(claim: string | undefined): string | undefined {
  const name = claim?.trim();
  return name && name.length <= NAME_MAX_LENGTH && personNameProblem(name) === undefined ? name : undefined;
}

/**
 * Which account an identity a provider vouched for signs in to, and the way in:
 * - an identity (issuer, subject) linked already signs in to its account;
 * - else, when the provider says the address is verified and an account with that address exists
 *   whose address is verified too, the identity is linked to it;
 * - an address not verified on either side never links (no account is taken over through an
 *   address registered at a lax provider): ConflictError, as for an address taken otherwise;
 * - else a new account is made: role `user`, no password, names from the claims (the address's
 *   local part where one is missing), its address verified only when the provider says so (else a
 *   verification link is mailed, as registration does).
 * The sign-in itself is login's: refused while the address is unverified under
 * `auth.require_verified_email` (a new link is mailed), then through the SignInGate with `fed`.
 */
export class OidcAccounts {
  constructor(private readonly deps: OidcAccountsDependencies) {}

  /** The account `claims` sign in to, linked or made as the rules above say. */
  async accountFor(claims: ProviderClaims): Promise<User> {
    const { users, identities } = this.deps;
    const linked = await identities.find(claims.issuer, claims.subject);
    if (linked) {
      const user = await users.findById(linked.userId);
      // The identity's row goes with its user; a user deleted between the reads leaves nothing to sign in to.
      if (!user) throw new UnauthorizedError('the account of this identity no longer exists');
      return user;
    }
    const parsed = claims.email === undefined ? undefined : parseEmail(claims.email);
    if (parsed === undefined || 'problem' in parsed) {
      throw new UnauthorizedError('the identity provider gave no usable e-mail address');
    }
    const owner = await users.findByEmail(parsed.email);
    if (owner) {
      if (!claims.emailVerified || !owner.emailVerified) {
        throw new ConflictError(
          'an account with this e-mail address exists, and it is linked only when the provider and the account both have it verified',
        );
      }
      await this.link(owner, claims, parsed.email);
      return owner;
    }
    return this.register(claims, parsed.email);
  }

  /** Signs `user` in as login would, by `fed`: a session, or a second-factor challenge. */
  async enter(user: User, client: ClientInfo): Promise<SignInOutcome> {
    if (this.deps.requireVerifiedEmail && !user.emailVerified) {
      const ip = client.ip === null ? undefined : { ip: client.ip };
      await this.deps.links.request({ userId: user.id }, 'email-verification', ip);
      throw new EmailNotVerifiedError('a verification link has been sent to the address (at most 3 an hour)');
    }
    return this.deps.gate.pass(user, ['fed'], client);
  }

  private async link(user: User, claims: ProviderClaims, email: string, within?: Transaction): Promise<void> {
    const added = await this.deps.identities.add(
      {
        id: this.deps.ids.newId(),
        userId: user.id,
        issuer: claims.issuer,
        subject: claims.subject,
        email,
        createdAt: this.deps.clock.now(),
      },
      within,
    );
    // Another sign-in of the same identity linked it a moment ago (to this account or a new one).
    if (!added) throw new ConflictError('this identity was linked by another sign-in at the same time; sign in again');
  }

  private async register(claims: ProviderClaims, email: string): Promise<User> {
    const { users, links, transactions, ids, clock } = this.deps;
    const localPart = email.slice(0, email.indexOf('@')).slice(0, NAME_MAX_LENGTH);
    const user = User.register(
      {
        id: ids.newId(),
        email,
        firstName: nameOf(claims.givenName) ?? localPart,
        lastName: nameOf(claims.familyName) ?? localPart,
        role: DEFAULT_ROLE,
        passwordHash: '',
        emailVerified: claims.emailVerified,
      },
      clock.now(),
    );
    // The account, its identity and (unverified) its verification mail's job in one transaction.
    await transactions.run(async (tx) => {
      await users.add(user, tx);
      await this.link(user, claims, email, tx);
      if (!user.emailVerified) await links.request({ userId: user.id }, 'email-verification', undefined, tx);
    });
    return user;
  }
}
