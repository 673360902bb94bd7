/** Everything stored about a user. `passwordHash` never leaves the service. */
export interface UserProps {
  readonly id: string;
  readonly email: string;
  readonly firstName: string;
  readonly lastName: string;
  readonly role: string;
  /** Empty for an account that has no password (one an identity provider made): no password signs it in. */
  readonly passwordHash: string;
  /** Whether the user followed a link sent to `email` (docs/authentication.md); cleared when the e-mail changes. */
  readonly emailVerified: boolean;
  /** Whether the user has a second factor on (docs/authentication.md): a password alone then signs nothing in. */
  readonly mfaEnabled: boolean;
  /** Whether the user has a passkey (docs/authentication.md): a second factor too, and a sign-in of its own. */
  readonly hasPasskey: boolean;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/**
 * A registered user. Immutable: every change returns a new User with `updatedAt` moved.
 * Values arrive already normalized and validated by the inbound codecs.
 */
export class User {
  private constructor(private readonly props: UserProps) {}

  /** A new user, created and updated at `now`, without a second factor; its e-mail is unverified unless said otherwise. */
  static register(
    input: Omit<UserProps, 'createdAt' | 'updatedAt' | 'emailVerified' | 'mfaEnabled' | 'hasPasskey'> & {
      readonly emailVerified?: boolean;
    },
    now: Date,
  ): User {
    const emailVerified = input.emailVerified ?? false;
    return new User({ ...input, emailVerified, mfaEnabled: false, hasPasskey: false, createdAt: now, updatedAt: now });
  }

  /** A user read back from storage. */
  static restore(props: UserProps): User {
    return new User(props);
  }

  get id(): string {
    return this.props.id;
  }
  get email(): string {
    return this.props.email;
  }
  get firstName(): string {
    return this.props.firstName;
  }
  get lastName(): string {
    return this.props.lastName;
  }
  get role(): string {
    return this.props.role;
  }
  get passwordHash(): string {
    return this.props.passwordHash;
  }
  /** Whether a password can sign the user in: false for an account an identity provider made, until one is set. */
  get hasPassword(): boolean {
    return this.props.passwordHash !== '';
  }
  get emailVerified(): boolean {
    return this.props.emailVerified;
  }
  get mfaEnabled(): boolean {
    return this.props.mfaEnabled;
  }
  get hasPasskey(): boolean {
    return this.props.hasPasskey;
  }
  get createdAt(): Date {
    return this.props.createdAt;
  }
  get updatedAt(): Date {
    return this.props.updatedAt;
  }

  /**
   * Applies the given changes; absent fields stay as they are. A new e-mail is unverified: a
   * verification was of the old address, so it never carries over.
   */
  with(
    changes: Partial<Pick<UserProps, 'email' | 'firstName' | 'lastName' | 'role' | 'passwordHash'>>,
    now: Date,
  ): User {
    const emailChanged = changes.email !== undefined && changes.email !== this.props.email;
    return new User({ ...this.props, ...changes, ...(emailChanged ? { emailVerified: false } : {}), updatedAt: now });
  }

  /** The user having proved it reads `email` (it followed a link sent there). */
  withVerifiedEmail(now: Date): User {
    return new User({ ...this.props, emailVerified: true, updatedAt: now });
  }

  /** The user with a second factor turned on or off. */
  withMfa(enabled: boolean, now: Date): User {
    return new User({ ...this.props, mfaEnabled: enabled, updatedAt: now });
  }

  /** The user with a passkey or none left. */
  withPasskey(has: boolean, now: Date): User {
    return new User({ ...this.props, hasPasskey: has, updatedAt: now });
  }

  toProps(): UserProps {
    return { ...this.props };
  }
}
