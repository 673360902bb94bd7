/** Everything stored about a user. `passwordHash` never leaves the service. */
export interface UserProps {
  readonly id: string;
  readonly email: string;
  readonly firstName: string;
  readonly lastName: string;
  readonly role: string;
  readonly passwordHash: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/**
 * A registered user. Immutable: every change returns a new User with `updatedAt` moved.
 * Values arrive already normalized and validated by the inbound codecs.
 */
export class User {
  private constructor(private readonly props: UserProps) {}

  /** A new user, created and updated at `now`. */
  static register(input: Omit<UserProps, 'createdAt' | 'updatedAt'>, now: Date): User {
    return new User({ ...input, createdAt: now, updatedAt: now });
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
  get createdAt(): Date {
    return this.props.createdAt;
  }
  get updatedAt(): Date {
    return this.props.updatedAt;
  }

  /** Applies the given changes; absent fields stay as they are. */
  with(changes: Partial<Pick<UserProps, 'email' | 'firstName' | 'lastName' | 'role' | 'passwordHash'>>, now: Date): User {
    return new User({ ...this.props, ...changes, updatedAt: now });
  }

  toProps(): UserProps {
    return { ...this.props };
  }
}
