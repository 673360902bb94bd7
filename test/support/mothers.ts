import type { Passkey } from '../../src/application/ports/PasskeyStore.js';
import { DEFAULT_ROLE } from '../../src/domain/user/Role.js';
import { User } from '../../src/domain/user/User.js';
import { fakeHashOf } from './CountingPasswordHasher.js';

/** The password every built user has unless told otherwise. */
export const DEFAULT_PASSWORD = 'correct horse battery';

let serial = 0;

/**
 * Builds valid users (normalized e-mail, trimmed names) with unique defaults. The password hash
 * is the one CountingPasswordHasher makes, so built users can log in through the use cases.
 */
export class UserBuilder {
  private id: string;
  private email: string;
  private firstName = 'Ada';
  private lastName = 'Lovelace';
  private role = DEFAULT_ROLE;
  private passwordHash = fakeHashOf(DEFAULT_PASSWORD);
  private emailVerified = false;

  constructor() {
    serial += 1;
    this.id = `b0000000-0000-4000-8000-${serial.toString(16).padStart(12, '0')}`;
    this.email = `user${serial}@example.com`;
  }

  withId(id: string): this {
    this.id = id;
    return this;
  }

  withEmail(email: string): this {
    this.email = email;
    return this;
  }

  withFirstName(firstName: string): this {
    this.firstName = firstName;
    return this;
  }

  withLastName(lastName: string): this {
    this.lastName = lastName;
    return this;
  }

  withName(firstName: string, lastName: string): this {
    return this.withFirstName(firstName).withLastName(lastName);
  }

  withRole(role: string): this {
    this.role = role;
    return this;
  }

  withPassword(password: string): this {
    this.passwordHash = fakeHashOf(password);
    return this;
  }

  /** A user registered (created and updated) at `now`. */
  /** An account an identity provider made: no password signs it in. */
  withoutPassword(): this {
    this.passwordHash = '';
    return this;
  }

  /** The user has followed a verification link. */
  verified(): this {
    this.emailVerified = true;
    return this;
  }

  build(now: Date): User {
    const { id, email, firstName, lastName, role, passwordHash, emailVerified } = this;
    return User.register({ id, email, firstName, lastName, role, passwordHash, emailVerified }, now);
  }
}

export const aUser = (): UserBuilder => new UserBuilder();

/** A stored passkey of `userId` (the store's record; no authenticator behind it). */
export const aPasskeyOf = (userId: string, n = 1): Passkey => ({
  id: `0000000${n}-0000-4000-8000-0000000000a${n}`,
  userId,
  credentialId: `credential-of-${userId.slice(0, 8)}-${n}`,
  publicKey: `pQECAyYgASFYI${'A'.repeat(80)}${n}`,
  counter: 0,
  transports: ['internal'],
  deviceType: 'multiDevice',
  backedUp: true,
  name: `Passkey ${n}`,
  createdAt: new Date('2026-01-01T12:00:00.000Z'),
  lastUsedAt: null,
});
